---Yes/no questions an action asks before it does something hard to see undone.
local M = {}

---A yes/no question through `vim.ui.select`; `on_yes` runs only on the first choice.
---@param prompt string
---@param yes string
---@param on_yes fun()
function M.confirm(prompt, yes, on_yes)
  vim.ui.select({ yes, "Cancel" }, { prompt = prompt }, function(choice)
    if choice == yes then
      on_yes()
    end
  end)
end

return M
