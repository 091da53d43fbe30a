-- Plansight: defines :Plansight. Everything else loads on first use.
if vim.g.loaded_plansight then
  return
end
vim.g.loaded_plansight = true

if vim.fn.has("nvim-0.10") ~= 1 then
  vim.api.nvim_echo({ { "plansight: needs Neovim 0.10 or newer", "ErrorMsg" } }, true, {})
  return
end

require("plansight")._load()
