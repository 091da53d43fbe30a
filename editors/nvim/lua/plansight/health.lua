---`:checkhealth plansight`: Neovim version, server command and version, client, store.
local M = {}

function M.check()
  local health = vim.health
  local config = require("plansight.config")
  local client = require("plansight.client")
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
  local path = vim.fn.exepath(exe)
  if path == "" then
    health.error(("server command %q not found"):format(exe), {
      "Install the server: pip install plansight (it provides the `plansight` command)",
      'Or point the plugin at it: require("plansight").setup({ cmd = { "/path/to/plansight", "serve" } })',
    })
  else
    health.ok(("server command: %s (%s)"):format(table.concat(cmd, " "), path))
    local vcmd = client.cli_cmd({ "--version" })
    local ok, res = pcall(function()
      return vim.system(vcmd, { text = true, env = config.options.cmd_env }):wait(10000)
    end)
    if ok and res and res.code == 0 then
      health.ok("server version: " .. vim.trim(res.stdout or ""))
    else
      local why = ok and res and vim.trim((res.stderr or "") .. " (exit " .. tostring(res.code) .. ")") or tostring(res)
      health.error(("`%s` failed: %s"):format(table.concat(vcmd, " "), why))
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
  elseif conn and (conn.status == "missing" or conn.status == "exited") then
    health.error(("no client for %s: %s"):format(root, conn.error or conn.status), {
      "See :LspLog for the server's messages",
    })
  elseif conn and conn.status == "starting" then
    health.info("client starting for " .. root)
  else
    health.info(("no client for %s yet: :Plansight starts it"):format(root))
  end

  health.start("Store")
  if path == "" then
    health.info("store: unknown (no server command)")
    return
  end
  -- The server says which file it opens for this root: the path rule is the server's.
  local scmd = client.store_path_cmd(root)
  local sok, sres = pcall(function()
    return vim.system(scmd, { text = true, env = config.options.cmd_env }):wait(10000)
  end)
  local store = sok and sres and sres.code == 0 and vim.trim(sres.stdout or "") or ""
  if store == "" then
    local why = sok and sres and vim.trim(sres.stderr or "") or tostring(sres)
    health.warn(("`%s` failed: %s"):format(table.concat(scmd, " "), why), {
      "Update the server: `plansight store-path` came with protocol version 2",
    })
  elseif vim.uv.fs_stat(store) then
    health.ok("store: " .. store)
  else
    health.info("store: " .. store .. " (not created yet: the server creates it)")
  end
end

return M
