---Plansight for Neovim: the plan of every agent of the workspace, in a sidebar.
---
---This module is the public face: `setup`, the Lua API for agent plugins and the
---statusline component. It holds no plan rules: the server does.
local client = require("plansight.client")
local config = require("plansight.config")
local protocol = require("plansight.protocol")

local M = {}

local wired = false
local autostarted = false

local notify = require("plansight.notify")

---Connects the pieces once: command, highlights, live redraws, auto-open.
local function wire()
  if wired then
    return
  end
  wired = true
  local sidebar = require("plansight.sidebar")
  require("plansight.commands").create()
  sidebar.define_highlights()
  local group = vim.api.nvim_create_augroup("plansight", { clear = true })
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = group,
    callback = sidebar.define_highlights,
  })
  client.watch(function(root)
    if sidebar.state.root == root then
      sidebar.schedule_render()
    end
    require("plansight.edit").on_root_change(root)
  end)
  client.on_change(function(state, event)
    -- Only a live change opens the sidebar, never reading what was already there.
    if
      config.options.auto_open
      and event.origin ~= nil
      and not sidebar.state.opened_once
      and state.progress
      and state.progress.total > 0
    then
      vim.schedule(function()
        if not sidebar.state.opened_once then
          sidebar.open({ focus = false, root = event.root })
        end
      end)
    end
    vim.schedule(function()
      pcall(vim.api.nvim_exec_autocmds, "User", {
        pattern = "PlansightChanged",
        modeline = false,
        data = { state = state, root = event.root, origin = event.origin },
      })
      -- Without a UI there is nothing to redraw (and Neovim 0.11 headless can crash on it).
      if #vim.api.nvim_list_uis() > 0 then
        vim.cmd("redrawstatus!")
      end
    end)
  end)
end

---Starts the server in the background when the workspace already has a store, so the
---sidebar can open on the first live change.
local function autostart()
  if autostarted then
    return
  end
  autostarted = true
  local function go()
    local root = client.resolve_root()
    if not require("plansight.locate").find(config.options.cmd[1]) then
      return
    end
    -- The server says where the store is (a short CLI run, in the background).
    client.store_path(root, function(path)
      if path and vim.uv.fs_stat(path) then
        client.ensure(root)
      end
    end)
  end
  if vim.v.vim_did_enter == 1 then
    vim.schedule(go)
  else
    vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = go })
  end
end

---Merges `opts` over the defaults (see `:help plansight-config`).
---@param opts plansight.Config|table|nil
function M.setup(opts)
  local _, errors = config.setup(opts)
  if #errors > 0 then
    notify("invalid options (defaults used):\n" .. table.concat(errors, "\n"), vim.log.levels.WARN)
  end
  wire()
  client.push_settings()
  if config.options.auto_open then
    autostart()
  end
end

---Makes sure the plugin is wired even without `setup()` (plugin/plansight.lua calls this).
function M._load()
  wire()
end

---@class plansight.RequestOpts
---@field session string? default "default" (the server's default)
---@field origin "agent"|"user"|nil default "agent"
---@field baseVersion integer? refuse with ContentModified (-32801) unless the plan is at this version
---@field root string? workspace root, default the current buffer's

---@param opts plansight.RequestOpts?
---@param params table
---@return string root, table params
local function request_params(opts, params)
  opts = opts or {}
  params.session = opts.session
  params.origin = opts.origin
  params.baseVersion = opts.baseVersion
  return opts.root or client.resolve_root(), params
end

---@param cb fun(err: plansight.ResponseError?, result: any)?
local function callback(cb)
  return cb or function(err, result)
    require("plansight.actions.requests").report(err, result)
  end
end

---Runs operations (`plansight/apply`): `{ { op = "init", list = {...} }, { op = "done", task = "..." } }`.
---@param ops table[]
---@param opts plansight.RequestOpts?
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.apply(ops, opts, cb)
  local root, params = request_params(opts, { ops = ops })
  client.request(root, protocol.methods.apply, params, callback(cb))
end

---Replaces the list (`plansight/write`, the shape of a TodoWrite tool call).
---@param todos table[] `{ content, activeForm, status, phase?, notes? }`
---@param opts plansight.RequestOpts?
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.write(todos, opts, cb)
  local root, params = request_params(opts, { todos = todos })
  client.request(root, protocol.methods.write, params, callback(cb))
end

---The plan of a session (`plansight/get`). Without `cb`, returns the cached state (or nil).
---@param opts plansight.RequestOpts?
---@param cb fun(err: plansight.ResponseError?, state: plansight.TodoState?)?
---@return plansight.TodoState?
function M.get(opts, cb)
  opts = opts or {}
  local root = opts.root or client.resolve_root()
  local session = opts.session or protocol.DEFAULT_SESSION
  if not cb then
    local conn = client.get(root)
    return conn and conn.states[session] or nil
  end
  client.request(root, protocol.methods.get, { session = session }, cb)
end

---What an agent's loop injects into its next prompt (`plansight/context`).
---@param opts plansight.RequestOpts?
---@param cb fun(err: plansight.ResponseError?, result: {text: string, reminder: boolean}?)
function M.context(opts, cb)
  opts = opts or {}
  local root = opts.root or client.resolve_root()
  client.request(root, protocol.methods.context, { session = opts.session or protocol.DEFAULT_SESSION }, cb)
end

---Calls `fn(state, event)` on every change of any session; returns a function that stops it.
---`event` is `{ root, origin, completedTasks }`.
---@param fn fun(state: plansight.TodoState, event: plansight.ChangeEvent)
---@return fun() unsubscribe
function M.on_change(fn)
  return client.on_change(fn)
end

---@class plansight.StatuslineOpts
---@field session string? default: the session commands target
---@field max_width integer? cut the task text to this many cells (default 40)
---@field escape boolean? double `%` for use in 'statusline' (default true)

---The current task and progress, e.g. `● Running tests 3/8`; "" when there is no plan.
---Reads the cache only: it never starts the server or blocks.
---@param opts plansight.StatuslineOpts?
---@return string
function M.statusline(opts)
  opts = opts or {}
  local root = client.last_root
  local conn = root and client.get(root)
  if not conn then
    return ""
  end
  local state = conn.states[opts.session or client.active_session(root)]
  local progress = state and state.progress
  if not progress or progress.total == 0 then
    return ""
  end
  local icons = config.options.icons
  local count = ("%d/%d"):format(progress.completed, progress.total)
  local current = protocol.value(state.current)
  local text
  if current then
    local render = require("plansight.render")
    local label = render.fit_name(render.task_text(current), opts.max_width or 40)
    text = ("%s %s %s"):format(icons.in_progress, label, count)
  elseif protocol.remaining(progress) == 0 then
    text = ("%s %s"):format(icons.completed, count)
  else
    text = ("%s %s"):format(icons.pending, count)
  end
  if opts.escape ~= false then
    text = text:gsub("%%", "%%%%")
  end
  return text
end

---Opens the sidebar. `opts.focus` overrides `sidebar.focus`.
---@param opts {focus: boolean?, root: string?}?
function M.open(opts)
  require("plansight.sidebar").open(opts)
end

function M.close()
  require("plansight.sidebar").close()
end

---@param opts {focus: boolean?, root: string?}?
function M.toggle(opts)
  require("plansight.sidebar").toggle(opts)
end

return M
