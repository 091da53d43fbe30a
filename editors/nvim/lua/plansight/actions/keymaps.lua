---The sidebar's buffer-local keys, from the configured `keymaps`.
local actions = require("plansight.actions")
local config = require("plansight.config")

local M = {}

---Resolves a keymap value of the config to a callback and a description.
---@param value plansight.ActionName|fun()|plansight.Keymap
---@return fun()?, string?
function M.resolve(value)
  if type(value) == "string" then
    local action = actions.by_name[value]
    return action and action.callback, action and action.callback and action.desc
  elseif type(value) == "function" then
    return value, "Plansight: custom action"
  elseif type(value) == "table" then
    local inner = value[1] or value.callback or value.action
    local cb, desc = M.resolve(inner)
    return cb, value.desc or desc
  end
  return nil, nil
end

---Sets the configured buffer-local keys on the sidebar buffer.
---@param buf integer
function M.attach(buf)
  for lhs, value in pairs(config.options.keymaps) do
    if value then
      local cb, desc = M.resolve(value)
      if cb then
        local desc_text = "Plansight: " .. (desc or lhs)
        vim.keymap.set("n", lhs, cb, { buffer = buf, nowait = true, silent = true, desc = desc_text })
      end
    end
  end
end

---The configured keys and what they do, sorted by description.
---@return {lhs: string, desc: string}[]
function M.key_list()
  local list = {}
  for lhs, value in pairs(config.options.keymaps) do
    if value then
      local _, desc = M.resolve(value)
      list[#list + 1] = { lhs = lhs, desc = desc or "" }
    end
  end
  table.sort(list, function(a, b)
    if a.desc ~= b.desc then
      return a.desc < b.desc
    end
    return a.lhs < b.lhs
  end)
  return list
end

return M
