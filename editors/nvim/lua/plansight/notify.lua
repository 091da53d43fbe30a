---The plugin's one way to tell the person something: `vim.notify` with a "plansight: "
---prefix and title, so every message says where it comes from.
---
---`notify.brief` says what a routine event did in one line of the message area: a message
---longer than the screen is wide makes Neovim stop at "Press ENTER" (after undoing a clear
---that brought back 30 tasks, after the server stopped), so the rest is counted, not shown;
---the sidebar, `:Plansight history` and `:checkhealth plansight` hold the whole of it.
local PREFIX = "plansight: "

local M = setmetatable({}, {
  ---@param msg string
  ---@param level integer? a `vim.log.levels` value (default INFO)
  __call = function(_, msg, level)
    vim.notify(PREFIX .. msg, level or vim.log.levels.INFO, { title = "plansight" })
  end,
})

---The cells a one-line message may take: the message area's width (`v:echospace`, which
---leaves room for the ruler and 'showcmd'), less the prefix.
---@return integer
function M.room()
  local space = tonumber(vim.v.echospace) or 0
  if space <= 0 then
    space = vim.o.columns - 12
  end
  return math.max(20, space - #PREFIX)
end

---`head` then as many of `parts` (joined by "; ") as fit in one line of `room` cells,
---then "; N more" for the rest; a part that does not fit alone is cut with "…".
---@param head string
---@param parts string[]
---@param room integer? default `M.room()`
---@return string
function M.fit(head, parts, room)
  room = room or M.room()
  local width = vim.fn.strdisplaywidth
  local text = head
  for i, part in ipairs(parts) do
    part = part:gsub("[\r\n]+", " ")
    local rest = #parts - i
    -- Room for this part and, when others follow, for the count of what is left.
    local more = rest > 0 and ("; " .. rest .. " more") or ""
    local sep = i > 1 and "; " or ""
    if width(text .. sep .. part .. more) <= room then
      text = text .. sep .. part
    elseif i == 1 then
      local cut = require("plansight.render").fit_name(part, room - width(text .. more))
      return text .. cut .. more
    else
      return text .. "; " .. (rest + 1) .. " more"
    end
  end
  return text
end

---Says `head` and `parts` in one line (`M.fit`).
---@param head string
---@param parts string[]
---@param level integer?
function M.brief(head, parts, level)
  M(M.fit(head, parts), level)
end

return M
