---(v4) The sidebar's keys on the plan's shape: move a task up or down among its siblings,
---indent it under the task above it, outdent it next to its parent (each one `move` op, a
---person's change like any other: `u` undoes it), and add a subtask (`append` with
---`parent`). The neighbour a key names is the one the sidebar shows; where the task goes,
---and what a parent's status becomes, is the server's.
local client = require("plansight.client")
local notify = require("plansight.notify")
local protocol = require("plansight.protocol")
local requests = require("plansight.actions.requests")
local target = require("plansight.actions.target")

local M = {}

---The tasks of `task`'s phase that share its parent, in order, and where `task` is.
---@param root string
---@param item plansight.RenderItem
---@param task plansight.Task
---@return plansight.Task[] siblings, integer? index
local function siblings(root, item, task)
  local conn = client.get(root)
  local state = conn and conn.states[item.session]
  local parent = protocol.value(task.parent)
  local list, index = {}, nil
  for _, phase in ipairs(state and state.phases or {}) do
    if phase.name == item.phase then
      for _, other in ipairs(phase.tasks or {}) do
        if protocol.value(other.parent) == parent then
          list[#list + 1] = other
          if other.id == task.id then
            index = #list
          end
        end
      end
      break
    end
  end
  return list, index
end

---@param item plansight.RenderItem
---@param root string
---@param op table
local function send(item, root, op)
  op.op = "move"
  requests.apply_user(root, item.session --[[@as string]], { op })
end

---A move one place among the task's siblings: up goes before the one above, down after
---the one below.
---@param step -1|1
---@return function
local function move_by(step)
  return target.on_task(function(item, root, task)
    local list, i = siblings(root, item, task)
    local other = i and list[i + step]
    if not other then
      local edge = step < 0 and "first" or "last"
      notify(("%q is already %s among its siblings"):format(task.content, edge), vim.log.levels.WARN)
      return
    end
    send(item, root, { id = task.id, [step < 0 and "before" or "after"] = other.id })
  end)
end

M.move_up = move_by(-1)
M.move_down = move_by(1)

M.indent = target.on_task(function(item, root, task)
  local list, i = siblings(root, item, task)
  if not i or i == 1 then
    notify(("no task above %q to go under"):format(task.content), vim.log.levels.WARN)
    return
  end
  send(item, root, { id = task.id, parent = list[i - 1].id })
end)

M.outdent = target.on_task(function(item, root, task)
  local parent = protocol.value(task.parent)
  if not parent then
    notify(("%q is already at the top level"):format(task.content), vim.log.levels.WARN)
    return
  end
  send(item, root, { id = task.id, after = parent })
end)

M.add_subtask = target.on_task(function(item, root, task)
  vim.ui.input({ prompt = ("New subtask of %q: "):format(task.content) }, function(text)
    text = text and vim.trim(text) or ""
    if text ~= "" then
      requests.apply_user(root, item.session --[[@as string]], { { op = "append", parent = task.id, items = { text } } })
    end
  end)
end)

return M
