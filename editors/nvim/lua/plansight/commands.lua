---`:Plansight [subcommand] [argument]`, with completion.
---
---The argument is the rest of the line, taken as plain text: `:Plansight add Fix | the :qa! bug`
---adds a task named exactly that (the command has no `-bar`, so `|` is text too).
local actions = require("plansight.actions")
local requests = require("plansight.actions.requests")
local client = require("plansight.client")
local protocol = require("plansight.protocol")

local M = {}

local notify = require("plansight.notify")

---@class plansight.Context
---@field root string
---@field session string
---@field item plansight.RenderItem? the sidebar item under the cursor, when run from the sidebar

---Where a command acts: the sidebar's item and session when run from the sidebar, else the
---active session of the current buffer's root.
---@return plansight.Context
local function context()
  local sidebar = require("plansight.sidebar")
  local buf = vim.api.nvim_get_current_buf()
  if sidebar.state.buf == buf and sidebar.state.root then
    local item = sidebar.item_at_cursor()
    local root = sidebar.state.root
    return { root = root, session = (item and item.session) or client.active_session(root), item = item }
  end
  local root = client.resolve_root(buf)
  local session = vim.b[buf].plansight_session
  return { root = root, session = type(session) == "string" and session or client.active_session(root) }
end

---@param ctx plansight.Context
---@return plansight.TodoState?
local function state_of(ctx)
  local conn = client.get(ctx.root)
  return conn and conn.states[ctx.session] or nil
end

---The task a command without text targets: the sidebar's task, else the current task.
---@param ctx plansight.Context
---@return plansight.Task?
local function default_task(ctx)
  if ctx.item then
    return ctx.item.task
  end
  local state = state_of(ctx)
  return state and protocol.value(state.current) or nil
end

---@param op "start"|"done"|"drop"
---@return fun(arg: string)
local function task_command(op)
  return function(arg)
    local ctx = context()
    if arg ~= "" then
      requests.apply_user(ctx.root, ctx.session, { { op = op, task = arg } })
      return
    end
    local task = default_task(ctx)
    if task then
      requests.apply_user(ctx.root, ctx.session, { { op = op, id = task.id } })
    elseif ctx.item and ctx.item.kind == "phase" and op ~= "start" then
      requests.apply_user(ctx.root, ctx.session, { { op = op, phase = ctx.item.phase } })
    else
      local msg = ("%s: name the task (:Plansight %s {task}) or put the cursor on it in the sidebar"):format(op, op)
      notify(msg, vim.log.levels.WARN)
    end
  end
end

---@param ctx plansight.Context
---@param text string?
local function add(ctx, text)
  -- The sidebar's phase when run from there; else the server decides where it goes.
  requests.append_user(ctx.root, ctx.session, ctx.item and ctx.item.phase or nil, text)
end

