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
  H.ok(shown:find("Disconnected: server command \"plansight-does-not-exist\" not found (looked in PATH, ~/.local/bin", 1, true), "the sidebar says so too: " .. shown)
  H.ok(shown:find("pipx install plansight", 1, true) and shown:find(":Plansight restart", 1, true), "how to fix it: " .. shown)
  local report = checkhealth()
  H.ok(count(report, "ERROR") >= 1, "health reports the missing command:\n" .. table.concat(report, "\n"))
  H.ok(table.concat(report, "\n"):find("plansight-does-not-exist", 1, true), "names the command")
  H.ok(table.concat(report, "\n"):find("looked in PATH, ~/.local/bin", 1, true), "says where it looked")
  H.ok(table.concat(report, "\n"):find("pipx install plansight", 1, true), "the command that fixes it")
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
  -- This test's home has no agent: that is the one warning, with the command that fixes it.
  H.eq(count(report, "WARNING"), 1, "one warning in:\n" .. text)
  H.ok(text:find("No agent found", 1, true) and text:find("plansight setup AGENT", 1, true), "no agent set up, and the fix")
  H.ok(text:find("Store: store " .. p.db .. " reachable", 1, true), "the doctor says the store is reachable:\n" .. text)
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

H.test("first run: plansight off PATH, in ~/.local/bin (where pipx and uv put it), is found", function()
  local client = require("plansight.client")
  local bin = vim.env.HOME .. "/.local/bin"
  vim.fn.mkdir(bin, "p")
  -- The real server, under the bare name, where only the plugin's search can find it.
  vim.fn.writefile({ "#!/bin/sh", 'exec "' .. H.plansight_bin .. '" "$@"' }, bin .. "/plansight")
  vim.fn.setfperm(bin .. "/plansight", "rwxr-xr-x")
  -- A PATH without any folder holding a plansight (CI runs in the project's venv).
  local path = vim.env.PATH
  local kept = vim.tbl_filter(function(folder)
    return vim.fn.executable(folder .. "/plansight") == 0
  end, vim.split(path, ":", { plain = true }))
  vim.env.PATH = table.concat(kept, ":")
  H.eq(vim.fn.executable("plansight"), 0, "not on Neovim's PATH")
  client.stop(p.root)
  plansight.setup({ cmd = { "plansight", "serve", "--db", p.db }, auto_open = false })
  vim.cmd("Plansight restart")
  H.wait(function()
    local conn = client.get(p.root)
    return conn and conn.status == "ready" and conn.loaded
  end, "the server found in ~/.local/bin runs")
  local text = table.concat(checkhealth(), "\n")
  H.ok(text:find("found at " .. bin .. "/plansight (not on Neovim's PATH)", 1, true), "health says where:\n" .. text)
  vim.fn.delete(bin .. "/plansight")
  vim.env.PATH = path
end)

H.test("a server that exits at start: the sidebar says disconnected, with its own last error line; restart fixes it", function()
  local client = require("plansight.client")
  client.stop(p.root)
  -- A bad option: the server's argument parser refuses it on stderr and exits 2.
  plansight.setup({ cmd = { H.plansight_bin, "serve", "--db", p.db, "--no-such-option" }, auto_open = false })
  H.messages = {}
  vim.cmd("Plansight restart")
  vim.cmd("Plansight open")
  H.wait(function()
    return client.get(p.root).status == "exited"
  end, "the exit is seen")
  H.wait_line("Disconnected", "the sidebar says disconnected")
  local shown = table.concat(H.sidebar_lines(), " ")
  H.ok(shown:find("exited with code 2", 1, true), "the exit code: " .. shown)
  H.ok(shown:find("--no-such-option", 1, true), "the server's own last error line: " .. shown)
  H.ok(shown:find(":Plansight restart", 1, true), "how to restart: " .. shown)
  local errors = vim.tbl_filter(function(m)
    return m.level == vim.log.levels.ERROR and m.msg:find("--no-such-option", 1, true)
  end, H.messages)
  H.eq(#errors, 1, "one message with the cause: " .. vim.inspect(H.messages))
  H.ok(errors[1].msg:find(":Plansight restart", 1, true), "the message names the restart")
  local report = table.concat(checkhealth(), "\n")
  H.ok(report:find("disconnected for " .. p.root, 1, true) and report:find("--no-such-option", 1, true), "health names the cause:\n" .. report)
  H.ok(report:find(":Plansight restart", 1, true), "health names the fix")
  -- Fixed, and restarted.
  plansight.setup({ cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = false })
  vim.cmd("Plansight restart")
  H.wait(function()
    return client.get(p.root).status == "ready" and not H.find_line("Disconnected")
  end, "connected again, the message gone")
  vim.cmd("Plansight close")
end)

H.run()
