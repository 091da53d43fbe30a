---`:checkhealth plansight`: what is missing, each with the one command that fixes it:
---Neovim, the server command (where it was looked for), the client (why it stopped), the
---store, and the agents (`plansight doctor`).
local M = {}

---Runs `cmd` (20 s at most); its result, or nil and why it could not run.
---@param cmd string[]
---@param env table<string,string>?
---@param cwd string?
---@return vim.SystemCompleted?, string?
local function run(cmd, env, cwd)
  local ok, res = pcall(function()
    return vim.system(cmd, { text = true, env = env, cwd = cwd }):wait(20000)
  end)
  if not ok then
    return nil, tostring(res)
  end
  return res, nil
end

---The value of `--db` in the server command, if any (the store `plansight doctor` checks).
---@param cmd string[]
---@return string?
local function db_option(cmd)
  for i, arg in ipairs(cmd) do
    if arg == "--db" then
      return cmd[i + 1]
    end
    local value = arg:match("^%-%-db=(.+)$")
    if value then
      return value
    end
  end
  return nil
end

---Reports `plansight doctor`'s findings: ✓ as OK, ✗ as an error with its `fix:` line, `-`
---(optional) as a warning.
---@param output string
local function report_doctor(output)
  local health = vim.health
  local lines = vim.split(output, "\n", { plain = true })
  local section = ""
  -- Doctor's own "Neovim" section asks whether a Neovim configuration loads the plugin:
  -- here it is loaded, however it was (a plugin manager, a runtimepath, `--cmd`).
  local inside = false
  local i = 1
  while i <= #lines do
    local line = lines[i]
    local fix = lines[i + 1] and lines[i + 1]:match("^%s+fix:%s*(.+)$")
    local advice = fix and { "Run: " .. fix } or nil
    local mark, text = line:match("^%s+(%S+)%s+(.+)$")
    if line:match("^%S") and not line:find("^No agent found") and not line:find("^Everything") and not line:find("^Something") then
      section = line .. ": "
      inside = line == "Neovim"
    elseif inside then
      -- not reported
    elseif line:find("^No agent found") then
      health.warn(line, { "Install an agent (Claude Code, Codex, Gemini CLI, OpenCode), then run: plansight setup AGENT" })
    elseif mark == "✓" then
      health.ok(section .. text)
    elseif mark == "✗" then
      health.error(section .. text, advice)
    elseif mark == "-" then
      health.warn(section .. text, advice)
    end
    i = i + (fix and 2 or 1)
  end
end

function M.check()
  local health = vim.health
  local config = require("plansight.config")
  local client = require("plansight.client")
  local locate = require("plansight.locate")
  local protocol = require("plansight.protocol")

  health.start("Neovim")
  local v = vim.version()
  local vstr = ("%d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. vstr)
  else
    health.error("Neovim " .. vstr .. ": Plansight needs 0.10 or newer")
  end

  health.start("Server")
  local cmd = config.options.cmd
  local exe = cmd[1]
  local path = locate.find(exe)
  local env = config.options.cmd_env
  if not path then
    health.error(("server command %q not found (looked in %s)"):format(exe, locate.looked_in(exe)), {
      "Install the server: " .. locate.INSTALL .. ", then :Plansight restart",
      'Or point the plugin at it: require("plansight").setup({ cmd = { "/path/to/plansight", "serve" } })',
    })
  else
    if vim.fn.exepath(exe) == "" then
      health.ok(("server command: %s, found at %s (not on Neovim's PATH)"):format(table.concat(cmd, " "), path))
    else
      health.ok(("server command: %s (%s)"):format(table.concat(cmd, " "), path))
    end
    local vcmd = client.cli_cmd({ "--version" })
    local res, why = run(vcmd, env)
    if res and res.code == 0 then
      health.ok("server version: " .. vim.trim(res.stdout or ""))
    else
      why = res and vim.trim((res.stderr or "") .. " (exit " .. tostring(res.code) .. ")") or why
      health.error(("`%s` failed: %s"):format(table.concat(vcmd, " "), why), {
        "Reinstall the server: " .. locate.INSTALL,
      })
    end
  end

  health.start("Client")
  local root = client.resolve_root()
  local conn = client.get(root)
  local lsp_client = conn and client.lsp_client(conn)
  if conn and lsp_client and conn.status == "ready" then
    health.ok(("client %d running for %s"):format(lsp_client.id, root))
    local caps = conn.capabilities
    if caps and caps.protocolVersion == protocol.VERSION then
      local offered = {}
      for _, m in ipairs(caps.methods or {}) do
        offered[m] = true
      end
      local missing = {}
      for _, m in pairs(protocol.methods) do
        if not offered[m] then
          missing[#missing + 1] = m
        end
      end
      table.sort(missing)
      if #missing == 0 then
        health.ok(("protocol version %d, every method offered"):format(protocol.VERSION))
      else
        health.error("the server does not offer: " .. table.concat(missing, ", "))
      end
    else
      health.error(("the server speaks protocol version %s, the plugin %d"):format(
        vim.inspect(caps and caps.protocolVersion),
        protocol.VERSION
      ), { "Update the server and the plugin together" })
    end
  elseif conn and conn.status == "missing" then
    health.error(("disconnected for %s: %s"):format(root, conn.error or "server not found"), {
      "Install the server: " .. locate.INSTALL .. ", then :Plansight restart",
    })
  elseif conn and conn.status == "exited" then
    local advice = { "Start it again: :Plansight restart" }
    if conn.stderr_log then
      advice[#advice + 1] = "The server's messages: " .. conn.stderr_log
    end
    health.error(("disconnected for %s: %s"):format(root, client.disconnected_text(conn)), advice)
  elseif conn and conn.status == "starting" then
    health.info("client starting for " .. root)
  else
    health.info(("no client for %s yet: :Plansight starts it"):format(root))
  end

  health.start("Store")
  if not path then
    health.info("store: unknown (no server command)")
    return
  end
  -- The server says which file it opens for this root: the path rule is the server's.
  local scmd = client.store_path_cmd(root)
  local sres, swhy = run(scmd, env)
  local store = sres and sres.code == 0 and vim.trim(sres.stdout or "") or ""
  if store == "" then
    local why = sres and vim.trim(sres.stderr or "") or swhy
    health.warn(("`%s` failed: %s"):format(table.concat(scmd, " "), why), {
      "Update the server: `plansight store-path` came with protocol version 2",
    })
  elseif vim.uv.fs_stat(store) then
    health.ok("store: " .. store)
  else
    health.info("store: " .. store .. " (not created yet: the server creates it)")
  end

  health.start("Agents (plansight doctor)")
  -- The agents' hooks and MCP servers, and whether the store is reachable, are the
  -- server's to check: its doctor reads the agents' own configs.
  local denv = vim.tbl_extend("force", {}, env or {})
  denv.PLANSIGHT_DB = db_option(cmd) or denv.PLANSIGHT_DB
  local dcmd = client.cli_cmd({ "doctor" })
  local dres, dwhy = run(dcmd, denv, root)
  if not dres or (dres.code ~= 0 and vim.trim(dres.stdout or "") == "") then
    health.warn(("`%s` failed: %s"):format(
      table.concat(dcmd, " "),
      dres and vim.trim(dres.stderr or "") or tostring(dwhy)
    ), { "Run it in a terminal: plansight doctor" })
    return
  end
  report_doctor(dres.stdout or "")
end

return M