---Task contents of the active session, for completion.
---@return string[]
local function task_contents()
  local out = {}
  for _, task in ipairs(protocol.tasks(state_of(context()))) do
    out[#out + 1] = task.content
  end
  return out
end

---A subcommand that runs `fn(root, session)` on the context's session.
---@param fn fun(root: string, session: string)
---@return fun(arg: string)
local function on_session(fn)
  return function()
    local ctx = context()
    fn(ctx.root, ctx.session)
  end
end

---The sessions of `root`, most recently updated first.
---@param root string
---@return string[]
local function session_names(root)
  local names = {}
  for _, state in ipairs(client.states(root)) do
    names[#names + 1] = state.session
  end
  return names
end

---Makes `name` the session commands target.
---@param name string
local function select_session(name)
  client.selected_session = name
  notify(("commands now target session %q"):format(name))
  -- The sidebar follows it: its header shows (in the window bar when scrolled out).
  require("plansight.sidebar").schedule_render()
end

---@class plansight.Subcommand
---@field run fun(arg: string)
---@field args string? shown in the usage line
---@field desc string? what it does
---@field complete (fun(): string[])|"file"|nil candidates for the argument

---What each subcommand runs; which subcommands there are, their arguments and their
---descriptions come from the one list of actions (plansight/actions/init.lua).
---@type table<string, {run: fun(arg: string), complete: (fun(): string[])|"file"|nil}>
local runners = {
  toggle = {
    run = function()
      require("plansight.sidebar").toggle()
    end,
  },
  open = {
    run = function()
      require("plansight.sidebar").open()
    end,
  },
  close = {
    run = function()
      require("plansight.sidebar").close()
    end,
  },
  add = {
    run = function(arg)
      local ctx = context()
      if arg ~= "" then
        add(ctx, arg)
        return
      end
      vim.ui.input({ prompt = "New task: " }, function(text)
        add(ctx, text)
      end)
    end,
  },
  clear = {
    run = function()
      -- Asked first: a whole list goes at once, and the person may be on another session
      -- than the one they think. `u` then undoes it in that session: the sidebar's cursor
      -- stays in the cleared session (sidebar.lua keeps the nearest line of what it was on).
      local ctx = context()
      local state = state_of(ctx)
      local total = state and require("plansight.render").progress(state.progress).total or 0
      local prompt = ("Clear %s (%d %s)? u undoes it"):format(
        require("plansight.render").session_name(state, ctx.session),
        total,
        total == 1 and "task" or "tasks"
      )
      require("plansight.actions.ask").confirm(prompt, "Clear", function()
        requests.clear_user(ctx.root, ctx.session)
      end)
    end,
  },
  start = { run = task_command("start"), complete = task_contents },
  done = { run = task_command("done"), complete = task_contents },
  drop = { run = task_command("drop"), complete = task_contents },
  note = {
    run = function(arg)
      local ctx = context()
      local task = default_task(ctx)
      if not task then
        notify("note: no current task; put the cursor on a task in the sidebar", vim.log.levels.WARN)
        return
      end
      local function send(text)
        requests.note_user(ctx.root, ctx.session, task.id, text)
      end
      if arg ~= "" then
        send(arg)
      else
        vim.ui.input({ prompt = "Note: " }, send)
      end
    end,
  },
  edit = {
    run = on_session(function(root, session)
      require("plansight.edit").open(root, session)
    end),
  },
  export = {
    complete = "file",
    run = function(arg)
      if arg == "" then
        notify("export: give a file path (.json for JSON, else markdown)", vim.log.levels.WARN)
        return
      end
      local ctx = context()
      local path = vim.fs.normalize(arg)
      local format = path:match("%.json$") and "json" or "markdown"
      local params = { session = ctx.session, format = format }
      client.request(ctx.root, protocol.methods.export, params, function(err, result)
        if err then
          requests.report(err, nil, "export: ")
          return
        end
        local file, open_err = io.open(path, "wb")
        if not file then
          notify("export: " .. tostring(open_err), vim.log.levels.ERROR)
          return
        end
        file:write(result.text)
        file:close()
        notify(("exported %q to %s"):format(ctx.session, path))
      end)
    end,
  },
  session = {
    complete = function()
      return session_names(context().root)
    end,
    run = function(arg)
      if arg ~= "" then
        select_session(arg)
        return
      end
      local ctx = context()
      local names = session_names(ctx.root)
      if #names == 0 then
        notify(("current session: %q (no session on the server yet)"):format(ctx.session))
        return
      end
      vim.ui.select(names, { prompt = "Plansight session" }, function(choice)
        if choice then
          select_session(choice)
        end
      end)
    end,
  },
  history = {
    run = on_session(function(root, session)
      require("plansight.actions.history").pick(root, session)
    end),
  },
  undo = { run = on_session(requests.undo) },
  refresh = {
    run = function()
      requests.refresh(context().root)
    end,
  },
  restart = {
    run = function()
      require("plansight.client").restart(context().root)
    end,
  },
}

---@type table<string, plansight.Subcommand>
M.subcommands = {}
for _, action in ipairs(actions.list) do
  if action.command then
    local runner = assert(runners[action.command], "no code for :Plansight " .. action.command)
    M.subcommands[action.command] = {
      run = runner.run,
      complete = runner.complete,
      args = action.args,
      desc = action.desc,
    }
  end
end
for name in pairs(runners) do
  assert(M.subcommands[name], ":Plansight " .. name .. " is not in the list of actions")
end

---Runs `:Plansight {args}`; no subcommand toggles the sidebar.
---@param args string the raw text after the command name
function M.run(args)
  local name, rest = args:match("^%s*(%S+)%s?(.*)$")
  if not name then
    M.subcommands.toggle.run("")
    return
  end
  local sub = M.subcommands[name]
  if not sub then
    notify(("unknown subcommand %q; try one of: %s"):format(name, table.concat(M.names(), ", ")), vim.log.levels.ERROR)
    return
  end
  sub.run(vim.trim(rest or ""))
end

---@return string[]
function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

---Completion of `:Plansight`: subcommands, then task names, sessions or files.
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local after = cmdline:match("^%s*%S+%s+(.*)$")
  if not after or not after:find("%s") then
    return vim.tbl_filter(function(name)
      return vim.startswith(name, arglead)
    end, M.names())
  end
  local name, rest = after:match("^(%S+)%s+(.*)$")
  local sub = name and M.subcommands[name]
  if not sub or not sub.complete then
    return {}
  end
  if sub.complete == "file" then
    return vim.fn.getcompletion(arglead, "file")
  end
  -- Task names hold spaces: match on the whole argument, hand back from the last word on.
  local skip = #rest - #arglead
  local out = {}
  for _, candidate in ipairs(sub.complete()) do
    if vim.startswith(candidate, rest) then
      out[#out + 1] = candidate:sub(skip + 1)
    end
  end
  return out
end

---Creates `:Plansight` (again, harmlessly, when called twice).
function M.create()
  vim.api.nvim_create_user_command("Plansight", function(opts)
    M.run(opts.args)
  end, {
    nargs = "*",
    complete = M.complete,
    desc = "Plansight: show and steer the agent's plan",
  })
end

return M
