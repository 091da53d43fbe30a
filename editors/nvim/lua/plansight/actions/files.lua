---Opening the files a task touched, and diffing them against git's HEAD.
local notify = require("plansight.notify")

local M = {}

---Opens or closes the fold under the cursor (no fold there is not worth an error message).
function M.toggle_fold()
  pcall(vim.cmd, "normal! za")
end

---Opens `path` (relative to `root`) in the window the sidebar was entered from, or in a
---new split when the sidebar is alone; returns the window.
---@param root string
---@param path string
---@return integer win
function M.open(root, path)
  local sidebar = require("plansight.sidebar")
  -- Paths are relative to the checkout (`root` here); an absolute one (from an agent
  -- outside it) stays.
  local full = vim.startswith(path, "/") and path or vim.fs.joinpath(root, path)
  local win
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and prev ~= sidebar.state.win and vim.api.nvim_win_is_valid(prev) then
    win = prev
  else
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if w ~= sidebar.state.win and vim.api.nvim_win_get_config(w).relative == "" then
        win = w
        break
      end
    end
  end
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("leftabove vsplit")
  end
  vim.cmd.edit(vim.fn.fnameescape(full))
  return vim.api.nvim_get_current_win()
end

---Shows `path` against its `HEAD` version: `:Gvdiffsplit` when fugitive is there, else
---`git show HEAD:path` in a scratch buffer beside it, both in diff mode.
---@param root string
---@param path string
function M.diff(root, path)
  M.open(root, path)
  if vim.fn.exists(":Gvdiffsplit") == 2 then
    vim.cmd("Gvdiffsplit")
    return
  end
  -- `HEAD:./path` reads the path from `root`, even when the repository's top is above it.
  local res = vim.system({ "git", "-C", root, "show", "HEAD:./" .. path }, { text = true }):wait()
  local head
  if res.code == 0 then
    head = vim.split(res.stdout or "", "\n", { plain = true })
    if head[#head] == "" then
      head[#head] = nil
    end
  else
    -- Not in HEAD: a new file (every line is added), unless this is no repository at all.
    local inside = vim.system({ "git", "-C", root, "rev-parse", "--verify", "HEAD" }, { text = true }):wait()
    if inside.code ~= 0 then
      notify(("no git history to compare %s with"):format(path), vim.log.levels.WARN)
      return
    end
    head = {}
  end
  local file_win = vim.api.nvim_get_current_win()
  local ft = vim.bo.filetype
  vim.cmd("diffthis")
  vim.cmd("leftabove vnew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, head)
  for name, value in pairs({ buftype = "nofile", bufhidden = "wipe", swapfile = false, modifiable = false }) do
    vim.api.nvim_set_option_value(name, value, { buf = buf })
  end
  vim.bo[buf].filetype = ft
  pcall(vim.api.nvim_buf_set_name, buf, "plansight://HEAD/" .. path)
  vim.cmd("diffthis")
  -- Closing the HEAD side ends the diff in the file's window too.
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      if vim.api.nvim_win_is_valid(file_win) then
        vim.api.nvim_win_call(file_win, function()
          vim.cmd("diffoff")
        end)
      end
    end,
  })
  vim.api.nvim_set_current_win(file_win)
end

---(v4) The folder a file of `session`'s tasks is relative to: the checkout it was changed
---in (its session's), found from `root` whichever worktree of the repository it is.
---@param root string
---@param session string?
---@return string
function M.checkout_folder(root, session)
  local checkouts = require("plansight.client").checkouts(root)
  return require("plansight.checkout").folder(root, session and checkouts[session] or nil)
end

---Diffs the file under the cursor against HEAD.
function M.diff_at_cursor()
  local item, root = require("plansight.actions.target").item({ file = true }, "a file of a task")
  if item and root and item.file then
    M.diff(M.checkout_folder(root, item.session), item.file)
  end
end

---Opens the file under the cursor, else opens or closes the fold there.
function M.open_at_cursor()
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  if item and item.kind == "file" and item.file then
    M.open(M.checkout_folder(sidebar.state.root, item.session), item.file)
  else
    M.toggle_fold()
  end
end

return M
