---The sidebar's actions on tasks and phases: start, complete, drop, block, remove, edit,
---set the priority and the dependencies, add a task or a note. Each is sent as the person's
---edit of the session the item belongs to.
local ask = require("plansight.actions.ask")
local notify = require("plansight.notify")
local protocol = require("plansight.protocol")
local requests = require("plansight.actions.requests")
local target = require("plansight.actions.target")

local M = {}

---Sends one op as the person's edit of the item's session.
---@param item plansight.RenderItem
---@param root string
---@param op table
local function send(item, root, op)
  requests.apply_user(root, item.session --[[@as string]], { op })
end

---@param status_op "done"|"drop"
---@return fun()
local function finish(status_op)
  return target.on_item(target.TASK_OR_PHASE, "a task or a phase", function(item, root)
    if item.task then
      send(item, root, { op = status_op, id = item.task.id })
    else
      send(item, root, { op = status_op, phase = item.phase })
    end
  end)
end

---Why removing `task` asks first (in progress, notes), or nil when it need not ask.
---@param task plansight.Task
---@return string?
local function removal_risk(task)
  local why = {}
  if task.status == "in_progress" then
    why[#why + 1] = "in progress"
  end
  local notes = #(protocol.value(task.notes) or {})
  if notes > 0 then
    why[#why + 1] = notes == 1 and "1 note" or (notes .. " notes")
  end
  return #why > 0 and table.concat(why, ", ") or nil
end

---The `blockedBy` of `task` after picking `choice`: an id it waits for is dropped, another
---is added, `false` (wait for nothing) empties it.
---@param deps string[]
---@param has table<string, boolean>
---@param choice string|false
---@return string[]
local function toggled_deps(deps, has, choice)
  local new = {}
  if choice then
    for _, id in ipairs(deps) do
      if id ~= choice then
        new[#new + 1] = id
      end
    end
    if not has[choice] then
      new[#new + 1] = choice
    end
  end
  return new
end

M.start = target.on_task(function(item, root, task)
  send(item, root, { op = "start", id = task.id })
end)

M.done = finish("done")

---A checkbox: completes the task, or reopens a completed one (as pending; the server
---refuses a parent's, whose status is its subtasks').
M.toggle_done = target.on_task(function(item, root, task)
  if task.status == "completed" then
    send(item, root, { op = "update", id = task.id, status = "pending" })
  else
    send(item, root, { op = "done", id = task.id })
  end
end)

M.drop = finish("drop")

M.remove = target.on_task(function(item, root, task)
  local function rm()
    send(item, root, { op = "rm", id = task.id })
  end
  local why = removal_risk(task)
  if not why then
    rm()
    return
  end
  ask.confirm(("Remove %q (%s)? u undoes it"):format(task.content, why), "Remove", rm)
end)

M.block = target.on_task(function(item, root, task)
  vim.ui.input({ prompt = "Blocked because (optional): " }, function(text)
    if text == nil then
      return
    end
    local op = { op = "block", id = task.id }
    if vim.trim(text) ~= "" then
      op.reason = text
    end
    send(item, root, op)
  end)
end)

M.priority = target.on_task(function(item, root, task)
  local choices = vim.list_extend(vim.deepcopy(protocol.PRIORITIES), { "none" })
  local prompt = ("Priority of %q"):format(task.content)
  vim.ui.select(choices, { prompt = prompt }, function(choice)
    if choice then
      local value = choice == "none" and vim.NIL or choice
      send(item, root, { op = "update", id = task.id, priority = value })
    end
  end)
end)

M.edit = target.on_task(function(item, root, task)
  vim.ui.input({ prompt = "Task: ", default = task.content }, function(content)
    if content == nil then
      return
    end
    local old_description = protocol.value(task.description) or ""
    vim.ui.input({ prompt = "Description: ", default = old_description }, function(description)
      if description == nil then
        return
      end
      local op = { op = "update", id = task.id }
      if vim.trim(content) ~= task.content then
        op.content = content
      end
      if description ~= old_description then
        op.description = description
      end
      if op.content or op.description then
        send(item, root, op)
      end
    end)
  end)
end)

M.depends_on = target.on_task(function(item, root, task)
  local deps = protocol.value(task.blockedBy) or {}
  local has = {}
  for _, id in ipairs(deps) do
    has[id] = true
  end
  local choices = {}
  for _, other in ipairs(requests.session_tasks(root, item.session --[[@as string]])) do
    if other.id ~= task.id then
      choices[#choices + 1] = other
    end
  end
  if #deps > 0 then
    choices[#choices + 1] = { id = false, content = "Wait for nothing" }
  end
  if #choices == 0 then
    notify("no other task in this session", vim.log.levels.WARN)
    return
  end
  vim.ui.select(choices, {
    prompt = ("%q waits for"):format(task.content),
    format_item = function(other)
      if not other.id then
        return other.content
      end
      return (has[other.id] and "✓ " or "  ") .. other.content
    end,
  }, function(choice)
    if choice then
      -- An empty Lua table goes out as an empty JSON array: no dependencies.
      send(item, root, { op = "update", id = task.id, blockedBy = toggled_deps(deps, has, choice.id) })
    end
  end)
end)

---Asks for a task and adds it to the phase under the cursor; without one the server
---decides where it goes.
function M.add()
  local item = require("plansight.sidebar").item_at_cursor()
  local session, root = target.session()
  local phase = item and item.phase
  local prompt = phase and ("New task in %s: "):format(phase) or "New task: "
  vim.ui.input({ prompt = prompt }, function(text)
    requests.append_user(root, session, phase, text)
  end)
end

M.note = target.on_task(function(item, root, task)
  vim.ui.input({ prompt = "Note: " }, function(text)
    requests.note_user(root, item.session --[[@as string]], task.id, text)
  end)
end)

return M
