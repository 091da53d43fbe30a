---Names of the Plansight wire protocol (version 4), as the plugin uses them.
---
---The Python models are the source of truth; `tests/test_protocol.lua` checks these
---names against `plansight schema`.
local M = {}

M.VERSION = 4

---Requests, client -> server.
M.methods = {
  apply = "plansight/apply",
  write = "plansight/write",
  get = "plansight/get",
  sessions = "plansight/sessions",
  clear = "plansight/clear",
  export = "plansight/export",
  import = "plansight/import",
  context = "plansight/context",
  history = "plansight/history",
  restore = "plansight/restore",
  undo = "plansight/undo",
}

---Notifications, server -> client.
M.notifications = {
  did_change = "plansight/didChange",
  did_prune = "plansight/didPrune",
}

M.DEFAULT_SESSION = "default"

---The server's rules (`plansight schema`'s `rules`, checked equal by `tests/test_protocol.lua`):
---the statuses a task ends in, and how long a followed session may be idle before a newer
---one takes its place (`plansight.follow`).
M.rules = {
  finishedStatuses = { "completed", "abandoned" },
  followIdleSeconds = 120,
}

local finished = {}
for _, status in ipairs(M.rules.finishedStatuses) do
  finished[status] = true
end

---Whether a task's status is one it ends in (the server's `finishedStatuses`).
---@param status string?
---@return boolean
function M.finished(status)
  return finished[status] == true
end

---The tasks not finished: the total less the server's count of each finished status (each
---is a field of the progress, which the schema test checks).
---@param progress plansight.Progress
---@return integer
function M.remaining(progress)
  local left = progress.total or 0
  for _, status in ipairs(M.rules.finishedStatuses) do
    left = left - (progress[status] or 0)
  end
  return math.max(0, left)
end

---Error codes the plugin treats specially.
M.errors = {
  invalid_params = -32602,
  content_modified = -32801,
}

---@alias plansight.TaskStatus "pending"|"in_progress"|"completed"|"abandoned"|"blocked"

---@alias plansight.Priority "high"|"medium"|"low"

---The priorities, highest first (the order `p` offers them in).
---@type plansight.Priority[]
M.PRIORITIES = { "high", "medium", "low" }

---@class plansight.Task
---@field id string
---@field content string
---@field activeForm string
---@field status plansight.TaskStatus
---@field notes string[]
---@field description string? "" when none
---@field priority plansight.Priority|vim.NIL|nil
---@field blockedBy string[]? ids of tasks of the same session this one waits for
---@field waiting boolean? a blockedBy task is neither completed nor abandoned (the server says)
---@field owner string|vim.NIL|nil
---@field files string[]? paths changed while it was in progress, relative to the session's checkout (v4)
---@field externalId string|vim.NIL|nil
---@field createdAt string
---@field updatedAt string
---@field startedAt string|vim.NIL|nil
---@field completedAt string|vim.NIL|nil
---@field parent string|vim.NIL|nil (v4) the id of the task it is a subtask of; nil at the top

---@class plansight.Phase
---@field name string
---@field tasks plansight.Task[]
---@field progress plansight.Progress

---@class plansight.Progress
---@field completed integer
---@field abandoned integer
---@field blocked integer?
---@field total integer
---@field percent integer

---@class plansight.TodoState
---@field session string
---@field title string|vim.NIL|nil a person-readable name; none shows `session`
---@field version integer
---@field phases plansight.Phase[]
---@field progress plansight.Progress
---@field current plansight.Task|vim.NIL|nil
---@field updatedAt string|vim.NIL|nil

---@class plansight.ChangeEvent
---@field root string the workspace root of the server that sent it
---@field origin "agent"|"user"|nil
---@field completedTasks {id: string, content: string, phase: string}[]
---@field removedTasks {id: string, content: string, phase: string}[] unfinished tasks the change removed

---@class plansight.HistoryEvent
---@field version integer
---@field origin "agent"|"user"
---@field method string
---@field at string
---@field changes string[]

---@class plansight.ResponseError
---@field code integer
---@field message string
---@field data any

---Turns JSON null (`vim.NIL`) into nil.
---@generic T
---@param v T|vim.NIL
---@return T|nil
function M.value(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

---The tasks of `state` in phase and task order (none for a missing state).
---@param state plansight.TodoState?
---@return plansight.Task[]
function M.tasks(state)
  local out = {}
  for _, phase in ipairs(state and state.phases or {}) do
    for _, task in ipairs(phase.tasks or {}) do
      out[#out + 1] = task
    end
  end
  return out
end

---The readable lines of an error answer: the message, then each `data.errors[].message`.
---@param err plansight.ResponseError|table|string
---@return string
function M.error_text(err)
  if type(err) ~= "table" then
    return tostring(err)
  end
  local parts = { err.message or ("error " .. tostring(err.code)) }
  local data = M.value(err.data)
  if type(data) == "table" and type(data.errors) == "table" then
    for _, e in ipairs(data.errors) do
      if type(e) == "table" and e.message then
        local path = M.value(e.path)
        parts[#parts + 1] = (path and path ~= "" and (path .. ": ") or "") .. tostring(e.message)
      end
    end
  end
  return table.concat(parts, "\n")
end

return M
