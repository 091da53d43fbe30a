---What an action acts on: the sidebar item the cursor shows (on a closed fold, the fold's
---first line), or the session a session-wide action targets. An item of the wrong kind is
---never guessed at: the person is told what to put the cursor on.
local client = require("plansight.client")
local notify = require("plansight.notify")

local M = {}

---Every kind a task's own lines have: the task, its description, notes and files.
M.TASK = { task = true, note = true, description = true, file = true }
M.TASK_OR_PHASE = { task = true, note = true, description = true, file = true, phase = true }

---The sidebar item under the cursor, with its root, or nil after telling the person.
---@param kinds table<string, boolean> the item kinds the action works on
---@param what string what to put the cursor on, for the message
---@return plansight.RenderItem?, string?
function M.item(kinds, what)
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  if not item or not kinds[item.kind] then
    local here = item and item.kind == "session" and " (the cursor is on a session's header)" or ""
    notify("put the cursor on " .. what .. here, vim.log.levels.WARN)
    return nil, nil
  end
  return item, sidebar.state.root
end

---An action on the sidebar item under the cursor: `fn(item, root)` runs when the item is of
---one of `kinds`, else the person is told what to put the cursor on.
---@param kinds table<string, boolean>
---@param what string
---@param fn fun(item: plansight.RenderItem, root: string)
---@return fun()
function M.on_item(kinds, what, fn)
  return function()
    local item, root = M.item(kinds, what)
    if item and root then
      fn(item, root)
    end
  end
end

---An action on the task under the cursor (or on its description, notes and files).
---@param fn fun(item: plansight.RenderItem, root: string, task: plansight.Task)
---@return fun()
function M.on_task(fn)
  return M.on_item(M.TASK, "a task", function(item, root)
    fn(item, root, item.task --[[@as plansight.Task]])
  end)
end

---The session an action without a task target works on: the one under the cursor, else
---the active one.
---@return string session, string root
function M.session()
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  local root = sidebar.state.root or client.resolve_root()
  return (item and item.session) or client.active_session(root), root
end

---An action on the session under the cursor (else the active one): `fn(root, session)`.
---@param fn fun(root: string, session: string)
---@return fun()
function M.on_session(fn)
  return function()
    local session, root = M.session()
    fn(root, session)
  end
end

---On a note line, the note's own action; elsewhere `fallback` (E and D act on what the cursor shows).
---@param note_action fun()
---@param fallback fun()
---@return fun()
function M.note_or(note_action, fallback)
  return function()
    local item = require("plansight.sidebar").item_at_cursor()
    if item and item.kind == "note" then
      note_action()
    else
      fallback()
    end
  end
end

return M
