---(v4) A session's checkout: where its agent works (`checkout` in `plansight/sessions`,
---`{worktree, branch}`), said in a few words, and the folder its task files are relative
---to. A session's `worktree` is relative to the main working tree's root (absolute when
---outside it; nil: the main working tree), and Neovim may be open on any worktree of the
---repository, so the main working tree is found as the server finds it: from git's own
---files (a linked worktree's `.git` file names `<common git dir>/worktrees/<name>`, whose
---`commondir` names the common git dir, a `.git` folder whose parent is the main one).
local protocol = require("plansight.protocol")

local M = {}

-- Git's files are a line or two; anything longer is not one of them.
local MOST_BYTES = 64 * 1024

---@param path string
---@return string?
local function small_text(path)
  local file = io.open(path, "rb")
  if not file then
    return nil
  end
  local ok, data = pcall(file.read, file, MOST_BYTES + 1)
  file:close()
  if not ok or type(data) ~= "string" or #data > MOST_BYTES then
    return nil
  end
  return data
end

---@param text string
---@return string
local function first_line(text)
  return vim.trim((text:match("^[^\n]*") or ""):gsub("\r$", ""))
end

---@param path string
---@return boolean
local function is_absolute(path)
  return path:sub(1, 1) == "/" or path:match("^%a:[/\\]") ~= nil
end

---The main working tree's root when `folder` is a linked worktree's root, else nil.
---@param folder string
---@return string?
function M.main_working_tree(folder)
  local dotgit = small_text(vim.fs.joinpath(folder, ".git"))
  local line = dotgit and first_line(dotgit) or ""
  if line:sub(1, 7) ~= "gitdir:" then
    return nil -- a `.git` folder (which reads as nothing), or no checkout here
  end
  local named = vim.trim(line:sub(8))
  if named == "" then
    return nil
  end
  local gitdir = vim.fs.normalize(is_absolute(named) and named or vim.fs.joinpath(folder, named))
  gitdir = vim.uv.fs_realpath(gitdir) or gitdir
  if vim.fs.basename(vim.fs.dirname(gitdir)) ~= "worktrees" then
    return nil -- a submodule's `.git` file
  end
  local common = small_text(vim.fs.joinpath(gitdir, "commondir"))
  if not common or first_line(common) == "" then
    return nil
  end
  local named_common = first_line(common)
  local common_dir = is_absolute(named_common) and named_common or vim.fs.joinpath(gitdir, named_common)
  common_dir = vim.uv.fs_realpath(common_dir) or common_dir
  if vim.fs.basename(common_dir) ~= ".git" or vim.fs.dirname(vim.fs.dirname(gitdir)) ~= common_dir then
    return nil -- a bare repository's worktree keeps its own root
  end
  local config = small_text(vim.fs.joinpath(common_dir, "config")) or ""
  for raw in config:gmatch("[^\n]+") do
    if raw:lower():match("^%s*bare%s*=%s*true%s*$") then
      return nil
    end
  end
  return vim.fs.dirname(common_dir)
end

---The folder a session's task files are relative to, for Neovim open on `root`.
---@param root string
---@param checkout table|vim.NIL|nil the session's `checkout`
---@return string
function M.folder(root, checkout)
  local worktree = type(checkout) == "table" and protocol.value(checkout.worktree) or nil
  if type(worktree) == "string" and is_absolute(worktree) then
    return worktree
  end
  local main = M.main_working_tree(root) or root
  if type(worktree) ~= "string" or worktree == "" then
    return main
  end
  return vim.fs.joinpath(main, worktree)
end

---The checkout in a few words, beside a session's header: `⎇ branch`, `⎇ branch (worktree)`
---for a linked worktree; nil when none is known.
---@param checkout table|vim.NIL|nil
---@return string?
function M.label(checkout)
  if type(checkout) ~= "table" then
    return nil
  end
  local branch = protocol.value(checkout.branch)
  local worktree = protocol.value(checkout.worktree)
  local text = "⎇ " .. (type(branch) == "string" and branch or "detached")
  if type(worktree) == "string" and worktree ~= "" then
    text = text .. " (" .. worktree .. ")"
  end
  return (text:gsub("[%c]", " "))
end

return M
