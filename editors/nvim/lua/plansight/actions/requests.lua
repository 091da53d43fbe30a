---The requests a person's edit sends, and how their answers are reported.
---
---Every change made here goes to the server with `origin = "user"`, so the agent is told
---what the user changed.
local client = require("plansight.client")
local notify = require("plansight.notify")
local protocol = require("plansight.protocol")

local M = {}

---Reports an answer: an error as an error, skipped operations (`errors`) as a warning.
---@param err plansight.ResponseError?
---@param result table?
---@param prefix string? put before an error's text (what failed)
function M.report(err, result, prefix)
  if err then
    if err.brief then
      notify.brief(prefix or "", { protocol.error_text(err) }, vim.log.levels.WARN)
    elseif not err.reported then
      notify((prefix or "") .. protocol.error_text(err), vim.log.levels.ERROR)
    end
  elseif type(result) == "table" and result.isError and type(result.errors) == "table" then
    notify(table.concat(result.errors, "\n"), vim.log.levels.WARN)
  end
end

---Sends a change request as the person's edit (`origin = "user"`), reports its answer,
---then calls `cb` with it.
---@param root string
---@param method string one of `protocol.methods`
---@param params table
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.request_user(root, method, params, cb)
  params.origin = "user"
  client.request(root, method, params, function(err, result)
    M.report(err, result)
    if cb then
      cb(err, result)
    end
  end)
end

---Sends `ops` as a person's edit of `session`.
---@param root string
---@param session string
---@param ops table[]
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.apply_user(root, session, ops, cb)
  M.request_user(root, protocol.methods.apply, { session = session, ops = ops }, cb)
end

---Adds a task named `text` (trimmed; nothing when blank) to `phase`; without one the server
---puts it where new work goes (the phase of the task in progress, else the last phase): the
---shim keeps no rule of its own.
---@param root string
---@param session string
---@param phase string?
---@param text string?
function M.append_user(root, session, phase, text)
  text = text and vim.trim(text) or ""
  if text ~= "" then
    M.apply_user(root, session, { { op = "append", phase = phase, items = { text } } })
  end
end

---Adds the note `text` to task `id` (nothing when blank; the note is sent as typed).
---@param root string
---@param session string
---@param id string
---@param text string?
function M.note_user(root, session, id, text)
  if text and vim.trim(text) ~= "" then
    M.apply_user(root, session, { { op = "note", id = id, text = text } })
  end
end

---Clears `session` as a person's edit.
---@param root string
---@param session string
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.clear_user(root, session, cb)
  M.request_user(root, protocol.methods.clear, { session = session }, cb)
end

---Restores `session` to `version` as the person's edit; `on_done` runs when it went through.
---@param root string
---@param session string
---@param version integer
---@param on_done fun()?
function M.restore_user(root, session, version, on_done)
  M.request_user(root, protocol.methods.restore, { session = session, version = version }, function(err)
    if not err and on_done then
      on_done()
    end
  end)
end

---Reads the history of `session` (newest first, at most `limit` events when given);
---`cb(events)` runs only on an answer, an error is reported.
---@param root string
---@param session string
---@param limit integer?
---@param cb fun(events: plansight.HistoryEvent[])
function M.read_history(root, session, limit, cb)
  client.request(root, protocol.methods.history, { session = session, limit = limit }, function(err, result)
    if err then
      M.report(err, nil)
      return
    end
    cb(type(result) == "table" and result.events or {})
  end)
end

---Steps `session` back one change (`plansight/undo`), as the person: again steps back one
---more; says what the undo did, in the server's words. "Nothing to undo" is reported as
---any skipped change is.
---@param root string
---@param session string
---@param on_done fun()? runs once the undo went through
function M.undo(root, session, on_done)
  M.request_user(root, protocol.methods.undo, { session = session }, function(err, result)
    if err or type(result) ~= "table" or not result.changed then
      return
    end
    -- A few: another change may already have followed this one.
    M.read_history(root, session, 5, function(events)
      local changes = {}
      for _, event in ipairs(events) do
        if event.version == result.version then
          changes = protocol.value(event.changes) or {}
        end
      end
      -- One line: undoing a clear brings back every task, each its own change.
      notify.brief("undo: ", #changes > 0 and changes or { "stepped back one change" })
      if on_done then
        on_done()
      end
    end)
  end)
end

---The session's tasks in phase and task order, as the cache holds them.
---@param root string
---@param session string
---@return plansight.Task[]
function M.session_tasks(root, session)
  local conn = client.get(root)
  return protocol.tasks(conn and conn.states[session])
end

---Reads every session of `root` again from the server and draws the sidebar.
---@param root string
function M.refresh(root)
  client.ensure(root)
  client.refresh(root)
  require("plansight.sidebar").render()
end

return M
