---Every action of the plugin, listed once: its name, its default sidebar key, what it does
---and the `:Plansight` subcommand that does it from anywhere. The config's default keys,
---the `g?` help and the subcommands all derive from this list.
---
---An action's code lives in the module of its job (tasks, notes, files, history, requests)
---and is loaded on first use: this list can be read by `config` before anything else loads.
local M = {}

---@alias plansight.ActionName
---| "toggle_fold" | "open" | "diff" | "start" | "done" | "drop" | "block" | "priority" | "edit_task" | "depends_on"
---| "undo" | "remove" | "add" | "note" | "edit_note" | "delete_note" | "edit" | "refresh" | "close" | "help"
---| "details" | "hide_finished" | "filter" | "toggle_done" | "add_subtask" | "move_up" | "move_down" | "indent" | "outdent"

---@class plansight.Action
---@field name string what a keymap value names (`["x"] = "done"`)
---@field key string? its default key in the sidebar
---@field desc string shown by `g?` and in the key's description
---@field callback fun()? the sidebar action (nil: a `:Plansight` subcommand only)
---@field command string? the `:Plansight` subcommand doing it (its code is in commands.lua)
---@field args string? the subcommand's argument, for its usage line

---`fn` of module `plansight.actions.<mod>`, loaded when the action first runs.
---@param mod string
---@param fn string
---@return fun()
local function lazy(mod, fn)
  return function()
    require("plansight.actions." .. mod)[fn]()
  end
end

---On a note line, the note's own action; elsewhere the task's.
---@param note_fn string
---@param task_fn string
---@return fun()
local function note_or_task(note_fn, task_fn)
  return function()
    require("plansight.actions.target").note_or(lazy("notes", note_fn), lazy("tasks", task_fn))()
  end
end

---A session-wide action: `fn(root, session)` of module `mod` on the session under the
---cursor, else the active one.
---@param mod string
---@param fn string
---@return fun()
local function on_session(mod, fn)
  return function()
    require("plansight.actions.target").on_session(require("plansight.actions." .. mod)[fn])()
  end
end

