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
---@param prefix string? put before an error's text (what failed)
function M.report(err, result, prefix)
  if err then
    if not err.reported then
      notify((prefix or "") .. protocol.error_text(err), vim.log.levels.ERROR)
    end
  elseif type(result) == "table" and result.isError and type(result.errors) == "table" then
    notify(table.concat(result.errors, "\n"), vim.log.levels.WARN)
  end
end

---Sends a change request as the person's edit (`origin = "user"`), reports its answer,
---then calls `cb` with it.
---@param root string
---@param method string one of `protocol.methods`
---@param params table
---@param cb fun(err: plansight.ResponseError?, result: table?)?
local function request_user(root, method, params, cb)
  params.origin = "user"
  client.request(root, method, params, function(err, result)
    M.report(err, result)
    if cb then
      cb(err, result)
    end
  end)
end

---Sends `ops` as a person's edit of `session`.
---@param root string
---@param session string
---@param ops table[]
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.apply_user(root, session, ops, cb)
  request_user(root, protocol.methods.apply, { session = session, ops = ops }, cb)
end

---Adds a task named `text` (trimmed; nothing when blank) to `phase`; without one the server
---puts it where new work goes (the phase of the task in progress, else the last phase): the
---shim keeps no rule of its own.
---@param root string
---@param session string
---@param phase string?
---@param text string?
function M.append_user(root, session, phase, text)
  text = text and vim.trim(text) or ""
  if text ~= "" then
    M.apply_user(root, session, { { op = "append", phase = phase, items = { text } } })
  end
end

---Adds the note `text` to task `id` (nothing when blank; the note is sent as typed).
---@param root string
---@param session string
---@param id string
---@param text string?
function M.note_user(root, session, id, text)
  if text and vim.trim(text) ~= "" then
    M.apply_user(root, session, { { op = "note", id = id, text = text } })
  end
end

---Clears `session` as a person's edit.
---@param root string
---@param session string
---@param cb fun(err: plansight.ResponseError?, result: table?)?
function M.clear_user(root, session, cb)
  request_user(root, protocol.methods.clear, { session = session }, cb)
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

local TASK = { task = true, note = true, description = true, file = true }
local TASK_OR_PHASE = { task = true, note = true, description = true, file = true, phase = true }

---An action on the sidebar item under the cursor: `fn(item, root)` runs when the item is of
---one of `kinds`, else the person is told what to put the cursor on.
---@param kinds table<string, boolean>
---@param what string
---@param fn fun(item: plansight.RenderItem, root: string)
---@return fun()
local function on_item(kinds, what, fn)
  return function()
    local item, root = target(kinds, what)
    if item and root then
      fn(item, root)
    end
  end
end

---An action on the task under the cursor (or on its description, notes and files).
---@param fn fun(item: plansight.RenderItem, root: string, task: plansight.Task)
---@return fun()
local function on_task(fn)
  return on_item(TASK, "a task", function(item, root)
    fn(item, root, item.task --[[@as plansight.Task]])
  end)
end

---The task's notes as the plan holds them now, the index of the note `text` (at `index`
---if it is still there, else wherever it is now) and the plan's version; nil when the task
---or the note is gone.
---@param root string
---@param item plansight.RenderItem
---@param index integer
---@param text string
---@return string[]?, integer?, integer?
local function notes_now(root, item, index, text)
  local conn = client.get(root)
  local state = conn and conn.states[item.session]
  for _, t in ipairs(protocol.tasks(state)) do
    if t.id == item.task.id then
      local notes = vim.deepcopy(protocol.value(t.notes) or {})
      if notes[index] ~= text then
        index = nil
        for i, note in ipairs(notes) do
          if note == text and not index then
            index = i
          end
        end
      end
      if index then
        return notes, index, state.version
      end
    end
  end
  return nil
end

---The note line under the cursor: its item, root, index and text, or nil with a message.
---@return plansight.RenderItem?, string?, integer?, string?
local function note_target()
  local item, root = target({ note = true }, "a note")
  if not item or not root or not item.note then
    return nil
  end
  local notes = protocol.value(item.task.notes) or {}
  local text = notes[item.note]
  if text == nil or not notes_now(root, item, item.note, text) then
    notify("that note changed meanwhile; nothing was done", vim.log.levels.WARN)
    return nil
  end
  return item, root, item.note, text
