---What the sidebar shows: `H` hides finished tasks (or shows them again), `f` filters by
---text, owner, priority or status. A view matter only (`plansight.filter`): nothing is
---sent; the sidebar's first line says what is hidden while anything is.
local filter = require("plansight.filter")
local notify = require("plansight.notify")

local M = {}

local function redraw()
  require("plansight.sidebar").render()
end

function M.toggle_finished()
  local st = require("plansight.sidebar").state
  st.filter.hide_finished = not st.filter.hide_finished or nil
  redraw()
end

---Asks for the filter, prefilled with the one in use; an empty answer shows every task
---(hiding finished tasks stays as `H` set it); <Esc> changes nothing.
function M.filter()
  local st = require("plansight.sidebar").state
  vim.ui.input({
    prompt = "Filter (text, owner:NAME, priority:high|medium|low|none, status:STATUS): ",
    default = filter.input_text(st.filter),
  }, function(input)
    if input == nil then
      return
    end
    local fields, err = filter.parse(input)
    if not fields then
      notify("filter: " .. err, vim.log.levels.WARN)
      return
    end
    st.filter = { hide_finished = st.filter.hide_finished }
    for key, value in pairs(fields) do
      st.filter[key] = value
    end
    redraw()
  end)
end

return M
