---`:Plansight edit`: the plan as a markdown buffer; `:w` sends it with `plansight/import`.
---
---The buffer is `buftype=acwrite`, so writing it runs `BufWriteCmd` instead of touching a
---file. While it has no unsaved changes it follows the plan live. `:w` sends the version the
---text was read at with `merge = true`: a buffer opened before an agent's change merges with
---it rather than reverting it, and what cannot be merged is listed with a choice (compare,
---overwrite, cancel).
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
  -- The plan's version first, then its text: the version is never newer than the text, so
  -- the merge of a later `:w` can only keep more of what others changed, never revert it.
  client.request(info.root, protocol.methods.get, { session = info.session }, function(gerr, state)
    if gerr then
      require("plansight.actions.requests").report(gerr, nil)
      return
    end
    local version = type(state) == "table" and state.version or nil
    client.request(info.root, protocol.methods.export, params, function(err, result)
      if not vim.api.nvim_buf_is_valid(buf) or M.buffers[buf] ~= info then
        return
      end
      if err then
        require("plansight.actions.requests").report(err, nil)
        return
      end
      if vim.bo[buf].modified then
        return -- typed into while the answer was on its way: the person's text wins
      end
      info.version = version
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, to_lines(result and result.text or ""))
      vim.bo[buf].modified = false
      if cb then
        cb()
      end
    end)
  end)
end

---The lines of a refused merge's conflicts, in the person's words.
---@param conflicts table[]
---@return string[]
function M.conflict_lines(conflicts)
  local out = {}
  for _, c in ipairs(conflicts) do
    local content = tostring(protocol.value(c.content) or "")
    if c.field == "task" then
      out[#out + 1] = ("%q: removed on one side, changed on the other"):format(content)
    else
      out[#out + 1] = ("%q: %s changed on both sides"):format(content, tostring(c.field))
    end
  end
  return out
end

---Shows the plan as the server holds it now beside the buffer, both in diff mode.
---@param buf integer
function M.compare(buf)
  local info = M.buffers[buf]
  if not info then
    return
  end
  client.request(info.root, protocol.methods.export, { session = info.session, format = "markdown" }, function(err, result)
    if err then
      require("plansight.actions.requests").report(err, nil)
      return
    end
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    local win = vim.fn.bufwinid(buf)
    if win == -1 then
      win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(win, buf)
    end
    vim.api.nvim_set_current_win(win)
    local current = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(current, 0, -1, false, to_lines(result and result.text or ""))
    vim.bo[current].filetype = "markdown"
    vim.bo[current].modifiable = false
    vim.bo[current].bufhidden = "wipe"
    pcall(vim.api.nvim_buf_set_name, current, ("plansight://%s.md (now)"):format(info.session))
    vim.cmd("diffthis")
    vim.api.nvim_open_win(current, false, { split = "left", win = win })
    vim.api.nvim_win_call(vim.fn.bufwinid(current), function()
      vim.cmd("diffthis")
    end)
  end)
end

---Sends `markdown` as the plan of the buffer's session; `base` nil overwrites whatever changed.
---@param buf integer
---@param markdown string
---@param base integer?
---@param merge (true|"mine")? how a stale `base` merges: `"mine"` takes the person's side of conflicts
local function send(buf, markdown, base, merge)
  local info = M.buffers[buf]
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local params = { session = info.session, markdown = markdown, origin = "user" }
  if base then
    params.baseVersion = base
    params.merge = merge or true
  end
  client.request(info.root, protocol.methods.import, params, function(err, result)
    local data = err and protocol.value(err.data)
    if base and err and err.code == protocol.errors.content_modified and type(data) == "table" then
      M.refused(buf, markdown, protocol.value(data.conflicts) or {})
      return
    end
    require("plansight.actions.requests").report(err, result, "import failed: ")
    if err or (type(result) == "table" and result.isError) then
      -- Import replaces the whole list: on an error the person fixes the text and writes
      -- again, so it stays as typed (and modified) rather than being replaced by the server's.
      return
    end
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    info.version = result.version
    if vim.api.nvim_buf_get_changedtick(buf) == tick then
      vim.bo[buf].modified = false
      M.reload(buf)
    end
    notify(("plan of %q imported"):format(info.session))
  end)
end

---A merge the server refused: says what conflicts and asks what to do. The buffer keeps
---the person's text, unsaved, unless they overwrite.
---@param buf integer
---@param markdown string
---@param conflicts table[] empty when the buffer's version is older than the kept history
function M.refused(buf, markdown, conflicts)
  local info = M.buffers[buf]
  if not info or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local lines = M.conflict_lines(conflicts)
  local why = #lines > 0 and ("Both you and someone else changed:\n  " .. table.concat(lines, "\n  "))
    or "The plan changed since you opened it, too long ago to merge your edit."
  notify(("plan of %q not saved. %s"):format(info.session, why), vim.log.levels.WARN)
  vim.ui.select({ "Compare", "Overwrite", "Cancel" }, {
    prompt = ("Plan of %q changed meanwhile:"):format(info.session),
  }, function(choice)
    if choice == "Compare" then
      M.compare(buf)
    elseif choice == "Overwrite" then
      -- Only the conflicts listed take the person's side (`merge = "mine"`); with nothing to
      -- merge from (a version past the kept history), the text as it is.
      if #conflicts > 0 then
        send(buf, markdown, info.version, "mine")
      else
        send(buf, markdown, nil)
      end
    end
  end)
end

---Sends the buffer as the new plan of its session (`origin = "user"`), merged with what
---changed since the version it was read at.
---@param buf integer
function M.write(buf)
  local info = M.buffers[buf]
  if not info then
    return
  end
  local markdown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
  send(buf, markdown, info.version)
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
