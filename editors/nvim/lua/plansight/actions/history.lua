---A session's history in a person's words, and restoring an earlier version from it.
local ask = require("plansight.actions.ask")
local notify = require("plansight.notify")
local protocol = require("plansight.protocol")
local requests = require("plansight.actions.requests")

local M = {}

---A change's kind in a person's words (history lists these, never a method name).
local CHANGE_WORDS = {
  [protocol.methods.apply] = "edit",
  [protocol.methods.write] = "whole list written",
  ["plansight/ingest"] = "plan sent by the agent",
  [protocol.methods.clear] = "list cleared",
  [protocol.methods.import] = "edited as markdown",
  [protocol.methods.restore] = "earlier version restored",
  [protocol.methods.undo] = "undo",
}

---One line of the history list: version, time, who, what kind, what changed.
---@param e plansight.HistoryEvent
---@return string
function M.line(e)
  local changes = table.concat(protocol.value(e.changes) or {}, "; ")
  local kind = CHANGE_WORDS[e.method] or tostring(e.method or ""):gsub("^plansight/", "")
  local who = e.origin == "user" and "you" or "agent"
  local at = tostring(e.at or ""):gsub("^%d+%-%d+%-%d+T", ""):gsub("%.%d+Z$", "")
  return ("v%d  %s  %s  %s%s"):format(e.version, at, who, kind, changes ~= "" and (": " .. changes) or "")
end

---Lists the history of `session` with `vim.ui.select`, newest first; the entry picked is
---restored after a confirmation, as the person.
---@param root string
---@param session string
function M.pick(root, session)
  requests.read_history(root, session, nil, function(events)
    if #events == 0 then
      notify(("no history for %q yet"):format(session), vim.log.levels.WARN)
      return
    end
    vim.ui.select(events, {
      prompt = ("History of %s (pick a version to restore)"):format(session),
      format_item = M.line,
    }, function(event)
      if not event then
        return
      end
      ask.confirm(("Restore %q to version %d? (u undoes it)"):format(session, event.version), "Restore", function()
        requests.restore_user(root, session, event.version)
      end)
    end)
  end)
end

return M