end

---Sends the task's notes with the note `text` replaced by `new` (nil: deleted), read from
---the plan as it is when sent and with its version as `baseVersion`: a note the agent added
---meanwhile is never lost (a plan that changed under it is refused, and said).
---@param item plansight.RenderItem
---@param root string
---@param index integer
---@param text string
---@param new string?
---@param on_done fun()?
local function send_notes(item, root, index, text, new, on_done)
  local notes, at, version = notes_now(root, item, index, text)
  if not notes or not at then
    notify("that note changed meanwhile; nothing was done", vim.log.levels.WARN)
    return
  end
  if new == nil then
    table.remove(notes, at)
  else
    notes[at] = new
  end
  -- An empty Lua table goes out as an empty JSON array: no notes.
  local op = { op = "update", id = item.task.id, notes = notes }
  local params = { session = item.session, ops = { op }, baseVersion = version }
  request_user(root, protocol.methods.apply, params, function(err, result)
    if not err and type(result) == "table" and result.changed and on_done then
      on_done()
    end
  end)
end

---Edits the note under the cursor (`update` with the task's `notes`, that one replaced). A
---line break is typed as `\n`.
function M.edit_note()
  local item, root, index, old = note_target()
  if not item or not root or not index or not old then
    return
  end
  vim.ui.input({ prompt = "Note: ", default = (old:gsub("\n", "\\n")) }, function(text)
    if text == nil then
      return
    end
    text = text:gsub("\\n", "\n")
    if vim.trim(text) == "" then
      notify("an empty note is not kept: delete it instead (D)", vim.log.levels.WARN)
      return
    end
    if text ~= old then
      send_notes(item, root, index, old, text)
    end
  end)
end

---Deletes the note under the cursor (`u` brings it back).
function M.delete_note()
  local item, root, index, old = note_target()
  if item and root and index and old then
    send_notes(item, root, index, old, nil, function()
      notify("deleted the note (u undoes it)")
    end)
  end
end

---On a note line, the note's own action; elsewhere `fallback` (E and D act on what the cursor shows).
---@param note_action fun()
---@param fallback fun()
---@return fun()
local function note_or(note_action, fallback)
  return function()
    local item = require("plansight.sidebar").item_at_cursor()
    if item and item.kind == "note" then
      note_action()
    else
      fallback()
    end
  end
end

---Sends one op as the person's edit of the item's session.
---@param item plansight.RenderItem
---@param root string
---@param op table
local function send(item, root, op)
  M.apply_user(root, item.session --[[@as string]], { op })
end

---@param status_op "done"|"drop"
---@return fun()
local function finish(status_op)
  return on_item(TASK_OR_PHASE, "a task or a phase", function(item, root)
    if item.task then
      send(item, root, { op = status_op, id = item.task.id })
    else
      send(item, root, { op = status_op, phase = item.phase })
    end
  end)
end

---Opens or closes the fold under the cursor (no fold there is not worth an error message).
local function toggle_fold()
  pcall(vim.cmd, "normal! za")
end

---Opens `path` (relative to `root`) in the window the sidebar was entered from, or in a
---new split when the sidebar is alone; returns the window.
---@param root string
---@param path string
---@return integer win
local function open_file(root, path)
  local sidebar = require("plansight.sidebar")
  -- Paths are workspace-relative; an absolute one (from an agent outside the root) stays.
  local full = vim.startswith(path, "/") and path or vim.fs.joinpath(root, path)
  local win
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and prev ~= sidebar.state.win and vim.api.nvim_win_is_valid(prev) then
    win = prev
  else
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if w ~= sidebar.state.win and vim.api.nvim_win_get_config(w).relative == "" then
        win = w
        break
      end
    end
  end
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("leftabove vsplit")
  end
  vim.cmd.edit(vim.fn.fnameescape(full))
  return vim.api.nvim_get_current_win()
end

---Shows `path` against its `HEAD` version: `:Gvdiffsplit` when fugitive is there, else
---`git show HEAD:path` in a scratch buffer beside it, both in diff mode.
---@param root string
---@param path string
local function diff_file(root, path)
  open_file(root, path)
  if vim.fn.exists(":Gvdiffsplit") == 2 then
    vim.cmd("Gvdiffsplit")
    return
  end
  -- `HEAD:./path` reads the path from `root`, even when the repository's top is above it.
  local res = vim.system({ "git", "-C", root, "show", "HEAD:./" .. path }, { text = true }):wait()
  local head
  if res.code == 0 then
    head = vim.split(res.stdout or "", "\n", { plain = true })
    if head[#head] == "" then
      head[#head] = nil
    end
  else
    -- Not in HEAD: a new file (every line is added), unless this is no repository at all.
    local inside = vim.system({ "git", "-C", root, "rev-parse", "--verify", "HEAD" }, { text = true }):wait()
    if inside.code ~= 0 then
      notify(("no git history to compare %s with"):format(path), vim.log.levels.WARN)
      return
    end
    head = {}
  end
  local file_win = vim.api.nvim_get_current_win()
  local ft = vim.bo.filetype
  vim.cmd("diffthis")
  vim.cmd("leftabove vnew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, head)
  for name, value in pairs({ buftype = "nofile", bufhidden = "wipe", swapfile = false, modifiable = false }) do
    vim.api.nvim_set_option_value(name, value, { buf = buf })
  end
  vim.bo[buf].filetype = ft
  pcall(vim.api.nvim_buf_set_name, buf, "plansight://HEAD/" .. path)
  vim.cmd("diffthis")
  -- Closing the HEAD side ends the diff in the file's window too.
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      if vim.api.nvim_win_is_valid(file_win) then
        vim.api.nvim_win_call(file_win, function()
          vim.cmd("diffoff")
        end)
      end
    end,
  })
  vim.api.nvim_set_current_win(file_win)
end

---A yes/no question through `vim.ui.select`; `on_yes` runs only on the first choice.
---@param prompt string
---@param yes string
---@param on_yes fun()
local function confirm(prompt, yes, on_yes)
  vim.ui.select({ yes, "Cancel" }, { prompt = prompt }, function(choice)
    if choice == yes then
      on_yes()
    end
  end)
end
M.confirm = confirm

---The session's tasks in phase and task order.
---@param root string
---@param session string
---@return plansight.Task[]
local function session_tasks(root, session)
  local conn = client.get(root)
  return protocol.tasks(conn and conn.states[session])
end

---Reads the history of `session` (newest first, at most `limit` events when given);
---`cb(events)` runs only on an answer, an error is reported.
---@param root string
---@param session string
---@param limit integer?
---@param cb fun(events: plansight.HistoryEvent[])
local function read_history(root, session, limit, cb)
  client.request(root, protocol.methods.history, { session = session, limit = limit }, function(err, result)
    if err then
      M.report(err, nil)
      return
    end
    cb(type(result) == "table" and result.events or {})
  end)
end

---Restores `session` to `version` as the person's edit; `on_done` runs when it went through.
---@param root string
---@param session string
---@param version integer
---@param on_done fun()?
local function restore_user(root, session, version, on_done)
  request_user(root, protocol.methods.restore, { session = session, version = version }, function(err)
    if not err and on_done then
      on_done()
    end
  end)
end

---Steps `session` back one change (`plansight/undo`), as the person: again steps back one
---more; says what the undo did, in the server's words. "Nothing to undo" is reported as
---any skipped change is.
---@param root string
---@param session string
---@param on_done fun()? runs once the undo went through
function M.undo(root, session, on_done)
  request_user(root, protocol.methods.undo, { session = session }, function(err, result)
    if err or type(result) ~= "table" or not result.changed then
      return
    end
    -- A few: another change may already have followed this one.
    read_history(root, session, 5, function(events)
      local changes = {}
      for _, event in ipairs(events) do
        if event.version == result.version then
          changes = protocol.value(event.changes) or {}
        end
      end
      notify(#changes > 0 and ("undo: " .. table.concat(changes, "; ")) or "undo: stepped back one change")
      if on_done then
        on_done()
      end
    end)
  end)
end

---A change's kind in a person's words (history lists these, never a method name).
local CHANGE_WORDS = {
  [protocol.methods.apply] = "edit",
  [protocol.methods.write] = "whole list written",
  ["plansight/ingest"] = "plan sent by the agent",
  [protocol.methods.clear] = "list cleared",
  [protocol.methods.import] = "edited as markdown",
  [protocol.methods.restore] = "earlier version restored",
  [protocol.methods.undo] = "undo",
}

---One line of the history list: version, time, who, what kind, what changed.
---@param e plansight.HistoryEvent
---@return string
function M.history_line(e)
  local changes = table.concat(protocol.value(e.changes) or {}, "; ")
  local kind = CHANGE_WORDS[e.method] or tostring(e.method or ""):gsub("^plansight/", "")
  local who = e.origin == "user" and "you" or "agent"
  local at = tostring(e.at or ""):gsub("^%d+%-%d+%-%d+T", ""):gsub("%.%d+Z$", "")
  return ("v%d  %s  %s  %s%s"):format(e.version, at, who, kind, changes ~= "" and (": " .. changes) or "")
end

---Lists the history of `session` with `vim.ui.select`, newest first; the entry picked is
---restored after a confirmation, as the person.
---@param root string
---@param session string
function M.history(root, session)
  read_history(root, session, nil, function(events)
    if #events == 0 then
      notify(("no history for %q yet"):format(session), vim.log.levels.WARN)
      return
    end
    vim.ui.select(events, {
      prompt = ("History of %s (pick a version to restore)"):format(session),
      format_item = M.history_line,
    }, function(event)
      if not event then
        return
      end
      confirm(("Restore %q to version %d? (u undoes it)"):format(session, event.version), "Restore", function()
        restore_user(root, session, event.version)
      end)
    end)
  end)
end

---The session an action without a task target works on.
---@return string session, string root
local function current_session()
  local sidebar = require("plansight.sidebar")
  local item = sidebar.item_at_cursor()
  local root = sidebar.state.root or client.resolve_root()
  return (item and item.session) or client.active_session(root), root
end

---An action on the session under the cursor (else the active one): `fn(root, session)`.
---@param fn fun(root: string, session: string)
---@return fun()
local function on_session(fn)
  return function()
    local session, root = current_session()
    fn(root, session)
  end
end

---Reads every session of `root` again from the server and draws the sidebar.
---@param root string
function M.refresh(root)
  client.ensure(root)
  client.refresh(root)
  require("plansight.sidebar").render()
end

---Why removing `task` asks first (in progress, notes), or nil when it need not ask.
---@param task plansight.Task
---@return string?
local function removal_risk(task)
  local why = {}
  if task.status == "in_progress" then
    why[#why + 1] = "in progress"
  end
  local notes = #(protocol.value(task.notes) or {})
  if notes > 0 then
    why[#why + 1] = notes == 1 and "1 note" or (notes .. " notes")
  end
  return #why > 0 and table.concat(why, ", ") or nil
end

---The `blockedBy` of `task` after picking `choice`: an id it waits for is dropped, another
---is added, `false` (wait for nothing) empties it.
---@param deps string[]
---@param has table<string, boolean>
---@param choice string|false
---@return string[]
local function toggled_deps(deps, has, choice)
  local new = {}
  if choice then
    for _, id in ipairs(deps) do
      if id ~= choice then
        new[#new + 1] = id
      end
    end
    if not has[choice] then
      new[#new + 1] = choice
    end
  end
  return new
end

---@type table<plansight.ActionName, plansight.Action>
M.actions = {
  toggle_fold = {
    desc = "Open or close the fold under the cursor",
    callback = toggle_fold,
  },
  start = {
    desc = "Start the task under the cursor",
    callback = on_task(function(item, root, task)
      send(item, root, { op = "start", id = task.id })
    end),
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
    desc = "Remove the task under the cursor (asks when in progress or with notes); on a note, delete the note",
    callback = note_or(function()
      M.delete_note()
    end, on_task(function(item, root, task)
      local function rm()
        send(item, root, { op = "rm", id = task.id })
      end
      local why = removal_risk(task)
      if not why then
        rm()
        return
      end
      confirm(("Remove %q (%s)? u undoes it"):format(task.content, why), "Remove", rm)
    end)),
  },
  open = {
    desc = "Open the file under the cursor (else open or close the fold)",
    callback = function()
      local sidebar = require("plansight.sidebar")
      local item = sidebar.item_at_cursor()
      if item and item.kind == "file" and item.file then
        open_file(sidebar.state.root, item.file)
      else
        toggle_fold()
      end
    end,
  },
  diff = {
    desc = "Diff the file under the cursor against HEAD",
    callback = on_item({ file = true }, "a file of a task", function(item, root)
      if item.file then
        diff_file(root, item.file)
      end
    end),
  },
  block = {
    desc = "Block the task under the cursor (asks for an optional reason)",
    callback = on_task(function(item, root, task)
      vim.ui.input({ prompt = "Blocked because (optional): " }, function(text)
        if text == nil then
          return
        end
        local op = { op = "block", id = task.id }
        if vim.trim(text) ~= "" then
          op.reason = text
        end
        send(item, root, op)
      end)
    end),
  },
  priority = {
    desc = "Set the priority of the task under the cursor",
    callback = on_task(function(item, root, task)
      local choices = vim.list_extend(vim.deepcopy(protocol.PRIORITIES), { "none" })
      local prompt = ("Priority of %q"):format(task.content)
      vim.ui.select(choices, { prompt = prompt }, function(choice)
        if choice then
          local value = choice == "none" and vim.NIL or choice
          send(item, root, { op = "update", id = task.id, priority = value })
        end
      end)
    end),
  },
  edit_task = {
    desc = "Edit the content and description of the task under the cursor; on a note, edit the note",
    callback = note_or(function()
      M.edit_note()
    end, on_task(function(item, root, task)
      vim.ui.input({ prompt = "Task: ", default = task.content }, function(content)
        if content == nil then
          return
        end
        local old_description = protocol.value(task.description) or ""
        vim.ui.input({ prompt = "Description: ", default = old_description }, function(description)
          if description == nil then
            return
          end
          local op = { op = "update", id = task.id }
          if vim.trim(content) ~= task.content then
            op.content = content
          end
          if description ~= old_description then
            op.description = description
          end
          if op.content or op.description then
            send(item, root, op)
          end
        end)
      end)
    end)),
  },
  edit_note = {
    desc = "Edit the note under the cursor",
    callback = function()
      M.edit_note()
    end,
  },
  delete_note = {
    desc = "Delete the note under the cursor (u undoes it)",
    callback = function()
      M.delete_note()
    end,
  },
  depends_on = {
    desc = "Choose a task the task under the cursor waits for (again to drop it)",
    callback = on_task(function(item, root, task)
      local deps = protocol.value(task.blockedBy) or {}
      local has = {}
      for _, id in ipairs(deps) do
        has[id] = true
      end
      local choices = {}
      for _, other in ipairs(session_tasks(root, item.session --[[@as string]])) do
        if other.id ~= task.id then
          choices[#choices + 1] = other
        end
      end
      if #deps > 0 then
        choices[#choices + 1] = { id = false, content = "Wait for nothing" }
      end
      if #choices == 0 then
        notify("no other task in this session", vim.log.levels.WARN)
        return
      end
      vim.ui.select(choices, {
        prompt = ("%q waits for"):format(task.content),
        format_item = function(other)
          if not other.id then
            return other.content
          end
          return (has[other.id] and "✓ " or "  ") .. other.content
        end,
      }, function(choice)
        if choice then
          -- An empty Lua table goes out as an empty JSON array: no dependencies.
          send(item, root, { op = "update", id = task.id, blockedBy = toggled_deps(deps, has, choice.id) })
        end
      end)
    end),
  },
  undo = {
    desc = "Undo the last change of the session (again: one more step back)",
    callback = on_session(function(root, session)
      M.undo(root, session)
    end),
  },
  add = {
    desc = "Add a task to the phase under the cursor",
    callback = function()
      local sidebar = require("plansight.sidebar")
      local item = sidebar.item_at_cursor()
      local session, root = current_session()
      -- Without a phase under the cursor the server decides where the task goes.
      local phase = item and item.phase
      local prompt = phase and ("New task in %s: "):format(phase) or "New task: "
      vim.ui.input({ prompt = prompt }, function(text)
        M.append_user(root, session, phase, text)
      end)
    end,
  },
  note = {
    desc = "Add a note to the task under the cursor",
    callback = on_task(function(item, root, task)
      vim.ui.input({ prompt = "Note: " }, function(text)
        M.note_user(root, item.session --[[@as string]], task.id, text)
      end)
    end),
  },
  edit = {
    desc = "Edit the plan as markdown (:w sends it)",
    callback = on_session(function(root, session)
      require("plansight.edit").open(root, session)
    end),
  },
  refresh = {
    desc = "Read every session again from the server",
    callback = function()
      M.refresh(require("plansight.sidebar").state.root or client.resolve_root())
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
