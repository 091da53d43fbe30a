---The connection to the Plansight server: one language client per workspace root.
---
---The client is started with `vim.lsp.start` and is not tied to any buffer, so it serves
---whatever buffer is open. `plansight/didChange` is handled by a per-client handler (the
---global `vim.lsp.handlers` are never touched). The last state seen of each session is
---cached here; everything the plugin draws comes from that cache.
local config = require("plansight.config")
local delta = require("plansight.delta")
local follow = require("plansight.follow")
local protocol = require("plansight.protocol")

local M = {}

---@class plansight.Connection
---@field root string the workspace root (real path)
---@field client_id integer? the language client, once started
---@field status "idle"|"starting"|"ready"|"missing"|"exited"
---@field error string? why the server is not running
---@field cause string? the server's own last error line (its stderr), when it exited
---@field stderr_log string? the file the server's stderr goes to
---@field queue fun()[] requests waiting for the `initialize` answer
---@field states table<string, plansight.TodoState> last state of each session
---@field checkouts table<string, table|vim.NIL>? each listed session's `checkout` (v4)
---@field listing boolean? a listing for the checkouts is on its way
---@field loaded boolean whether the session list was read at least once
---@field followed string? the session followed when none is picked (`plansight.follow`)
---@field settling boolean? a refresh is putting its sessions in: follow once it is done
---@field restarted_at integer? when the server was last started again on its own (`vim.uv.now()`)
---@field server_info table? `InitializeResult.serverInfo`
---@field capabilities table? `InitializeResult.capabilities.experimental.plansight`
---@field catching_up table<string, integer>? sessions asked again after a gap in the deltas -> the version a delta named
---@field catch_up_waiters table<string, fun(err: table?, state: table?)[]>? what waits on each of those reads (a delta answer on a gap)

---@type table<string, plansight.Connection>
M.connections = {}

---The root of the last connection used: what the statusline shows.
---@type string?
M.last_root = nil

---The session picked with `:Plansight session`, overriding `config.session`.
---@type string?
M.selected_session = nil

---@type fun(state: plansight.TodoState, event: plansight.ChangeEvent)[]
local listeners = {}
---@type fun(root: string)[]
local watchers = {}
---@type table<string, boolean>
local warned = {}

local compat = require("plansight.compat")
local locate = require("plansight.locate")
local notify = require("plansight.notify")

---Requests that change a plan (their answer is an ApplyResult).
local CHANGES = {
  [protocol.methods.apply] = true,
  [protocol.methods.write] = true,
  [protocol.methods.clear] = true,
  [protocol.methods.import] = true,
  [protocol.methods.restore] = true,
  [protocol.methods.undo] = true,
}

