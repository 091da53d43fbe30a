---Change deltas (docs/protocol.md, "Change deltas"): a `plansight/didChange` that carries
---what changed since `baseVersion` instead of the whole state, sent only to a client that
---asked for it at `initialize`.
---
---Applying one is mechanical: the tasks listed replace those of their id, `removedIds`
---go, each phase takes its `taskIds` when given (else keeps the ids held), the phases not
---listed go, and the scalar fields are taken as they come. No rule of the plan lives here:
---a delta that does not fit the state held (another version, an id it does not know) is
---not applied, and the caller asks the server for the whole state instead.
---
---Pure: no editor state. Tasks that did not change are the very tables of the state held,
---so the sidebar tells a changed task from an unchanged one by identity.
local protocol = require("plansight.protocol")

local M = {}

---The opt-in a client sends at `initialize`, under `capabilities.experimental`: pushes
---that carry the change, and answers of changing requests that carry it too.
M.CAPABILITY = { plansight = { changeDeltas = true, changeDeltaAnswers = true } }

---The members an ApplyResult adds to its state (a delta answer carries them as they are).
M.RESULT_MEMBERS = { "summary", "errors", "isError", "completedTasks", "removedTasks", "changed" }

---@class plansight.DeltaPhase
---@field name string
---@field progress plansight.Progress
---@field taskIds string[]? the phase's task ids in order; absent: the ids held are kept

---@class plansight.Delta
---@field session string
---@field baseVersion integer the version the delta applies to
---@field version integer
---@field title string|vim.NIL|nil
---@field updatedAt string|vim.NIL|nil
---@field progress plansight.Progress
---@field current plansight.Task|vim.NIL|nil
---@field origin string?
---@field completedTasks table[]?
---@field removedTasks table[]?
---@field phases plansight.DeltaPhase[] every phase, in order
---@field tasks plansight.Task[] every task added or changed, whole
---@field removedIds string[] the tasks gone

---@class plansight.DeltaAnswer: plansight.Delta
---The answer of a changing request to a client that asked for `changeDeltaAnswers`: the
---delta's fields (no `origin`) and the ApplyResult's members (`ApplyResultDelta` of
---`plansight schema`).
---@field summary string
---@field errors string[]
---@field isError boolean
---@field changed boolean

---The fields of a delta that are not the state's own.
local DELTA_ONLY = { baseVersion = true, phases = true, tasks = true, removedIds = true }

---Whether `params` of a `didChange` is a delta (else a whole state).
---@param params table
---@return boolean
function M.is_delta(params)
  return type(params) == "table" and type(protocol.value(params.baseVersion)) == "number"
end

---What to do with a delta given the version held: "apply" it, drop it as "stale" (the
---state held is already at or past it: a push that crossed an answer), or treat it as a
---"gap" (none held, or another version) and ask for the whole state.
---@param held plansight.TodoState?
---@param delta plansight.Delta
---@return "apply"|"stale"|"gap"
function M.verdict(held, delta)
  if held and type(delta.version) == "number" and held.version >= delta.version then
    return "stale"
  end
  if held and held.version == delta.baseVersion then
    return "apply"
  end
  return "gap"
end

---`held` with `delta` applied: the whole state at `delta.version`; nil and why when the
---delta does not fit what is held (the caller then asks `plansight/get`).
---@param held plansight.TodoState?
---@param delta plansight.Delta
---@return plansight.TodoState? state, string? why
function M.apply(held, delta)
  if not held or held.version ~= delta.baseVersion then
    return nil, "gap"
  end
  if type(delta.phases) ~= "table" or type(delta.tasks) ~= "table" or type(delta.removedIds) ~= "table" then
    return nil, "malformed"
  end
  ---@type table<string, plansight.Task>
  local by_id = {}
  for _, phase in ipairs(held.phases or {}) do
    for _, task in ipairs(phase.tasks or {}) do
      by_id[task.id] = task
    end
  end
  for _, id in ipairs(delta.removedIds) do
    by_id[id] = nil
  end
  for _, task in ipairs(delta.tasks) do
    if type(task) ~= "table" or type(task.id) ~= "string" then
      return nil, "malformed"
    end
    by_id[task.id] = task
  end
  -- The phases held by name (a name twice is told apart by its occurrence).
  local held_phases, seen = {}, {}
  for _, phase in ipairs(held.phases or {}) do
    seen[phase.name] = (seen[phase.name] or 0) + 1
    held_phases[phase.name .. "\0" .. seen[phase.name]] = phase
  end
  seen = {}
  local phases = {}
  for i, dphase in ipairs(delta.phases) do
    if type(dphase) ~= "table" or type(dphase.name) ~= "string" then
      return nil, "malformed"
    end
    seen[dphase.name] = (seen[dphase.name] or 0) + 1
    local ids = protocol.value(dphase.taskIds)
    if ids == nil then
      local old = held_phases[dphase.name .. "\0" .. seen[dphase.name]]
      if not old then
        return nil, "unknown phase"
      end
      ids = {}
      for k, task in ipairs(old.tasks or {}) do
        ids[k] = task.id
      end
    end
    local tasks = {}
    for k, id in ipairs(ids) do
      local task = by_id[id]
      if not task then
        return nil, "unknown task"
      end
      tasks[k] = task
    end
    phases[i] = { name = dphase.name, progress = dphase.progress, tasks = tasks }
  end
  local state = {}
  for key, value in pairs(delta) do
    if not DELTA_ONLY[key] then
      state[key] = value
    end
  end
  state.phases = phases
  return state, nil
end

---The whole ApplyResult of `state` (the answer's version, or newer when that was held
---already) with the members of the delta `answer`: what every caller of a changing
---request gets, whichever way the answer came. A new table: `state` is left as it is.
---@param state plansight.TodoState
---@param answer plansight.DeltaAnswer
---@return table
function M.result_of(state, answer)
  local result = {}
  for key, value in pairs(state) do
    result[key] = value
  end
  for _, key in ipairs(M.RESULT_MEMBERS) do
    result[key] = answer[key]
  end
  return result
end

return M
