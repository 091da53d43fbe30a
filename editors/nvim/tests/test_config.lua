-- setup(opts): defaults, merging, validation, keymaps. No server.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
H.load_plugin()
local config = require("plansight.config")
local plansight = require("plansight")

H.test(":Plansight exists once the plugin is loaded, with no setup() call", function()
  H.eq(vim.fn.exists(":Plansight"), 2, ":Plansight defined")
  H.eq(config.options.cmd, { "plansight", "serve" }, "default server command")
end)

H.test("setup merges over the defaults", function()
  local opts, errors = config.setup({ sidebar = { width = 60 }, icons = { completed = "x" }, cmd = { "/opt/plansight" } })
  H.eq(errors, {}, "no error")
  H.eq(opts.sidebar.width, 60, "width set")
  H.eq(opts.sidebar.side, "right", "side kept")
  H.eq(opts.icons.completed, "x", "icon set")
  H.eq(opts.icons.pending, "○", "other icons kept")
  H.eq(opts.cmd, { "/opt/plansight" }, "a list is replaced, not merged by index")
  H.eq(opts.keymaps.x, "done", "default keys kept")
  H.eq(config.options, opts, "current options")
end)

H.test("bad values are reported and replaced by their default", function()
  local opts, errors = config.setup({
    sidebar = { side = "top", width = -3 },
    icons = { pending = 5, spinner = "yes" },
    cmd = {},
    keymaps = { x = "explode" },
    auto_open = "sure",
  })
  H.eq(opts.sidebar.side, "right", "side reset")
  H.eq(opts.sidebar.width, 42, "width reset")
  H.eq(opts.icons.pending, "○", "icon reset")
  H.eq(opts.icons.spinner, false, "spinner reset")
  H.eq(opts.cmd, { "plansight", "serve" }, "cmd reset")
  H.eq(opts.keymaps.x, "done", "bad keymap reset")
  H.eq(opts.auto_open, true, "auto_open reset")
  H.eq(#errors, 7, "one line per bad value: " .. vim.inspect(errors))
  H.ok(table.concat(errors, "\n"):find('sidebar.side: expected "left" or "right", got "top"', 1, true), "readable")
  H.messages = {}
  plansight.setup({ sidebar = { width = "wide" } })
  H.eq(#H.messages, 1, "setup() reports once")
  H.ok(H.messages[1].msg:find("sidebar.width", 1, true), "names the option")
end)

H.test("keymaps can be overridden, added with a description, or disabled with false", function()
  plansight.setup({
    cmd = { "plansight-not-installed-here" },
    auto_open = false,
    keymaps = {
      x = false,
      ["<C-d>"] = "done",
      ["gx"] = { function() end, desc = "My thing" },
    },
  })
  local sidebar = require("plansight.sidebar")
  sidebar.open()
  local buf = sidebar.state.buf
  local maps = {}
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, "n")) do
    maps[m.lhs] = m
  end
  H.eq(maps["x"], nil, "x disabled")
  H.ok(maps["<C-D>"] and maps["<C-D>"].desc:find("Complete", 1, true), "<C-d> runs done: " .. vim.inspect(maps["<C-D>"]))
  H.eq(maps["gx"] and maps["gx"].desc, "Plansight: My thing", "custom with desc")
  for _, lhs in ipairs({ "<CR>", "za", "s", "d", "D", "a", "n", "e", "r", "q", "g?" }) do
    H.ok(maps[lhs], "default key " .. lhs)
    H.ok(maps[lhs].desc and maps[lhs].desc ~= "", "description for " .. lhs)
    H.eq(maps[lhs].nowait, 1, "nowait " .. lhs)
  end
  -- g? lists the keys in a float.
  vim.api.nvim_set_current_win(sidebar.state.win)
  H.feed("g?")
  local float = vim.api.nvim_get_current_win()
  H.ok(vim.api.nvim_win_get_config(float).relative ~= "", "help float")
  local help = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.ok(help:find("<C-d>", 1, true) and help:find("Complete the task", 1, true), "help lists keys:\n" .. help)
  H.ok(help:find(":Plansight restart", 1, true) and help:find("Stop the server and start it again", 1, true), "then the subcommands, from the same list:\n" .. help)
  H.feed("q")
  H.eq(vim.api.nvim_get_current_win(), sidebar.state.win, "help closed")
  sidebar.close()
end)

