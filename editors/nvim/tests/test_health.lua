-- :checkhealth plansight, and the one message a missing server command gives.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
H.load_plugin()
local p = H.project()
local plansight = require("plansight")

---Runs :checkhealth plansight and returns the report's lines.
local function checkhealth()
  vim.cmd("checkhealth plansight")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd("bwipeout!")
  return lines
end

local function count(lines, pattern)
  local n = 0
  for _, line in ipairs(lines) do
    if line:find(pattern) then
      n = n + 1
    end
  end
  return n
end

H.test("a missing server command gives one clear message pointing to :checkhealth", function()
  plansight.setup({ cmd = { "plansight-does-not-exist", "serve" }, auto_open = false })
  H.messages = {}
  vim.cmd("Plansight open")
  vim.cmd("Plansight add something")
  vim.cmd("Plansight refresh")
  local errors = vim.tbl_filter(function(m)
    return m.level == vim.log.levels.ERROR and m.msg:find("plansight-does-not-exist", 1, true)
  end, H.messages)
  H.eq(#errors, 1, "exactly one message about the missing command, got:\n" .. vim.inspect(H.messages))
  H.ok(errors[1].msg:find(":checkhealth plansight", 1, true), "points to :checkhealth plansight")
  local shown = table.concat(H.sidebar_lines(), " ") -- wrapped to the sidebar's width
  H.ok(shown:find("Server not found: see :checkhealth plansight", 1, true), "the sidebar says so too")
  local report = checkhealth()
  H.ok(count(report, "ERROR") >= 1, "health reports the missing command:\n" .. table.concat(report, "\n"))
  H.ok(table.concat(report, "\n"):find("plansight-does-not-exist", 1, true), "names the command")
  vim.cmd("Plansight close")
end)

H.test("the health check reports OK with the real server", function()
  plansight.setup({ cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = false })
  vim.cmd("Plansight open")
  H.wait(function()
    local conn = require("plansight.client").get(p.root)
    return conn and conn.status == "ready" and conn.loaded
  end, "client ready")
  -- The store exists once something was written.
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Todos", items = { "a" } } } } })
  local report = checkhealth()
  local text = table.concat(report, "\n")
  H.eq(count(report, "ERROR"), 0, "no error in:\n" .. text)
  H.eq(count(report, "WARNING"), 0, "no warning in:\n" .. text)
  H.ok(text:find("Neovim 0%.1%d"), "Neovim version")
  local version = vim.trim(H.cli({ "--version" }))
  H.ok(text:find("server version: " .. version, 1, true), "server version " .. version)
  H.ok(text:find("running for " .. p.root, 1, true), "client attached for the root")
  H.ok(text:find("every method offered", 1, true), "protocol methods")
  H.ok(text:find("store: " .. p.db, 1, true), "store path")
  H.ok(count(report, "OK") >= 5, "OK lines")
end)

H.test("the store path is the server's answer, the file its CLI writes", function()
  local client = require("plansight.client")
  local config = require("plansight.config")
  local saved = config.options.cmd
  local env_db = vim.env.PLANSIGHT_DB
  vim.env.PLANSIGHT_DB = nil
  ---The path the plugin is told for the project.
  local function asked()
    local got, done = nil, false
    client.store_path(p.root, function(path)
      got, done = path, true
    end)
    H.wait(function()
      return done
    end, "the server's answer")
    return got
  end
  config.options.cmd = { H.plansight_bin, "serve" }
  local default = asked()
  H.ok(default and vim.startswith(default, vim.env.XDG_STATE_HOME .. "/plansight/"), "under XDG_STATE_HOME: " .. tostring(default))
  -- The CLI, run in the project without --db, writes exactly there.
  local env = vim.fn.environ()
  env.PLANSIGHT_DB = nil
  local res = vim.system({ H.plansight_bin, "apply", "--ops", '[{"op":"append","phase":"P","items":["x"]}]' }, {
    cwd = p.root,
    env = env,
    clear_env = true,
    text = true,
  }):wait(20000)
  H.eq(res.code, 0, "CLI apply in the project: " .. tostring(res.stderr))
  H.ok(vim.uv.fs_stat(default), "the CLI's default store is the path the server names: " .. default)
  vim.env.PLANSIGHT_DB = "/tmp/elsewhere.sqlite3"
  H.eq(asked(), "/tmp/elsewhere.sqlite3", "PLANSIGHT_DB wins")
  vim.env.PLANSIGHT_DB = env_db
  config.options.cmd = { H.plansight_bin, "serve", "--db", p.db }
  H.eq(asked(), p.db, "--db in the server command wins")
  config.options.cmd = { "plansight-does-not-exist", "serve" }
  H.eq(asked(), nil, "no server, no path")
  config.options.cmd = saved
end)

H.test("at startup the server starts when the server names a store that exists", function()
  local client = require("plansight.client")
  client.stop(p.root)
  H.eq(client.get(p.root).status, "idle", "no server running")
  plansight.setup({ cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = true })
  H.wait(function()
    return client.get(p.root).status == "ready"
  end, "the server started for the existing store")
end)

H.run()
