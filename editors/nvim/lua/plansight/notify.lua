---The plugin's one way to tell the person something: `vim.notify` with a "plansight: "
---prefix and title, so every message says where it comes from.
---@param msg string
---@param level integer? a `vim.log.levels` value (default INFO)
return function(msg, level)
  vim.notify("plansight: " .. msg, level or vim.log.levels.INFO, { title = "plansight" })
end