H.test("highlight groups are linked with default = true", function()
  for _, group in ipairs({
    "PlansightPending",
    "PlansightActive",
    "PlansightDone",
    "PlansightDropped",
    "PlansightNote",
    "PlansightPhase",
    "PlansightHeader",
  }) do
    local hl = vim.api.nvim_get_hl(0, { name = group })
    H.ok(hl.link, group .. " linked")
    H.eq(hl.default, true, group .. " default")
  end
  -- A colour scheme's own choice wins over the default link.
  vim.api.nvim_set_hl(0, "PlansightDone", { fg = "#00ff00" })
  require("plansight.sidebar").define_highlights()
  H.eq(vim.api.nvim_get_hl(0, { name = "PlansightDone" }).fg, 0x00ff00, "user colour kept")
end)

H.test("the help file has its tags and no duplicates", function()
  local dir = H.tmpdir()
  vim.fn.writefile(vim.fn.readfile(H.plugin_root .. "/doc/plansight.txt"), dir .. "/plansight.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(dir)) -- raises E154 on a duplicate tag
  local tags = {}
  for _, line in ipairs(vim.fn.readfile(dir .. "/tags")) do
    tags[line:match("^(%S+)")] = true
  end
  for _, tag in ipairs({
    "plansight.txt",
    ":Plansight",
    "plansight-config",
    "plansight-keys",
    "plansight-api",
    "plansight.apply()",
    "plansight.write()",
    "plansight.get()",
    "plansight.on_change()",
    "plansight.statusline()",
    "plansight-highlights",
    "plansight-health",
    "plansight-edit",
  }) do
    H.ok(tags[tag], "help tag " .. tag)
  end
  for _, name in ipairs(require("plansight.commands").names()) do
    H.ok(tags[":Plansight-" .. name], "help tag :Plansight-" .. name)
  end
end)

H.test("the help names every default key, action and highlight group", function()
  local text = table.concat(vim.fn.readfile(H.plugin_root .. "/doc/plansight.txt"), "\n")
  local keys = text:match("5%. KEYS(.-)\n=====")
  for lhs, action in pairs(config.defaults.keymaps) do
    H.ok(keys:find("\n  " .. vim.pesc(lhs) .. "%s") or keys:find("%s" .. vim.pesc(lhs) .. "%s+toggle_fold"), "key " .. lhs)
    H.ok(keys:find("%s" .. action .. "%s"), "action " .. action)
  end
  for group in pairs(require("plansight.render").links) do
    H.ok(text:find("\n  " .. group .. "%s"), "highlight " .. group)
  end
end)

H.test("the actions are listed once: default keys, action names and subcommands derive from the list", function()
  local actions = require("plansight.actions")
  local commands = require("plansight.commands")
  local keyed, listed = 0, 0
  for _, action in ipairs(actions.list) do
    if action.key then
      keyed = keyed + 1
      H.eq(config.defaults.keymaps[action.key], action.name, "default key " .. action.key)
    end
    if action.callback then
      H.ok(vim.tbl_contains(config.ACTIONS, action.name), action.name .. " is a valid keymap value")
    end
    if action.command then
      listed = listed + 1
      local sub = commands.subcommands[action.command]
      H.ok(sub and sub.desc == action.desc and sub.args == action.args, ":Plansight " .. action.command .. " from the list")
    end
  end
  H.eq(vim.tbl_count(config.defaults.keymaps), keyed, "no default key outside the list")
  H.eq(vim.tbl_count(commands.subcommands), listed, "no subcommand outside the list")
  H.ok(commands.subcommands.restart, ":Plansight restart")
end)

H.run()
