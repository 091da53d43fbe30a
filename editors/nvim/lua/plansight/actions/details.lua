---`K`: the task under the cursor in a float, as VS Code's tooltip shows it: its content and
---activeForm, description, what it waits for, status, priority, owner, phase and id, who
---added it and when it started and ended, its notes and files, then who did what to it
---(the session's history, in the server's words). A float of Neovim's own hover, so `K`
---again enters it and moving the cursor closes it.
local follow = require("plansight.follow")
local protocol = require("plansight.protocol")
local render = require("plansight.render")
local requests = require("plansight.actions.requests")
local target = require("plansight.actions.target")

local M = {}

M.FOCUS_ID = "plansight_details"

local STATUS_WORDS = {
  pending = "pending",
  in_progress = "in progress",
  completed = "completed",
  abandoned = "abandoned",
  blocked = "blocked",
}

---A wire time as a person reads it, in this machine's time zone.
---@param iso any
---@return string?
function M.time(iso)
  local ms = follow.time_ms(iso)
  return ms and os.date("%Y-%m-%d %H:%M", math.floor(ms / 1000)) --[[@as string]] or nil
end

---@param s string
---@return string
local function one_line(s)
  return (tostring(s):gsub("[\r\n]+", " "))
end

---The float's lines (markdown) for `task` of `state`, without its history.
---@param task plansight.Task
---@param phase string
---@param state plansight.TodoState?
---@return string[]
function M.lines(task, phase, state)
  local lines = { "**" .. one_line(task.content) .. "**" }
  local active = protocol.value(task.activeForm)
  if type(active) == "string" and active ~= "" and active ~= task.content then
    vim.list_extend(lines, { "", "*" .. one_line(active) .. "*" })
  end
  local description = protocol.value(task.description) or ""
  if description ~= "" then
    lines[#lines + 1] = ""
    vim.list_extend(lines, vim.split(description, "\r?\n"))
  end
  local by_id = {}
  for _, other in ipairs(protocol.tasks(state)) do
    by_id[other.id] = other
  end
  local waits = render.waits_for(task, by_id)
  if #waits > 0 then
    vim.list_extend(lines, { "", "Waits for " .. table.concat(waits, ", ") })
  end
  local facts = { "Status: " .. (STATUS_WORDS[task.status] or tostring(task.status)) }
  local priority = protocol.value(task.priority)
  if priority then
    facts[#facts + 1] = priority .. " priority"
  end
  local owner = protocol.value(task.owner)
  if type(owner) == "string" and owner ~= "" then
    facts[#facts + 1] = "owner " .. one_line(owner)
  end
  facts[#facts + 1] = "phase " .. one_line(phase)
  facts[#facts + 1] = "id " .. tostring(task.id)
  vim.list_extend(lines, { "", table.concat(facts, " · ") })
  local times = { (protocol.value(task.createdBy) == "user" and "Added by you " or "Added by the agent ") .. (M.time(task.createdAt) or "") }
  if M.time(task.startedAt) then
    times[#times + 1] = "started " .. M.time(task.startedAt)
  end
  if M.time(task.completedAt) then
    times[#times + 1] = (task.status == "abandoned" and "dropped " or "finished ") .. M.time(task.completedAt)
  end
  vim.list_extend(lines, { "", table.concat(times, " · ") })
  local notes = protocol.value(task.notes) or {}
  if #notes > 0 then
    vim.list_extend(lines, { "", "Notes:" })
    for _, note in ipairs(notes) do
      for i, part in ipairs(vim.split(note, "\r?\n")) do
        lines[#lines + 1] = (i == 1 and "- " or "  ") .. part
      end
    end
  end
  local files = protocol.value(task.files) or {}
  if #files > 0 then
    vim.list_extend(lines, { "", "Files:" })
    for _, path in ipairs(files) do
      lines[#lines + 1] = "- " .. one_line(path)
    end
  end
  return lines
end

---The history events that name `task` (by its content, quoted as the server words it),
---as "who: what" lines, newest first.
---@param events plansight.HistoryEvent[]
---@param task plansight.Task
---@return string[]
function M.history_lines(events, task)
  local quoted = '"' .. task.content .. '"'
  local out = {}
  for _, event in ipairs(events) do
    local who = event.origin == "user" and "you" or "agent"
    for _, change in ipairs(protocol.value(event.changes) or {}) do
      if type(change) == "string" and change:find(quoted, 1, true) then
        out[#out + 1] = ("- %s %s: %s"):format(M.time(event.at) or ("v" .. tostring(event.version)), who, one_line(change))
      end
    end
  end
  return out
end

---Shows the details of the task under the cursor; its history follows when the server
---answers (nothing is waited for: a disconnected server leaves the rest as it is).
M.show = target.on_task(function(item, root, task)
  local conn = require("plansight.client").get(root)
  local state = conn and conn.states[item.session]
  local lines = M.lines(task, item.phase or "", state)
  local buf = vim.lsp.util.open_floating_preview(lines, "markdown", {
    border = "rounded",
    focus_id = M.FOCUS_ID,
    max_width = math.max(40, math.floor(vim.o.columns * 0.6)),
    wrap = true,
    close_events = { "CursorMoved", "BufLeave", "WinLeave" },
  })
  if not conn or conn.status ~= "ready" then
    return
  end
  requests.read_history(root, item.session --[[@as string]], 200, function(events)
    local history = M.history_lines(events, task)
    if #history == 0 or not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    local more = vim.list_extend({ "", "Who did what:" }, history)
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, more)
    vim.bo[buf].modifiable = false
    -- The float grows to hold it, within the screen.
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      local height = math.min(vim.api.nvim_buf_line_count(buf), math.max(5, vim.o.lines - 6))
      pcall(vim.api.nvim_win_set_height, win, height)
    end
  end)
end)

return M
