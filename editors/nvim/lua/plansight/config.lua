---Defaults, validation and the merged configuration.
---
---`setup(opts)` merges the user's options over these defaults with
---`vim.tbl_deep_extend("force", ...)`. A bad value is reported once and replaced by its
---default, so one typo never leaves the plugin half configured.
local actions = require("plansight.actions")

local M = {}

---@class plansight.Keymap
---@field [1] fun()|plansight.ActionName the action or a function
---@field desc? string shown by `g?`

---@class plansight.Icons
---@field pending string task not started
---@field in_progress string the current task
---@field completed string
---@field abandoned string
---@field blocked string a task that cannot go on for now
---@field priority_high string before the text of a high-priority task ("" for none)
---@field priority_medium string
---@field priority_low string
---@field file string before each file a task touched
---@field fold_open string before an open session or phase
---@field fold_closed string before a closed one (drawn by 'foldtext')
---@field note string before each note line
---@field description string before each line of a task's description
---@field bar_filled string progress bar, done part
---@field bar_empty string progress bar, rest
---@field spinner string[]|false frames drawn over the in_progress icon, or false

---@class plansight.SidebarConfig
---@field side "left"|"right" where the vertical split opens
---@field width integer columns
---@field focus boolean whether `:Plansight open`/`toggle` moves the cursor into the sidebar
---@field bar_width integer cells of the progress bar in each header

---@class plansight.Config
---@field cmd string[] the server command (`plansight serve` speaks the protocol on stdio)
---@field cmd_env table<string,string>? extra environment for the server
---@field settings table<string,any> sent as `initializationOptions.plansight`
---@field root_markers string[] a folder holding one of these is the workspace root
---@field session string? the session commands and the statusline target; nil follows the newest
---@field auto_open boolean open the sidebar (without focus) the first time a plan appears
---@field sidebar plansight.SidebarConfig
---@field icons plansight.Icons
---@field keymaps table<string, plansight.ActionName|fun()|plansight.Keymap|false> sidebar keys

---@type plansight.Config
M.defaults = {
  -- The language server. Tests and per-project setups add `--db PATH` here.
  cmd = { "plansight", "serve" },
  cmd_env = nil,
  -- Server settings, e.g. { autoStart = false, maxTasks = 500 }; the server validates them.
  settings = {},
  -- The workspace root is the nearest ancestor holding one of these, else the cwd.
  root_markers = { ".git" },
  -- nil: commands and the statusline follow the session in use (`plansight.follow`).
  session = nil,
  -- Open the sidebar (never focused) the first time a plan with tasks shows up. The server
  -- is started at startup only when the workspace already has a store.
  auto_open = true,
  sidebar = {
    side = "right",
    width = 42,
    focus = false,
    bar_width = 10,
  },
  icons = {
    pending = "○",
    in_progress = "●",
    completed = "✓",
    abandoned = "✗",
    blocked = "⊘",
    priority_high = "!!",
    priority_medium = "!",
    priority_low = "↓",
    file = "◦",
    fold_open = "▾",
    fold_closed = "▸",
    note = "│",
    description = "≡",
    bar_filled = "█",
    bar_empty = "░",
    -- e.g. { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }
    spinner = false,
  },
  -- Buffer-local keys of the sidebar. A value is an action name, a function, a table
  -- `{ action_or_function, desc = "..." }`, or false to remove a default key.
  -- (the keys and their actions are listed once, in plansight/actions/init.lua).
  keymaps = actions.default_keys(),
}

---The action names a sidebar key can take.
M.ACTIONS = actions.names()

---@type plansight.Config
M.options = vim.deepcopy(M.defaults)

local function is_action(name)
  return vim.tbl_contains(M.ACTIONS, name)
end