---@type plansight.Action[]
M.list = {
  { name = "toggle_fold", key = "za", desc = "Open or close the fold under the cursor", callback = lazy("files", "toggle_fold") },
  {
    name = "open",
    key = "<CR>",
    desc = "Open the file under the cursor (else open or close the fold)",
    callback = lazy("files", "open_at_cursor"),
  },
  { name = "diff", key = "gd", desc = "Diff the file under the cursor against HEAD", callback = lazy("files", "diff_at_cursor") },
  {
    name = "start",
    key = "s",
    desc = "Start the task under the cursor",
    callback = lazy("tasks", "start"),
    command = "start",
    args = "[task]",
  },
  {
    name = "done",
    key = "x",
    desc = "Complete the task (or phase) under the cursor",
    callback = lazy("tasks", "done"),
    command = "done",
    args = "[task]",
  },
  {
    name = "toggle_done",
    key = "<Space>",
    desc = "Complete the task under the cursor, or reopen it when completed",
    callback = lazy("tasks", "toggle_done"),
  },
  {
    name = "drop",
    key = "d",
    desc = "Abandon the task (or phase) under the cursor",
    callback = lazy("tasks", "drop"),
    command = "drop",
    args = "[task]",
  },
  {
    name = "block",
    key = "b",
    desc = "Block the task under the cursor (asks for an optional reason)",
    callback = lazy("tasks", "block"),
  },
  { name = "priority", key = "p", desc = "Set the priority of the task under the cursor", callback = lazy("tasks", "priority") },
  {
    name = "edit_task",
    key = "E",
    desc = "Edit the content and description of the task under the cursor; on a note, edit the note",
    callback = note_or_task("edit", "edit"),
  },
  {
    name = "depends_on",
    key = "gD",
    desc = "Choose a task the task under the cursor waits for (again to drop it)",
    callback = lazy("tasks", "depends_on"),
  },
  {
    name = "undo",
    key = "u",
    desc = "Undo the last change of the session (again: one more step back)",
    callback = on_session("requests", "undo"),
    command = "undo",
  },
  {
    name = "remove",
    key = "D",
    desc = "Remove the task under the cursor (asks when in progress or with notes); on a note, delete the note",
    callback = note_or_task("delete", "remove"),
  },
  {
    name = "add",
    key = "a",
    desc = "Add a task to the phase under the cursor",
    callback = lazy("tasks", "add"),
    command = "add",
    args = "{text}",
  },
  {
    name = "note",
    key = "n",
    desc = "Add a note to the task under the cursor",
    callback = lazy("tasks", "note"),
    command = "note",
    args = "{text}",
  },
  { name = "edit_note", desc = "Edit the note under the cursor", callback = lazy("notes", "edit") },
  { name = "delete_note", desc = "Delete the note under the cursor (u undoes it)", callback = lazy("notes", "delete") },
  {
    name = "edit",
    key = "e",
    desc = "Edit the plan as markdown (:w sends it)",
    callback = function()
      require("plansight.actions.target").on_session(require("plansight.edit").open)()
    end,
    command = "edit",
  },
  {
    name = "refresh",
    key = "r",
    desc = "Read every session again from the server",
    callback = function()
      local client = require("plansight.client")
      require("plansight.actions.requests").refresh(require("plansight.sidebar").state.root or client.resolve_root())
    end,
    command = "refresh",
  },
  {
    name = "close",
    key = "q",
    desc = "Close the sidebar",
    callback = function()
      require("plansight.sidebar").close()
    end,
    command = "close",
  },
  {
    name = "add_subtask",
    key = "A",
    desc = "Add a subtask to the task under the cursor",
    callback = lazy("tree", "add_subtask"),
  },
  { name = "move_up", key = "mk", desc = "Move the task up among its siblings", callback = lazy("tree", "move_up") },
  { name = "move_down", key = "mj", desc = "Move the task down among its siblings", callback = lazy("tree", "move_down") },
  {
    name = "indent",
    key = ">",
    desc = "Indent the task: it becomes the last subtask of the task above it",
    callback = lazy("tree", "indent"),
  },
  {
    name = "outdent",
    key = "<",
    desc = "Outdent the subtask: it goes right after its parent, one level up",
    callback = lazy("tree", "outdent"),
  },
  {
    name = "details",
    key = "K",
    desc = "Show the task's details in a float: description, notes, files, who did what",
    callback = lazy("details", "show"),
  },
  {
    name = "hide_finished",
    key = "H",
    desc = "Hide finished (completed and abandoned) tasks, or show them again",
    callback = lazy("view", "toggle_finished"),
  },
  {
    name = "filter",
    key = "f",
    desc = "Show only tasks matching a text, owner:NAME, priority:P or status:S (empty: all)",
    callback = lazy("view", "filter"),
  },
  { name = "help", key = "g?", desc = "Show these keys", callback = lazy("help", "show") },
  -- Subcommands only: they act on no item of the sidebar.
  { name = "toggle", desc = "Open or close the sidebar", command = "toggle" },
  { name = "open_sidebar", desc = "Open the sidebar", command = "open" },
  { name = "clear", desc = "Clear the session's list, after you confirm (u undoes it)", command = "clear" },
  { name = "export", desc = "Write the session to a file (.json for JSON, else markdown)", command = "export", args = "{path}" },
  { name = "session", desc = "Choose the session commands target", command = "session", args = "[name]" },
  { name = "history", desc = "List the session's changes; pick one to restore", command = "history" },
  { name = "restart", desc = "Stop the server and start it again", command = "restart" },
}

---@type table<string, plansight.Action>
M.by_name = {}
for _, action in ipairs(M.list) do
  M.by_name[action.name] = action
end

---The names a sidebar key can take, in the list's order.
---@return string[]
function M.names()
  local names = {}
  for _, action in ipairs(M.list) do
    if action.callback then
      names[#names + 1] = action.name
    end
  end
  return names
end

---The default sidebar keys: key -> action name.
---@return table<string, string>
function M.default_keys()
  local keys = {}
  for _, action in ipairs(M.list) do
    if action.key then
      keys[action.key] = action.name
    end
  end
  return keys
end

return M
