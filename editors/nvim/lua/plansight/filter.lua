---What the sidebar shows of a plan: every task, or those a filter keeps (by text, owner,
---priority or status) and, with "hide finished", none that ended. A view matter only:
---nothing is sent, the counts and bars stay the server's. Pure: no editor state.
---
---A task is shown when it matches, or when one of its subtasks (v4) is shown: a subtask is
---never drawn without the tasks it belongs to.
local protocol = require("plansight.protocol")

local M = {}

---@class plansight.Filter
---@field hide_finished boolean?
---@field text string? found (case-insensitively) in the content, activeForm, description or notes
---@field owner string? the task's owner, exactly ("none": tasks without one)
---@field priority string? "high", "medium", "low" or "none"
---@field status string? a TaskStatus

M.FIELDS = { "owner", "priority", "status" }

M.STATUSES = { pending = true, in_progress = true, completed = true, abandoned = true, blocked = true }
M.PRIORITIES = { high = true, medium = true, low = true, none = true }

---Reads what the person typed: words `owner:NAME`, `priority:P`, `status:S`, and the rest
---as text. Returns the filter's fields (hide_finished is not one), or nil and why.
---@param input string
---@return table? fields, string? err
function M.parse(input)
  local fields, words = {}, {}
  for word in vim.trim(input or ""):gmatch("%S+") do
    local key, value = word:match("^(%a+):(.+)$")
    if key and vim.tbl_contains(M.FIELDS, key:lower()) then
      key = key:lower()
      if key ~= "owner" then
        value = value:lower():gsub("-", "_")
      end
      if key == "status" and not M.STATUSES[value] then
        return nil, ("status:%s? one of pending, in_progress, completed, abandoned, blocked"):format(value)
      elseif key == "priority" and not M.PRIORITIES[value] then
        return nil, ("priority:%s? one of high, medium, low, none"):format(value)
      end
      fields[key] = value
    else
      words[#words + 1] = word
    end
  end
  if #words > 0 then
    fields.text = table.concat(words, " ")
  end
  return fields
end

---The filter as the person typed it (for `f`'s prompt), without "hide finished".
---@param filter plansight.Filter?
---@return string
function M.input_text(filter)
  local parts = {}
  if filter and filter.text then
    parts[#parts + 1] = filter.text
  end
  for _, key in ipairs(M.FIELDS) do
    if filter and filter[key] then
      parts[#parts + 1] = key .. ":" .. filter[key]
    end
  end
  return table.concat(parts, " ")
end

---Whether the filter hides anything at all.
---@param filter plansight.Filter?
---@return boolean
function M.active(filter)
  return filter ~= nil
    and (filter.hide_finished == true or filter.text ~= nil or filter.owner ~= nil or filter.priority ~= nil or filter.status ~= nil)
end

---What the filter does, in words: `text "auth" · owner lead · finished hidden`.
---@param filter plansight.Filter
---@return string
function M.describe(filter)
  local parts = {}
  if filter.text then
    parts[#parts + 1] = ("text %q"):format(filter.text)
  end
  for _, key in ipairs(M.FIELDS) do
    if filter[key] then
      parts[#parts + 1] = key .. " " .. filter[key]
    end
  end
  if filter.hide_finished then
    parts[#parts + 1] = "finished hidden"
  end
  return table.concat(parts, " · ")
end

---@param task plansight.Task
---@param text string lower case
---@return boolean
local function has_text(task, text)
  local fields = { task.content, protocol.value(task.activeForm), protocol.value(task.description) }
  vim.list_extend(fields, protocol.value(task.notes) or {})
  for _, s in ipairs(fields) do
    if type(s) == "string" and s:lower():find(text, 1, true) then
      return true
    end
  end
  return false
end

---Whether `task` itself passes the filter.
---@param task plansight.Task
---@param filter plansight.Filter
---@return boolean
function M.matches(task, filter)
  if filter.hide_finished and protocol.finished(task.status) then
    return false
  end
  if filter.status and task.status ~= filter.status then
    return false
  end
  if filter.owner then
    local owner = protocol.value(task.owner)
    if (owner or "none") ~= filter.owner then
      return false
    end
  end
  if filter.priority and (protocol.value(task.priority) or "none") ~= filter.priority then
    return false
  end
  return not filter.text or has_text(task, filter.text:lower())
end

---The ids of the tasks shown (those that match and their parents), and how many of the
---tasks match.
---@param tasks plansight.Task[] in document order (v4: each right before its subtasks)
---@param filter plansight.Filter
---@return table<string, boolean> shown, integer matching
function M.shown(tasks, filter)
  local shown, matching, by_id = {}, 0, {}
  for _, task in ipairs(tasks) do
    by_id[task.id] = task
  end
  for _, task in ipairs(tasks) do
    if M.matches(task, filter) then
      matching = matching + 1
      local t, guard = task, 0
      while t and not shown[t.id] and guard < 64 do
        shown[t.id] = true
        t = by_id[protocol.value(t.parent) or ""]
        guard = guard + 1
      end
    end
  end
  return shown, matching
end

return M
