---Editing and deleting a task's notes (`update` with the task's whole `notes`).
local client = require("plansight.client")
local notify = require("plansight.notify")
local protocol = require("plansight.protocol")
local requests = require("plansight.actions.requests")
local target = require("plansight.actions.target")

local M = {}

---The task's notes as the plan holds them now, the index of the note `text` (at `index`
---if it is still there, else wherever it is now) and the plan's version; nil when the task
---or the note is gone.
---@param root string
---@param item plansight.RenderItem
---@param index integer
---@param text string
---@return string[]?, integer?, integer?
local function notes_now(root, item, index, text)
  local conn = client.get(root)
  local state = conn and conn.states[item.session]
  for _, t in ipairs(protocol.tasks(state)) do
    if t.id == item.task.id then
      local notes = vim.deepcopy(protocol.value(t.notes) or {})
      if notes[index] ~= text then
        index = nil
        for i, note in ipairs(notes) do
          if note == text and not index then
            index = i
          end
        end
      end
      if index then
        return notes, index, state.version
      end
    end
  end
  return nil
end

---The note line under the cursor: its item, root, index and text, or nil with a message.
---@return plansight.RenderItem?, string?, integer?, string?
local function note_target()
  local item, root = target.item({ note = true }, "a note")
  if not item or not root or not item.note then
    return nil
  end
  local notes = protocol.value(item.task.notes) or {}
  local text = notes[item.note]
  if text == nil or not notes_now(root, item, item.note, text) then
    notify("that note changed meanwhile; nothing was done", vim.log.levels.WARN)
    return nil
  end
  return item, root, item.note, text
end

---Sends the task's notes with the note `text` replaced by `new` (nil: deleted), read from
---the plan as it is when sent and with its version as `baseVersion`: a note the agent added
---meanwhile is never lost (a plan that changed under it is refused, and said).
---@param item plansight.RenderItem
---@param root string
---@param index integer
---@param text string
---@param new string?
---@param on_done fun()?
local function send_notes(item, root, index, text, new, on_done)
  local notes, at, version = notes_now(root, item, index, text)
  if not notes or not at then
    notify("that note changed meanwhile; nothing was done", vim.log.levels.WARN)
    return
  end
  if new == nil then
    table.remove(notes, at)
  else
    notes[at] = new
  end
  -- An empty Lua table goes out as an empty JSON array: no notes.
  local op = { op = "update", id = item.task.id, notes = notes }
  local params = { session = item.session, ops = { op }, baseVersion = version }
  requests.request_user(root, protocol.methods.apply, params, function(err, result)
    if not err and type(result) == "table" and result.changed and on_done then
      on_done()
    end
  end)
end

---Edits the note under the cursor (`update` with the task's `notes`, that one replaced). A
---line break is typed as `\n`.
function M.edit()
  local item, root, index, old = note_target()
  if not item or not root or not index or not old then
    return
  end
  vim.ui.input({ prompt = "Note: ", default = (old:gsub("\n", "\\n")) }, function(text)
    if text == nil then
      return
    end
    text = text:gsub("\\n", "\n")
    if vim.trim(text) == "" then
      notify("an empty note is not kept: delete it instead (D)", vim.log.levels.WARN)
      return
    end
    if text ~= old then
      send_notes(item, root, index, old, text)
    end
  end)
end

---Deletes the note under the cursor (`u` brings it back).
function M.delete()
  local item, root, index, old = note_target()
  if item and root and index and old then
    send_notes(item, root, index, old, nil, function()
      notify("deleted the note (u undoes it)")
    end)
  end
end

return M
