---Finds the `plansight` command where people install it when it is not on Neovim's PATH
---(a GUI or a login shell may not have the folder pipx or uv put it in).
local M = {}

---The places looked in, in order, as `{ path, where }`; `where` names the place for a person.
---@param name string the command's name
---@return {[1]: string, [2]: string}[]
function M.candidates(name)
  local home = vim.uv.os_homedir() or vim.env.HOME or ""
  local data = vim.env.XDG_DATA_HOME or (home .. "/.local/share")
  local list = {}
  local function add(path, where)
    if path and path ~= "" then
      list[#list + 1] = { path, where }
    end
  end
  add(vim.env.XDG_BIN_HOME and (vim.env.XDG_BIN_HOME .. "/" .. name), "$XDG_BIN_HOME")
  add(home .. "/.local/bin/" .. name, "~/.local/bin (pipx, uv tool, pip --user)")
  add(vim.env.PIPX_BIN_DIR and (vim.env.PIPX_BIN_DIR .. "/" .. name), "$PIPX_BIN_DIR")
  add(vim.env.PIPX_HOME and (vim.env.PIPX_HOME .. "/venvs/" .. name .. "/bin/" .. name), "pipx's venv ($PIPX_HOME)")
  add(home .. "/.local/pipx/venvs/" .. name .. "/bin/" .. name, "pipx's venv")
  add(data .. "/pipx/venvs/" .. name .. "/bin/" .. name, "pipx's venv")
  add(vim.env.UV_TOOL_BIN_DIR and (vim.env.UV_TOOL_BIN_DIR .. "/" .. name), "$UV_TOOL_BIN_DIR")
  add(vim.env.UV_TOOL_DIR and (vim.env.UV_TOOL_DIR .. "/" .. name .. "/bin/" .. name), "uv's tools ($UV_TOOL_DIR)")
  add(data .. "/uv/tools/" .. name .. "/bin/" .. name, "uv's tools")
  return list
end

---The executable `exe` runs as: itself when Neovim finds it (on PATH, or a path), else for
---the bare name `plansight` the first install found off PATH; nil when there is none.
---@param exe string
---@return string? path
function M.find(exe)
  if vim.fn.executable(exe) == 1 then
    return vim.fn.exepath(exe) ~= "" and vim.fn.exepath(exe) or exe
  end
  if exe:find("/", 1, true) then
    return nil
  end
  for _, candidate in ipairs(M.candidates(exe)) do
    if vim.fn.executable(candidate[1]) == 1 then
      return candidate[1]
    end
  end
  return nil
end

---Where `find` looked, for a person: "PATH, ~/.local/bin, ...".
---@param exe string
---@return string
function M.looked_in(exe)
  if exe:find("/", 1, true) then
    return exe
  end
  local seen, names = {}, { "PATH" }
  for _, candidate in ipairs(M.candidates(exe)) do
    local dir = vim.fn.fnamemodify(candidate[1], ":h"):gsub("^" .. vim.pesc(vim.uv.os_homedir() or "~"), "~")
    if not seen[dir] then
      seen[dir] = true
      names[#names + 1] = dir
    end
  end
  return table.concat(names, ", ")
end

---The command that installs the server.
M.INSTALL = "pipx install plansight (or: uv tool install plansight)"

return M
