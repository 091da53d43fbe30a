---Named sidebar actions, each `{ desc, callback }`, and the requests a person's edit sends.
---
---Every change made here goes to the server with `origin = "user"`, so the agent is told
---what the user changed.
local client = require("plansight.client")
local config = require("plansight.config")
local protocol = require("plansight.protocol")

local M = {}

---@class plansight.Action
---@field desc string
---@field callback fun()

local notify = require("plansight.notify")

---Reports an answer: an error as an error, skipped operations (`errors`) as a warning.
---@param err plansight.ResponseError?
---@param result table?
function M.report(err, result)
  if err then
    if not err.reported then
      notify(protocol.error_text(err), vim.log.levels.ERROR)
    end
  elseif type(result) == "table" and result.isError and type(result.errors) == "table" then
    notify(table.concat(result.errors, "\n"), vim.log.levels.WARN)
  end
end

---Sends `ops` as a person's edit of `session`.
---@param root string
---@param session string
---@param ops table[]
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.apply_user(root, session, ops, cb)
  local params = { session = session, ops = ops, origin = "user" }
  client.request(root, protocol.methods.apply, params, function(err, result)
    M.report(err, result)
    if cb then
      cb(err, result)
    end
  end)
end

---Clears `session` as a person's edit.
---@param root string
---@param session string
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.clear_user(root, session, cb)
  client.request(root, protocol.methods.clear, { session = session, origin = "user" }, function(err, result)
    M.report(err, result)
    if cb then
      cb(err, result)
    end
  end)
end

---The sidebar item under the cursor, with its root, or nil with a message.
---@param kinds table<string, boolean> the item kinds the action works on
---@param what string what to put the cursor on, for the message
---@return plansight.RenderItem?, string?
local function target(kinds, what)
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  if not item or not kinds[item.kind] then
    notify("put the cursor on " .. what, vim.log.levels.WARN)
    return nil, nil
  end
  return item, sidebar.state.root
end

local TASK = { task = true, note = true }
local TASK_OR_PHASE = { task = true, note = true, phase = true }

---@param status_op "done"|"drop"
---@return fun()
local function finish(status_op)
  return function()
    local item, root = target(TASK_OR_PHASE, "a task or a phase")
    if not item or not root then
      return
    end
    if item.task then
      M.apply_user(root, item.session, { { op = status_op, id = item.task.id } })
    else
      M.apply_user(root, item.session, { { op = status_op, phase = item.phase } })
    end
  end
end

---An action on the task under the cursor: one op naming it by id.
---@param op "start"|"rm"
---@return fun()
local function on_task(op)
  return function()
    local item, root = target(TASK, "a task")
    if item and root then
      M.apply_user(root, item.session, { { op = op, id = item.task.id } })
    end
  end
end

---The session an action without a task target works on.
---@return string session, string root
local function current_session()
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  local root = sidebar.state.root or client.resolve_root()
  return (item and item.session) or client.active_session(root), root
end

---@type table<plansight.ActionName, plansight.Action>
M.actions = {
  toggle_fold = {
    desc = "Open or close the fold under the cursor",
    callback = function()
      -- No fold under the cursor is not worth an error message.
      pcall(vim.cmd, "normal! za")
    end,
  },
  start = {
    desc = "Start the task under the cursor",
    callback = on_task("start"),
  },
  done = {
    desc = "Complete the task (or phase) under the cursor",
    callback = finish("done"),
  },
  drop = {
    desc = "Abandon the task (or phase) under the cursor",
    callback = finish("drop"),
  },
  remove = {
    desc = "Remove the task under the cursor",
    callback = on_task("rm"),
  },
  add = {
    desc = "Add a task to the phase under the cursor",
    callback = function()
      local sidebar = require("plansight.sidebar")
      local item = sidebar.item_at_cursor()
      local session, root = current_session()
      local phase = item and item.phase
      if not phase then
        local state = client.get(root) and client.get(root).states[session]
        local phases = state and state.phases or {}
        phase = phases[#phases] and phases[#phases].name or "Todos"
      end
      vim.ui.input({ prompt = ("New task in %s: "):format(phase) }, function(text)
        text = text and vim.trim(text) or ""
        if text ~= "" then
          M.apply_user(root, session, { { op = "append", phase = phase, items = { text } } })
        end
      end)
    end,
  },
  note = {
    desc = "Add a note to the task under the cursor",
    callback = function()
      local item, root = target(TASK, "a task")
      if not item or not root then
        return
      end
      vim.ui.input({ prompt = "Note: " }, function(text)
        if text and vim.trim(text) ~= "" then
          M.apply_user(root, item.session, { { op = "note", id = item.task.id, text = text } })
        end
      end)
    end,
  },
  edit = {
    desc = "Edit the plan as markdown (:w sends it)",
    callback = function()
      local session, root = current_session()
      require("plansight.edit").open(root, session)
    end,
  },
  refresh = {
    desc = "Read every session again from the server",
    callback = function()
      local sidebar = require("plansight.sidebar")
      local root = sidebar.state.root or client.resolve_root()
      client.ensure(root)
      client.refresh(root)
      sidebar.render()
    end,
  },
  close = {
    desc = "Close the sidebar",
    callback = function()
      require("plansight.sidebar").close()
    end,
  },
  help = {
    desc = "Show these keys",
    callback = function()
      M.show_help()
    end,
  },
}

---Resolves a keymap value of the config to a callback and a description.
---@param value plansight.ActionName|fun()|plansight.Keymap
---@return fun()?, string?
function M.resolve(value)
  if type(value) == "string" then
    local action = M.actions[value]
    return action and action.callback, action and action.desc
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

---A floating window listing the sidebar keys; any of q, <Esc>, g? closes it.
function M.show_help()
  local keys = M.key_list()
  local width = 0
  for _, k in ipairs(keys) do
    width = math.max(width, vim.fn.strdisplaywidth(k.lhs))
  end
  local lines = {}
  for _, k in ipairs(keys) do
    lines[#lines + 1] = (" %-" .. width .. "s  %s "):format(k.lhs, k.desc)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local w = 0
  for _, l in ipairs(lines) do
    w = math.max(w, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - #lines) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - w) / 2)),
    width = math.max(w, 10),
    height = math.max(#lines, 1),
    style = "minimal",
    border = "rounded",
    title = " Plansight keys ",
    title_pos = "center",
  })
  for _, lhs in ipairs({ "q", "<Esc>", "g?" }) do
    vim.keymap.set("n", lhs, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = buf, nowait = true, desc = "Close the help" })
  end
  vim.api.nvim_create_autocmd("BufLeave", {
    buffer = buf,
    once = true,
    callback = function()
      pcall(vim.api.nvim_win_close, win, true)
    end,
  })
end

return M