---Calls every watcher of `root` (the sidebar, edit buffers, the statusline).
---@param root string
local function touch(root)
  local conn = M.connections[root]
  -- The followed session is worked out on a change only (time alone never moves it), so
  -- what the statusline and the sidebar show is what a command acts on. Before the first
  -- listing is in, nothing was followed yet: the newest wins.
  if conn and not conn.settling then
    conn.followed = follow.followed(M.states(root), conn.loaded and conn.followed or nil, follow.now_ms())
  end
  for _, fn in ipairs(watchers) do
    local ok, err = pcall(fn, root)
    if not ok then
      notify("watcher failed: " .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

---Adds `fn` to `list`; returns the function that takes it out again.
---@generic F
---@param list F[]
---@param fn F
---@return fun() unsubscribe
local function subscribe(list, fn)
  list[#list + 1] = fn
  return function()
    for i, f in ipairs(list) do
      if f == fn then
        table.remove(list, i)
        return
      end
    end
  end
end

---Registers `fn(state, event)`, called for every newer state of any session.
---@param fn fun(state: plansight.TodoState, event: plansight.ChangeEvent)
---@return fun() unsubscribe
function M.on_change(fn)
  return subscribe(listeners, fn)
end

---Registers `fn(root)`, called whenever the cache of `root` changes (internal).
---@param fn fun(root: string)
---@return fun() unsubscribe
function M.watch(fn)
  return subscribe(watchers, fn)
end

---The workspace root of a buffer: the one a Plansight buffer belongs to, else the nearest
---ancestor holding a root marker (`.git`), else the current directory.
---@param bufnr integer?
---@return string
function M.resolve_root(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local own = vim.api.nvim_buf_is_valid(bufnr) and vim.b[bufnr].plansight_root or nil
  if type(own) == "string" and own ~= "" then
    return own
  end
  local markers = config.options.root_markers
  local found = (#markers > 0 and vim.api.nvim_buf_is_valid(bufnr)) and vim.fs.root(bufnr, markers) or nil
  local root = found or vim.fn.getcwd()
  return vim.uv.fs_realpath(root) or vim.fs.normalize(root)
end

---A command of the server's CLI: the server command up to `serve`, then `args`, then (with
---`serve_options`) what the server command passes after `serve` (`--db PATH`):
---`plansight serve --db x` -> `plansight <args> --db x`.
---@param args string[]
---@param serve_options boolean?
---@return string[]
function M.cli_cmd(args, serve_options)
  local head, tail = {}, nil
  for _, arg in ipairs(config.options.cmd) do
    if tail then
      tail[#tail + 1] = arg
    elseif arg == "serve" then
      tail = {}
    else
      head[#head + 1] = arg
    end
  end
  -- The command as found (off PATH too: ~/.local/bin, pipx, uv tools).
  head[1] = head[1] and locate.find(head[1]) or head[1]
  vim.list_extend(head, args)
  if serve_options then
    vim.list_extend(head, tail or {})
  end
  return head
end

---The command that asks the server where the store of `root` is (the contract's path rule
---lives in the server only).
---@param root string
---@return string[]
function M.store_path_cmd(root)
  return M.cli_cmd({ "store-path", "--root", root }, true)
end

---Asks the server's CLI for the store file of `root`; `cb(path)` runs on the main loop,
---with nil when the command failed.
---@param root string
---@param cb fun(path: string?)
function M.store_path(root, cb)
  local opts = { text = true, env = config.options.cmd_env }
  local ok = pcall(vim.system, M.store_path_cmd(root), opts, function(res)
    vim.schedule(function()
      local path = res.code == 0 and vim.trim(res.stdout or "") or ""
      cb(path ~= "" and path or nil)
    end)
  end)
  if not ok then
    cb(nil)
  end
end

---@param root string
---@return plansight.Connection?
function M.get(root)
  return M.connections[root]
end

---The connection of `root`, created (not started) when missing.
---@param root string
---@return plansight.Connection
function M.connection(root)
  local conn = M.connections[root]
  if not conn then
    conn = { root = root, status = "idle", queue = {}, states = {}, loaded = false }
    M.connections[root] = conn
  end
  return conn
end

---@param conn plansight.Connection
---@return vim.lsp.Client?
function M.lsp_client(conn)
  local client = conn.client_id and vim.lsp.get_client_by_id(conn.client_id) or nil
  if client and compat.call(client, "is_stopped") then
    return nil
  end
  return client
end

---Lists the sessions again for their checkouts (v4): a session new to this connection has
---its `checkout` in the listing, not in its state. One listing at a time.
---@param conn plansight.Connection
local function list_checkouts(conn)
  if conn.listing then
    return
  end
  conn.listing = true
  M.request(conn.root, protocol.methods.sessions, vim.empty_dict(), function(err, result)
    conn.listing = nil
    if err or type(result) ~= "table" or type(result.sessions) ~= "table" then
      return
    end
    conn.checkouts = conn.checkouts or {}
    for _, info in ipairs(result.sessions) do
      if type(info) == "table" and type(info.session) == "string" then
        conn.checkouts[info.session] = info.checkout == nil and vim.NIL or info.checkout
      end
    end
    touch(conn.root)
  end)
end

---Keeps `state` when it is newer than the cached one of its session, and tells listeners.
---@param conn plansight.Connection
---@param state plansight.TodoState
---@param event {origin: string?, completedTasks: table?, removedTasks: table?}?
---@return boolean kept
function M.ingest(conn, state, event)
  if type(state) ~= "table" or type(state.session) ~= "string" or type(state.version) ~= "number" then
    return false
  end
  local old = conn.states[state.session]
  if old and old.version >= state.version then
    return false
  end
  conn.states[state.session] = state
  if conn.loaded and conn.checkouts and conn.checkouts[state.session] == nil then
    list_checkouts(conn)
  end
  ---@type plansight.ChangeEvent
  local ev = {
    root = conn.root,
    origin = event and protocol.value(event.origin) or nil,
    completedTasks = event and protocol.value(event.completedTasks) or {},
    removedTasks = event and protocol.value(event.removedTasks) or {},
  }
  for _, fn in ipairs(listeners) do
    local ok, err = pcall(fn, state, ev)
    if not ok then
      notify("on_change callback failed: " .. tostring(err), vim.log.levels.ERROR)
    end
  end
  touch(conn.root)
  return true
end

---Asks the whole state of `session` after a delta that did not fit the state held (a gap:
---a push missed, or a session not held), and keeps the answer when it is at or past
---`version`, the delta's (an older one means the session is gone: pruned meanwhile).
---One request per session at a time; a later gap while it is out raises the version
---wanted, and the answer is checked against that. `on_read(err, state)`, when given, is
---called with the state read (an answer that carried only the change waits on it).
---@param conn plansight.Connection
---@param session string
---@param version integer
---@param on_read fun(err: table?, state: table?)?
function M.catch_up(conn, session, version, on_read)
  conn.catching_up = conn.catching_up or {}
  conn.catch_up_waiters = conn.catch_up_waiters or {}
  if on_read then
    local waiters = conn.catch_up_waiters[session] or {}
    waiters[#waiters + 1] = on_read
    conn.catch_up_waiters[session] = waiters
  end
  local wanted = conn.catching_up[session]
  if wanted then
    conn.catching_up[session] = math.max(wanted, version)
    return
  end
  conn.catching_up[session] = version
  local lsp_client = M.lsp_client(conn)
  local function on_state(err, state)
    local want = conn.catching_up[session] or version
    conn.catching_up[session] = nil
    local waiters = conn.catch_up_waiters[session] or {}
    conn.catch_up_waiters[session] = nil
    local read = not err and type(state) == "table" and type(state.version) == "number"
    if read and state.version >= want then
      M.ingest(conn, state, nil)
    end
    for _, waiter in ipairs(waiters) do
      waiter(not read and (err or { code = -32603, message = "no state" }) or nil, read and state or nil)
    end
  end
  if not lsp_client then
    on_state({ code = -32099, message = "no client" }, nil)
    return
  end
  compat.call(lsp_client, "request", protocol.methods.get, { session = session }, on_state)
end

---A `plansight/didChange`: a whole state is kept as it comes; a delta is applied on the
---exact version it names, dropped when what is held is already past it, and on a gap (or
---a delta that does not fit) the whole state is asked for instead.
---@param conn plansight.Connection
---@param params table
function M.receive(conn, params)
  if not delta.is_delta(params) then
    M.ingest(conn, params, params)
    return
  end
  if type(params.session) ~= "string" or type(params.version) ~= "number" then
    return
  end
  local held = conn.states[params.session]
  local verdict = delta.verdict(held, params)
  if verdict == "stale" then
    return
  end
  local state = verdict == "apply" and delta.apply(held, params) or nil
  if state then
    M.ingest(conn, state, params)
  else
    M.catch_up(conn, params.session, params.version)
  end
end

---A changing request's answer that carries only the change (docs/protocol.md, "Answers
---that carry the change"): laid on the state held as its push would be (the push, which
---follows, is then a version held: a no-op), dropped as stale when what is held is at or
---past it, and on a gap (or one that does not fit) the whole state is asked for. `done`
---gets a whole ApplyResult, as every caller did before.
---@param conn plansight.Connection
---@param params table the request's params (its origin is the change's)
---@param answer plansight.DeltaAnswer
---@param done fun(result: table)
function M.answer(conn, params, answer, done)
  local session = answer.session
  local event = {
    origin = params.origin or "agent",
    completedTasks = answer.completedTasks or {},
    removedTasks = answer.removedTasks or {},
  }
  local held = conn.states[session]
  local verdict = delta.verdict(held, answer)
  local state = verdict == "stale" and held or nil
  if verdict == "apply" then
    state = delta.apply(held, answer)
    if state then
      M.ingest(conn, state, event)
    end
  end
  if state then
    done(delta.result_of(state, answer))
    return
  end
  -- A gap: read whole, once for this answer and the push that follows it.
  M.catch_up(conn, session, answer.version, function(err, got)
    if err or not got then
      done(answer) -- the change was made: its summary and errors are said all the same
      return
    end
    local now = conn.states[session]
    done(delta.result_of(now and now.version >= got.version and now or got, answer))
  end)
end

---The checkouts of `root`'s sessions (v4), as the last listing gave them.
---@param root string
---@return table<string, table|vim.NIL>
function M.checkouts(root)
  local conn = M.connections[root]
  return conn and conn.checkouts or {}
end

---Drops pruned sessions from the cache (`plansight/didPrune`); a session picked with
---`:Plansight session` that was pruned is no longer picked.
---@param conn plansight.Connection
---@param sessions string[]?
function M.forget(conn, sessions)
  if type(sessions) ~= "table" then
    return
  end
  local gone = false
  for _, session in ipairs(sessions) do
    if type(session) == "string" and conn.states[session] then
      conn.states[session] = nil
      gone = true
    end
    if M.selected_session == session then
      M.selected_session = nil
    end
  end
  if gone then
    touch(conn.root)
  end
end

---The cached sessions of `root`, most recently updated first.
---@param root string
---@return plansight.TodoState[]
function M.states(root)
  local conn = M.connections[root]
  local list = {}
  if not conn then
    return list
  end
  for _, state in pairs(conn.states) do
    list[#list + 1] = state
  end
  table.sort(list, follow.newer)
  return list
end

---The session commands target: the picked one; else the one followed by the server's rule
---(`plansight.follow`: the session with tasks that changed last, kept while in use, so two
---agents writing by turns do not flip it); else "default".
---@param root string?
---@return string
function M.active_session(root)
  local picked = M.selected_session or config.options.session
  if picked then
    return picked
  end
  local conn = M.connections[root or M.last_root or ""]
  local followed = conn and (conn.followed or follow.followed(M.states(conn.root), nil, follow.now_ms()))
  return followed or protocol.DEFAULT_SESSION
end

---@param conn plansight.Connection
---@param result lsp.InitializeResult
local function on_init(conn, result)
  conn.status = "ready"
  conn.error = nil
  conn.server_info = result and result.serverInfo or nil
  local experimental = result and result.capabilities and result.capabilities.experimental or nil
  conn.capabilities = type(experimental) == "table" and experimental.plansight or nil
  local version = conn.capabilities and conn.capabilities.protocolVersion
  if version ~= protocol.VERSION and not warned["protocol:" .. tostring(version)] then
    warned["protocol:" .. tostring(version)] = true
    notify(
      ("server speaks protocol version %s, this plugin speaks %d; see :checkhealth plansight"):format(
        tostring(version),
        protocol.VERSION
      ),
      vim.log.levels.WARN
    )
  end
  local queue = conn.queue
  conn.queue = {}
  for _, send in ipairs(queue) do
    send()
  end
  M.refresh(conn.root)
end

---The server's own word on why it stopped: the last error line of its stderr (a
---traceback's last line names the exception), else its last line; nil when it said nothing.
---@param path string?
---@return string?
function M.last_error_line(path)
  if not path then
    return nil
  end
  local ok, lines = pcall(vim.fn.readfile, path, "", -200)
  if not ok then
    return nil
  end
  local last, err
  for _, line in ipairs(lines) do
    line = vim.trim(line)
    if line ~= "" then
      last = line
      if line:find("[Ee]rror") or line:find("CRITICAL", 1, true) or line:find("[Ff]ailed") then
        err = line
      end
    end
  end
  local cause = err or last
  if cause and vim.fn.strchars(cause) > 240 then
    cause = vim.fn.strcharpart(cause, 0, 239) .. "…"
  end
  return cause
end

---Where the server of `root` writes its stderr: one file per root and Neovim (two Neovims
---on one root keep their own), new at each start, removed when Neovim exits.
---@param root string
---@return string
function M.stderr_path(root)
  local dir = vim.fn.stdpath("log") --[[@as string]]
  local path = ("%s/plansight-server-%s-%d.log"):format(dir, vim.fn.sha256(root):sub(1, 12), vim.fn.getpid())
  if not warned["log:" .. path] then
    warned["log:" .. path] = true
    vim.api.nvim_create_autocmd("VimLeavePre", {
      once = true,
      callback = function()
        os.remove(path)
      end,
    })
  end
  return path
end

---`cmd` with its stderr written to `path`, through `sh` (which `exec`s the server: the
---same process): the file keeps the cause of an exit for the person.
---Unchanged where there is no `sh` (Windows).
---@param cmd string[]
---@param path string
---@return string[] cmd, string? path
local function logging_stderr(cmd, path)
  if vim.fn.has("win32") == 1 or vim.fn.executable("sh") ~= 1 then
    return cmd, nil
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local wrapped = { "sh", "-c", 'exec "$@" 2>"$0"', path }
  vim.list_extend(wrapped, cmd)
  return wrapped, path
end

---What the sidebar and the messages say of a stopped server: why, and how to go on.
---@param conn plansight.Connection
---@return string
function M.disconnected_text(conn)
  local text = conn.error or "the server is not running"
  if conn.cause then
    text = text .. ": " .. conn.cause
  end
  return text
end

---A server that stops on its own is started again once in this long (as VS Code does);
---stopping again within it leaves the workspace disconnected until the person restarts it.
M.RESTART_WINDOW_MS = 3 * 60 * 1000

---Starts the server of `conn` again after it stopped on its own, once a window
---(`RESTART_WINDOW_MS`); says so in one line. Returns false when it already did.
---@param conn plansight.Connection
---@param why string
---@return boolean
local function restart_once(conn, why)
  local now = vim.uv.now()
  if conn.restarted_at and now - conn.restarted_at < M.RESTART_WINDOW_MS then
    return false
  end
  conn.restarted_at = now
  conn.status = "idle"
  notify.brief("", { why .. "; started it again" }, vim.log.levels.WARN)
  M.ensure(conn.root)
  return true
end

---@param conn plansight.Connection
---@param code integer
---@param signal integer
---@param client_id integer
---@param deliberate boolean stopped through the client (`:LspStop`, `client:stop()`)
local function on_exit(conn, code, signal, client_id, deliberate)
  if conn.client_id ~= client_id then
    return
  end
  conn.client_id = nil
  local queue = conn.queue
  conn.queue = {}
  local was_running = conn.status == "ready"
  conn.status = "exited"
  conn.error = signal ~= 0 and ("the server was stopped by signal %d"):format(signal)
    or ("the server exited with code %d"):format(code)
  conn.cause = M.last_error_line(conn.stderr_log)
  for _, send in ipairs(queue) do
    send()
  end
  -- A server that was serving and stopped on its own (killed, crashed) comes back once;
  -- one that never got going would only fail again.
  if was_running and not deliberate and restart_once(conn, conn.error) then
    touch(conn.root)
    return
  end
  -- Stopped through the client (`:LspStop`): the sidebar says so, no message is needed.
  if (code ~= 0 or signal ~= 0) and not deliberate then
    if was_running then
      -- One line (the sidebar says the rest): a longer one stops Neovim at "Press ENTER".
      notify.brief("", { conn.error .. " again: not restarted; :Plansight restart (or r in the sidebar)" }, vim.log.levels.ERROR)
    else
      notify(
        M.disconnected_text(conn) .. ". :Plansight restart starts it again; :checkhealth plansight says more",
        vim.log.levels.ERROR
      )
    end
  end
  touch(conn.root)
end

---Starts the server of `root` unless it runs. Reports a missing command once.
---@param root string?
---@return plansight.Connection
function M.ensure(root)
  root = root or M.resolve_root()
  local conn = M.connection(root)
  M.last_root = root
  if conn.status == "starting" or conn.status == "ready" then
    if M.lsp_client(conn) or conn.status == "starting" then
      return conn
    end
  end
  local opts = config.options
  local exe = opts.cmd[1]
  local found = locate.find(exe)
  if not found then
    conn.status = "missing"
    conn.cause = nil
    conn.error = ("server command %q not found (looked in %s)"):format(exe, locate.looked_in(exe))
    if not warned["missing:" .. exe] then
      warned["missing:" .. exe] = true
      notify(
        ("server command %q not found (looked in %s). Install it: %s, or set `cmd` in setup(); "
          .. "then :Plansight restart. See :checkhealth plansight"):format(exe, locate.looked_in(exe), locate.INSTALL),
        vim.log.levels.ERROR
      )
    end
    touch(root)
    return conn
  end
  local cmd = vim.deepcopy(opts.cmd)
  cmd[1] = found
  local log_path
  cmd, log_path = logging_stderr(cmd, M.stderr_path(root))
  conn.stderr_log = log_path
  conn.cause = nil
  local settings = opts.settings
  if next(settings) == nil then
    settings = vim.empty_dict()
  end
  ---@type vim.lsp.ClientConfig
  local lsp_config = {
    name = "plansight",
    cmd = cmd,
    cmd_env = opts.cmd_env,
    root_dir = root,
    init_options = { plansight = settings },
    -- Deltas (docs/protocol.md, "Change deltas"): a server without them sends whole states.
    capabilities = { experimental = delta.CAPABILITY },
    handlers = {
      [protocol.notifications.did_change] = function(_, params)
        M.receive(conn, params)
      end,
      [protocol.notifications.did_prune] = function(_, params)
        M.forget(conn, type(params) == "table" and params.sessions or nil)
      end,
    },
    on_init = function(_, result)
      on_init(conn, result)
    end,
    on_exit = function(code, signal, client_id)
      -- Read now: the client is forgotten once its exit callbacks ran.
      local lsp_client = vim.lsp.get_client_by_id(client_id)
      local deliberate = lsp_client ~= nil and lsp_client._is_stopping == true
      vim.schedule(function()
        on_exit(conn, code, signal or 0, client_id, deliberate)
      end)
    end,
  }
  conn.status = "starting"
  conn.error = nil
  local client_id = compat.start_client(lsp_config)
  if not client_id then
    conn.status = "exited"
    conn.error = "the server failed to start: " .. table.concat(opts.cmd, " ")
    notify(conn.error .. ". :Plansight restart tries again; :checkhealth plansight says more", vim.log.levels.ERROR)
  end
  conn.client_id = client_id
  touch(root)
  return conn
end

---Stops the server of `root`; the next request starts a new one.
---@param root string
function M.stop(root)
  local conn = M.connections[root]
  local client = conn and M.lsp_client(conn)
  if not conn or not client then
    return
  end
  -- Forgotten at once, so its exit is not reported as a failure.
  conn.client_id = nil
  conn.status = "idle"
  compat.call(client, "stop")
  touch(root)
end

---Stops the server of `root` (when it runs) and starts a new one: `:Plansight restart`.
---@param root string
---@return plansight.Connection
function M.restart(root)
  M.stop(root)
  local conn = M.connection(root)
  conn.status = "idle"
  conn.restarted_at = nil -- the person's restart: the next stop on its own is restarted once again
  conn.error = nil
  conn.cause = nil
  -- A command installed since is looked for again, and said again when still missing.
  warned["missing:" .. config.options.cmd[1]] = nil
  local started = M.ensure(root)
  if started.status == "starting" or started.status == "ready" then
    M.refresh(root)
  end
  return started
end

---Sends a request to the server of `root` (started if needed); `cb(err, result)` runs on
---the main loop. A result carrying a TodoState also updates the cache at once.
---@param root string?
---@param method string one of `protocol.methods`
---@param params table
---@param cb fun(err: plansight.ResponseError?, result: any)?
function M.request(root, method, params, cb)
  root = root or M.resolve_root()
  cb = cb or function(err)
    if err and not err.reported then
      notify(protocol.error_text(err), vim.log.levels.ERROR)
    end
  end
  local conn = M.connection(root)
  if conn.status == "exited" then
    -- Disconnected (the server stopped, and again after its one restart): nothing is sent
    -- behind the person's back, nor the server started by a key; `r`, opening the
    -- sidebar and `:Plansight restart` start it.
    cb({ code = -32099, message = "not done: the server is not running (:Plansight restart)", brief = true }, nil)
    return
  end
  conn = M.ensure(root)
  local function send()
    local client = M.lsp_client(conn)
    if not client or conn.status ~= "ready" then
      -- A missing command was reported once already (by `ensure`); `reported` keeps
      -- every later request from repeating it.
      cb({
        code = -32099,
        message = conn.error and M.disconnected_text(conn) or "the Plansight server is not running",
        reported = conn.status == "missing",
      }, nil)
      return
    end
    local function handler(err, result)
      if not err and CHANGES[method] and delta.is_delta(result) then
        M.answer(conn, params, result, function(whole)
          cb(nil, whole)
        end)
        return
      end
      if not err and type(result) == "table" and result.session and result.version then
        -- The answer to a change carries what its didChange will: who made it and what it
        -- completed. Whichever of the two arrives first is the one listeners see.
        local event = nil
        if CHANGES[method] then
          event = {
            origin = params.origin or "agent",
            completedTasks = result.completedTasks or {},
            removedTasks = result.removedTasks or {},
          }
        end
        M.ingest(conn, result, event)
      end
      cb(err, result)
    end
    local ok = compat.call(client, "request", method, params, handler)
    if not ok then
      cb({ code = -32099, message = "the Plansight server has shut down" }, nil)
    end
  end
  if conn.status == "starting" then
    conn.queue[#conn.queue + 1] = send
  else
    send()
  end
end

---Reads every session of `root` again and replaces the cache.
---@param root string?
---@param cb fun(err: plansight.ResponseError?)?
function M.refresh(root, cb)
  root = root or M.resolve_root()
  local conn = M.connection(root)
  local before = {}
  for session, state in pairs(conn.states) do
    before[session] = state
  end
  M.request(root, protocol.methods.sessions, vim.empty_dict(), function(err, result)
    if err or type(result) ~= "table" or type(result.sessions) ~= "table" then
      if cb then
        cb(err or { code = -32603, message = "bad sessions answer" })
      end
      return
    end
    local names = {}
    conn.checkouts = {}
    for _, info in ipairs(result.sessions) do
      names[#names + 1] = info.session
      if type(info.session) == "string" then
        conn.checkouts[info.session] = info.checkout == nil and vim.NIL or info.checkout
      end
    end
    local pending = #names
    local fresh = {}
    local function finish()
      -- Sessions gone from the server (pruned) leave, unless a didChange brought them
      -- while this refresh ran; a newer cached state wins over a `get` answer that
      -- crossed a didChange on the way.
      for session, state in pairs(conn.states) do
        if not fresh[session] then
          if before[session] == state then
            conn.states[session] = nil
          end
        elseif state.version > fresh[session].version then
          fresh[session] = state
        end
      end
      -- The followed session is worked out once all are in, not by the order they came in.
      conn.settling = true
      for session, state in pairs(fresh) do
        if not conn.states[session] or conn.states[session].version < state.version then
          M.ingest(conn, state, nil)
        end
      end
      conn.settling = nil
      conn.loaded = true
      touch(root)
      if cb then
        cb(nil)
      end
    end
    if pending == 0 then
      finish()
      return
    end
    for _, session in ipairs(names) do
      -- Ask with the client directly so the answers do not reach the cache one by one.
      local client = M.lsp_client(conn)
      local function on_state(gerr, state)
        if not gerr and type(state) == "table" and state.session then
          fresh[state.session] = state
        end
        pending = pending - 1
        if pending == 0 then
          finish()
        end
      end
      if not client then
        on_state({ code = -32099, message = "no client" }, nil)
      else
        compat.call(client, "request", protocol.methods.get, { session = session }, on_state)
      end
    end
  end)
end

---Sends `workspace/didChangeConfiguration` with the current settings to every server.
function M.push_settings()
  local settings = config.options.settings
  if next(settings) == nil then
    settings = vim.empty_dict()
  end
  for _, conn in pairs(M.connections) do
    local client = M.lsp_client(conn)
    if client and conn.status == "ready" then
      local params = { settings = { plansight = settings } }
      compat.call(client, "notify", "workspace/didChangeConfiguration", params)
    end
  end
end

return M
