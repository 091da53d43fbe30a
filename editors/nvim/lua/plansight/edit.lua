---`:Plansight edit`: the plan as a markdown buffer; `:w` sends it with `plansight/import`.
---
---The buffer is `buftype=acwrite`, so writing it runs `BufWriteCmd` instead of touching a
---file. While it has no unsaved changes it follows the plan live.
local client = require("plansight.client")
local config = require("plansight.config")
local protocol = require("plansight.protocol")

local M = {}

---@class plansight.EditBuffer
---@field root string
---@field session string
---@field version integer? the plan version the text was exported from

---@type table<integer, plansight.EditBuffer>
M.buffers = {}

local notify = require("plansight.notify")

---@param text string
---@return string[]
local function to_lines(text)
  local lines = vim.split(text:gsub("\r\n", "\n"), "\n", { plain = true })
  if #lines > 1 and lines[#lines] == "" then
    lines[#lines] = nil
  end
  return lines
end

---Replaces the buffer text with the server's markdown of its session.
---@param buf integer
---@param cb fun()?
function M.reload(buf, cb)
  local info = M.buffers[buf]
  if not info then
    return
  end
  local params = { session = info.session, format = "markdown" }
  client.request(info.root, protocol.methods.export, params, function(err, result)
    if not vim.api.nvim_buf_is_valid(buf) or M.buffers[buf] ~= info then
      return
    end
    if err then
      require("plansight.actions").report(err, nil)
      return
    end
    if vim.bo[buf].modified then
      return -- typed into while the answer was on its way: the person's text wins
    end
    local conn = client.get(info.root)
    local state = conn and conn.states[info.session]
    info.version = state and state.version or info.version
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, to_lines(result and result.text or ""))
    vim.bo[buf].modified = false
    if cb then
      cb()
    end
  end)
end

---Sends the buffer as the new plan of its session (`origin = "user"`).
---@param buf integer
function M.write(buf)
  local info = M.buffers[buf]
  if not info then
    return
  end
  local markdown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  client.request(info.root, protocol.methods.import, {
    session = info.session,
    markdown = markdown,
    origin = "user",
  }, function(err, result)
    require("plansight.actions").report(err, result, "import failed: ")
    if err or (type(result) == "table" and result.isError) then
      -- Import replaces the whole list: on an error the person fixes the text and writes
      -- again, so it stays as typed (and modified) rather than being replaced by the server's.
      return
    end
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    if vim.api.nvim_buf_get_changedtick(buf) == tick then
      vim.bo[buf].modified = false
      M.reload(buf)
    end
    notify(("plan of %q imported"):format(info.session))
  end)
end

---@return integer? a window that can show another buffer (not the sidebar, not floating)
local function editing_window()
  local cur = vim.api.nvim_get_current_win()
  local function usable(win)
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      return false
    end
    local buf = vim.api.nvim_win_get_buf(win)
    return vim.bo[buf].filetype ~= "plansight"
  end
  if usable(cur) then
    return cur
  end
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and usable(prev) then
    return prev
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if usable(win) then
      return win
    end
  end
  return nil
end

---Opens (or shows again) the markdown buffer of `session` and focuses it.
---@param root string
---@param session string
---@return integer buf
function M.open(root, session)
  local buf
  for b, info in pairs(M.buffers) do
    if info.root == root and info.session == session and vim.api.nvim_buf_is_valid(b) then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(true, false)
    M.buffers[buf] = { root = root, session = session }
    local name = ("plansight://%s.md"):format(session)
    if not pcall(vim.api.nvim_buf_set_name, buf, name) then
      pcall(vim.api.nvim_buf_set_name, buf, ("plansight://%s/%s.md"):format(vim.fs.basename(root), session))
    end
    vim.bo[buf].buftype = "acwrite"
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = "markdown"
    vim.b[buf].plansight_root = root
    vim.b[buf].plansight_session = session
    vim.api.nvim_create_autocmd("BufWriteCmd", {
      buffer = buf,
      callback = function(ev)
        M.write(ev.buf)
      end,
    })
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      callback = function(ev)
        M.buffers[ev.buf] = nil
      end,
    })
    M.reload(buf)
  end
  local win = editing_window()
  if win then
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_buf(win, buf)
  else
    local side = config.options.sidebar.side == "right" and "left" or "right"
    vim.api.nvim_open_win(buf, true, { split = side, win = -1 })
  end
  return buf
end

---Follows live changes in edit buffers without unsaved changes.
---@param root string
function M.on_root_change(root)
  for buf, info in pairs(M.buffers) do
    if info.root == root and vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].modified then
      local conn = client.get(root)
      local state = conn and conn.states[info.session]
      if state and state.version ~= info.version then
        info.version = state.version
        M.reload(buf)
      end
    end
  end
end

return M
