-- Loaded the way the lazy.nvim spec of the README does it: the folder is added to
-- 'runtimepath' after startup, so plugin/plansight.lua never runs; setup() is enough.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")

H.test("setup() alone defines :Plansight, the highlights and the health check", function()
  H.eq(vim.fn.exists(":Plansight"), 0, "not defined before setup")
  require("plansight").setup({ auto_open = false })
  H.eq(vim.fn.exists(":Plansight"), 2, ":Plansight after setup")
  H.ok(vim.api.nvim_get_hl(0, { name = "PlansightActive" }).link, "highlights linked")
  H.ok(#vim.api.nvim_get_runtime_file("lua/plansight/health.lua", false) == 1, "health module on the runtimepath")
  require("plansight").setup({ auto_open = false })
  H.eq(vim.fn.exists(":Plansight"), 2, "a second setup() is harmless")
end)

H.run()