local function is_string_list(v, allow_empty)
  if type(v) ~= "table" or (not allow_empty and #v == 0) then
    return false
  end
  for k, s in pairs(v) do
    if type(k) ~= "number" or type(s) ~= "string" or s == "" then
      return false
    end
  end
  return true
end

local function is_icon(v)
  -- One line of text; an icon with a line break could not be drawn in a buffer line.
  return type(v) == "string" and not v:find("[\r\n]")
end

---@type table<string, {check: fun(v:any):boolean, expect: string}>
local checks = {
  ["cmd"] = { check = function(v) return is_string_list(v, false) end, expect = "a non-empty list of strings" },
  ["cmd_env"] = { check = function(v) return v == nil or type(v) == "table" end, expect = "a table or nil" },
  ["settings"] = { check = function(v) return type(v) == "table" end, expect = "a table" },
  ["root_markers"] = { check = function(v) return is_string_list(v, true) end, expect = "a list of strings" },
  ["session"] = {
    check = function(v) return v == nil or (type(v) == "string" and v ~= "") end,
    expect = "a non-empty string or nil",
  },
  ["auto_open"] = { check = function(v) return type(v) == "boolean" end, expect = "a boolean" },
  ["sidebar.side"] = { check = function(v) return v == "left" or v == "right" end, expect = '"left" or "right"' },
  ["sidebar.width"] = {
    check = function(v) return type(v) == "number" and v >= 10 and v % 1 == 0 end,
    expect = "an integer >= 10",
  },
  ["sidebar.focus"] = { check = function(v) return type(v) == "boolean" end, expect = "a boolean" },
  ["sidebar.bar_width"] = {
    check = function(v) return type(v) == "number" and v >= 0 and v % 1 == 0 end,
    expect = "an integer >= 0",
  },
  ["icons.spinner"] = {
    check = function(v)
      if v == false then
        return true
      end
      if not is_string_list(v, false) then
        return false
      end
      for _, frame in ipairs(v) do
        if not is_icon(frame) then
          return false
        end
      end
      return true
    end,
    expect = "false or a non-empty list of strings",
  },
}
local ICON_NAMES = {
  "pending", "in_progress", "completed", "abandoned", "blocked", "priority_high", "priority_medium", "priority_low",
  "file", "description", "fold_open", "fold_closed", "note", "bar_filled", "bar_empty",
}
for _, name in ipairs(ICON_NAMES) do
  checks["icons." .. name] = { check = is_icon, expect = "a one-line string" }
end

local function get_path(tbl, path)
  local node = tbl
  for part in path:gmatch("[^.]+") do
    if type(node) ~= "table" then
      return nil
    end
    node = node[part]
  end
  return node
end

local function set_path(tbl, path, value)
  local parts = vim.split(path, ".", { plain = true })
  local node = tbl
  for i = 1, #parts - 1 do
    node = node[parts[i]]
  end
  node[parts[#parts]] = value
end

---@param value any
---@return string|nil error
local function check_keymap(value)
  if value == false or type(value) == "function" or (type(value) == "string" and is_action(value)) then
    return nil
  end
  if type(value) == "table" then
    local target = value[1] or value.callback or value.action
    if type(target) == "function" or (type(target) == "string" and is_action(target)) then
      if value.desc == nil or type(value.desc) == "string" then
        return nil
      end
    end
  end
  return "an action name (" .. table.concat(M.ACTIONS, ", ") .. "), a function, { action, desc = ... } or false"
end

---Checks a merged configuration; bad values are replaced by their default.
---@param opts plansight.Config
---@return plansight.Config opts the repaired options
---@return string[] errors one readable line per bad value
function M.validate(opts)
  local errors = {}
  for path, rule in pairs(checks) do
    local value = get_path(opts, path)
    if not rule.check(value) then
      errors[#errors + 1] = ("%s: expected %s, got %s"):format(path, rule.expect, vim.inspect(value))
      set_path(opts, path, vim.deepcopy(get_path(M.defaults, path)))
    end
  end
  if type(opts.keymaps) ~= "table" then
    errors[#errors + 1] = "keymaps: expected a table, got " .. vim.inspect(opts.keymaps)
    opts.keymaps = vim.deepcopy(M.defaults.keymaps)
  else
    for lhs, value in pairs(opts.keymaps) do
      local err
      if type(lhs) ~= "string" then
        err = "a string key"
      else
        err = check_keymap(value)
      end
      if err then
        errors[#errors + 1] = ("keymaps[%q]: expected %s"):format(tostring(lhs), err)
        opts.keymaps[lhs] = M.defaults.keymaps[lhs] or false
      end
    end
  end
  table.sort(errors)
  return opts, errors
end

---Merges `opts` over the defaults, validates, and makes the result current.
---@param opts plansight.Config|table|nil
---@return plansight.Config
---@return string[] errors
function M.setup(opts)
  if opts ~= nil and type(opts) ~= "table" then
    return M.options, { "setup(opts): expected a table, got " .. type(opts) }
  end
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- Lists are replaced, not merged index by index: `cmd = { "x" }` must not keep "serve".
  for _, key in ipairs({ "cmd", "root_markers" }) do
    if opts and opts[key] ~= nil then
      merged[key] = vim.deepcopy(opts[key])
    end
  end
  if opts and opts.icons and opts.icons.spinner ~= nil then
    merged.icons.spinner = vim.deepcopy(opts.icons.spinner)
  end
  local errors
  merged, errors = M.validate(merged)
  M.options = merged
  return merged, errors
end

return M
