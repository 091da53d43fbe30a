---Turns plan states into the sidebar's lines, highlights and folds.
---
---`render.view` is a pure function of its arguments (no buffer, no window, no server), so
---tests check it on fixture states. `sidebar.lua` writes the result into the buffer.
local agents = require("plansight.agents")
local checkout = require("plansight.checkout")
local protocol = require("plansight.protocol")

local M = {}

---@alias plansight.ItemKind "session"|"phase"|"task"|"description"|"note"|"file"|"message"|"blank"

---@class plansight.RenderItem
---@field kind plansight.ItemKind
---@field key string? identity that survives re-renders (cursor and folds follow it)
---@field session string?
---@field phase string?
---@field task plansight.Task?
---@field file string? a file the task touched (workspace-relative), on a "file" line
---@field note integer? which of the task's notes (1-based), on a "note" line
---@field current true? on the line of the session's current task (the server's `current`)
---@field marker_col integer? byte column of the fold marker (sessions and phases)
---@field fold plansight.Fold? the fold starting on this line
---@field depth integer? (v4) a task's depth in its phase, 0 at the top
---@field ancestors string[]? (v4) the keys of a task's parents, nearest first

---@class plansight.Fold
---@field key string
---@field start integer first line (1-based)
---@field finish integer last line
---@field level integer
---@field closed boolean the state it gets unless the user changed it

---@class plansight.Mark
---@field [1] integer row (0-based)
---@field [2] integer start byte column
---@field [3] integer end byte column
---@field [4] string highlight group

---@class plansight.View
---@field lines string[]
---@field marks plansight.Mark[]
---@field items plansight.RenderItem[] one per line (1-based)
---@field folds plansight.Fold[]
---@field levels (string|integer)[] the fold level of each line, ">N" where a level-N fold starts
---@field index table<string, integer> item key -> line
---@field active {row: integer, col: integer, width: integer}[] in_progress icons (0-based row, byte col)
---@field first_mark integer[] index in `marks` of each line's first mark (marks are in line order)
---@field virt table<integer, {[1]: string, [2]: string}[]> line -> virtual text chunks at its end
---@field states plansight.TodoState[]? the states drawn (the sidebar sets them, for `plansight.patch`)
---@field opts plansight.RenderOpts? the options drawn with
---@field trees table<string, table> each session's (v4) tree as drawn (`M.tree`, with `show_owner`)
---@field labels table<string, string|false> each session's checkout label as drawn (false: none)
---@field filtering boolean? drawn with a filter hiding tasks
---@field base plansight.View? the view this one was patched from (`plansight.patch`)
---@field patched integer[]? the lines written again when patched from `base`, in order

---@class plansight.RenderOpts
---@field icons plansight.Icons
---@field bar_width integer
---@field message string? shown instead of an empty plan (connecting, server missing, ...)
---@field width integer? the window's text width: headers and messages are fitted to it
---@field checkouts table<string, table|vim.NIL>? each session's `checkout` (v4), beside its header
---@field filter plansight.Filter? what the sidebar hides (`plansight.filter`)

---Highlight groups and the groups they link to by default.
---@type table<string, string>
M.links = {}

---Names highlight group `name`, linked to `link` unless a colour scheme or the user sets it.
---@param name string
---@param link string
---@return string name
local function group(name, link)
  M.links[name] = link
  return name
end

---The highlight group of each role a piece of the sidebar plays.
M.hl = {
  -- A task's status (its icon and text), then its priority mark.
  pending = group("PlansightPending", "Normal"),
  in_progress = group("PlansightActive", "DiagnosticWarn"),
  completed = group("PlansightDone", "DiagnosticOk"),
  abandoned = group("PlansightDropped", "Comment"),
  blocked = group("PlansightBlocked", "DiagnosticError"),
  priority = {
    high = group("PlansightPriorityHigh", "DiagnosticError"),
    medium = group("PlansightPriorityMedium", "DiagnosticWarn"),
    low = group("PlansightPriorityLow", "Comment"),
  },
  -- The other parts of the sidebar.
  note = group("PlansightNote", "Comment"),
  description = group("PlansightDescription", "Comment"),
  phase = group("PlansightPhase", "Title"),
  header = group("PlansightHeader", "Function"),
  agent = group("PlansightAgent", "Special"),
  waiting = group("PlansightWaiting", "DiagnosticHint"),
  owner = group("PlansightOwner", "Special"),
  created_by_user = group("PlansightYou", "Special"),
  file = group("PlansightFile", "Directory"),
}

---The virtual-text mark of a task a person created (`createdBy = "user"`).
M.CREATED_BY_USER_MARK = "you"

---The empty sidebar: what shows up here, and how an agent is connected (first run).
M.EMPTY = "No plan yet: an agent's todo list shows up here. To connect an agent, run "
  .. "`plansight setup AGENT` (claude-code, codex, gemini, opencode) in a terminal; "
  .. ":checkhealth plansight says what is set up."

local INDENT_PHASE = "  "
local INDENT_TASK = "    "
local INDENT_NOTE = "      "

---Plan text is data: it becomes one buffer line with line breaks flattened, never more.
---@param s any
---@return string
local function one_line(s)
  if type(s) ~= "string" then
    return s == nil and "" or tostring(s)
  end
  -- Most text has no line break: a plain find is far cheaper than two gsubs (which
  -- LuaJIT does not compile), and this runs for every line of every redraw.
  if not s:find("\n", 1, true) and not s:find("\r", 1, true) then
    return s
  end
  return (s:gsub("\r\n", " "):gsub("[\r\n]", " "))
end

---@param s any
---@return string[]
local function split_lines(s)
  if type(s) ~= "string" then
    return { s == nil and "" or tostring(s) }
  end
  if s:find("\r", 1, true) then
    s = s:gsub("\r\n", "\n"):gsub("\r", "\n")
  end
  -- A plain find loop: vim.split's iterator costs more than the rest of a task's line.
  local out, from = {}, 1
  while true do
    local at = s:find("\n", from, true)
    if not at then
      out[#out + 1] = s:sub(from)
      return out
    end
    out[#out + 1] = s:sub(from, at - 1)
    from = at + 1
  end
end

---The screen cells `s` takes: its length when it is ASCII (most plan text, and the common
---case of a redraw that fits hundreds of lines), else Neovim's count.
---@param s string
---@return integer
local function cells_of(s)
  if not s:find("[\128-\255]") then
    return #s
  end
  return vim.fn.strdisplaywidth(s)
end
M.cells = cells_of

---The longest start of `s` that takes at most `cells` screen cells.
---@param s string
---@param cells integer
---@return string
local function take_cells(s, cells)
  if not s:find("[\128-\255]") then
    return s:sub(1, math.max(0, cells))
  end
  local lo, hi = 0, vim.fn.strchars(s)
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if vim.fn.strdisplaywidth(vim.fn.strcharpart(s, 0, mid)) <= cells then
      lo = mid
    else
      hi = mid - 1
    end
  end
  return vim.fn.strcharpart(s, 0, lo)
end

---`name` cut with "…" to take at most `cells` cells (at least the "…" stays).
---@param name string
---@param cells integer
---@return string
function M.fit_name(name, cells)
  if cells_of(name) <= cells then
    return name
  end
  return take_cells(name, math.max(0, cells - 1)) .. "…"
end

---`text` broken at spaces into lines of at most `width` cells (a longer word stays whole).
---@param text string
---@param width integer?
---@return string[]
function M.wrap(text, width)
  if not width or vim.fn.strdisplaywidth(text) <= width then
    return { text }
  end
  local out, line = {}, ""
  for word in text:gmatch("%S+") do
    if line == "" then
      line = word
    elseif vim.fn.strdisplaywidth(line .. " " .. word) <= width then
      line = line .. " " .. word
    else
      out[#out + 1] = line
      line = word
    end
  end
  out[#out + 1] = line
  return out
end

---A progress bar of `width` cells for `percent`.
---@param percent number
---@param width integer
---@param icons plansight.Icons
---@return string filled, string empty
function M.bar(percent, width, icons)
  local n = math.floor(math.max(0, math.min(100, percent)) * width / 100 + 0.5)
  return icons.bar_filled:rep(n), icons.bar_empty:rep(width - n)
end

---The server's progress (the shim never counts: a bar and a count are the server's).
---@param progress plansight.Progress|vim.NIL|nil
---@return plansight.Progress
local function progress_or_empty(progress)
  local p = protocol.value(progress)
  if type(p) == "table" and p.total then
    return p
  end
  return { completed = 0, abandoned = 0, blocked = 0, total = 0, percent = 0 }
end

M.progress = progress_or_empty

---How a person knows a session: its title, else its own id without the agent's word,
---else its name, quoted (never the raw `claude-code:1111…` id when there is a title).
---@param state plansight.TodoState?
---@param session string the name, when there is no state
---@return string
function M.session_name(state, session)
  local title = state and protocol.value(state.title)
  if type(title) == "string" and title ~= "" then
    return ("%q"):format(one_line(title))
  end
  local agent, own = agents.of(session)
  return agent and ("%s %q"):format(agent, own) or ("%q"):format(session)
end

---The contents of the tasks `task` waits for that have not ended, in `blockedBy` order
---(drawn as `waits for "X"`; the server says whether it waits at all).
---@param task plansight.Task
---@param by_id table<string, plansight.Task>
---@return string[]
function M.waits_for(task, by_id)
  local out = {}
  if task.waiting ~= true then
    return out
  end
  for _, id in ipairs(protocol.value(task.blockedBy) or {}) do
    local blocker = by_id[id]
    if blocker and not protocol.finished(blocker.status) then
      out[#out + 1] = '"' .. one_line(blocker.content) .. '"'
    end
  end
  return out
end

---Whether the session's tasks do not all have the same owner (then each task shows its own).
---@param state plansight.TodoState
---@return boolean
function M.mixed_owners(state)
  local first, seen = nil, false
  for _, task in ipairs(protocol.tasks(state)) do
    local owner = protocol.value(task.owner) or ""
    if not seen then
      first, seen = owner, true
    elseif owner ~= first then
      return true
    end
  end
  return false
end

---The text a task line shows: the activeForm while in progress, else the content.
---@param task plansight.Task
---@return string
function M.task_text(task)
  if task.status == "in_progress" then
    local active = protocol.value(task.activeForm)
    if type(active) == "string" and active ~= "" then
      return one_line(active)
    end
  end
  return one_line(task.content)
end

---@param task plansight.Task
---@param icons plansight.Icons
---@return string icon, string hl
function M.task_icon(task, icons)
  local status = task.status
  local icon = icons[status] or icons.pending
  local hl = M.hl[status]
  return icon, type(hl) == "string" and hl or M.hl.pending
end

---(v4) The shape of a session's tasks: each task's parent (when that task is there), its
---depth (0 at the top), how many subtasks it has, and a parent's leaves, completed and all
---(the statuses are the server's; a parent's line shows them as `3/5`).
---@param tasks plansight.Task[] in document order: each task right before its subtasks
---@return {parent: table<string, string>, depth: table<string, integer>, kids: table<string, integer>, done: table<string, integer>, total: table<string, integer>}
function M.tree(tasks)
  local known, parent, kids, depth = {}, {}, {}, {}
  for _, task in ipairs(tasks) do
    known[task.id] = true
  end
  for _, task in ipairs(tasks) do
    local up = protocol.value(task.parent)
    if type(up) == "string" and known[up] and up ~= task.id then
      parent[task.id] = up
      kids[up] = (kids[up] or 0) + 1
    end
  end
  for _, task in ipairs(tasks) do
    local up = parent[task.id]
    depth[task.id] = up and math.min((depth[up] or 0) + 1, 16) or 0
  end
  -- Backwards: a task's subtasks come after it, so they are counted before it is.
  local done, total = {}, {}
  for i = #tasks, 1, -1 do
    local task = tasks[i]
    if not kids[task.id] then
      total[task.id] = 1
      done[task.id] = task.status == "completed" and 1 or 0
    end
    local up = parent[task.id]
    if up then
      total[up] = (total[up] or 0) + (total[task.id] or 0)
      done[up] = (done[up] or 0) + (done[task.id] or 0)
    end
  end
  return { parent = parent, depth = depth, kids = kids, done = done, total = total }
end

---What a task line does not hold, as virtual text: that a person added it (the agent's
---next list keeps it), whom it waits for, and whose it is.
---@param task plansight.Task
---@param by_id table<string, plansight.Task>
---@param show_owner boolean
---@return {[1]: string, [2]: string}[]
function M.task_chunks(task, by_id, show_owner)
  local chunks = {}
  if protocol.value(task.createdBy) == "user" then
    chunks[#chunks + 1] = { "  " .. M.CREATED_BY_USER_MARK, M.hl.created_by_user }
  end
  local waits = M.waits_for(task, by_id)
  if #waits > 0 then
    chunks[#chunks + 1] = { "  waits for " .. table.concat(waits, ", "), M.hl.waiting }
  end
  local owner = protocol.value(task.owner)
  if show_owner and type(owner) == "string" and owner ~= "" then
    chunks[#chunks + 1] = { "  @" .. one_line(owner), M.hl.owner }
  end
  return chunks
end

---The cells of each task line's lead seen so far.
---@type table<string, integer>
local lead_cells = {}

---A task's text and virtual text fitted to `width` cells, each cut with "…" where cut
---(the window would cut them with no sign): a text that fits stays whole and the virtual
---text gets the rest; a text too long for the width is cut to leave the virtual text up to
---40% of it. `lead` (indent, icon, priority) and `suffix` (a parent's count) always show.
---`K` shows all of it.
---@param lead string
---@param text string
---@param suffix string
---@param chunks {[1]: string, [2]: string}[]
---@param width integer?
---@return string text, {[1]: string, [2]: string}[] chunks
function M.fit_task_line(lead, text, suffix, chunks, width)
  if not width then
    return text, chunks
  end
  -- A few leads (indent, icon, priority mark) recur on every line: measured once each.
  local lead_w = lead_cells[lead]
  if not lead_w then
    lead_w = cells_of(lead)
    lead_cells[lead] = lead_w
  end
  local fixed = lead_w + #suffix -- a count: ASCII
  local virt = 0
  for _, chunk in ipairs(chunks) do
    virt = virt + cells_of(chunk[1])
  end
  local gap = #chunks > 0 and 1 or 0
  -- Measured once; ASCII text (most plans) is cut without asking Neovim.
  local ascii = not text:find("[\128-\255]")
  local text_w = ascii and #text or vim.fn.strdisplaywidth(text)
  if fixed + text_w + gap + virt <= width then
    return text, chunks
  end
  -- A text that fits stays whole (it is what a person scans for); one that does not is
  -- cut, leaving the virtual text up to 40% of the width.
  if fixed + text_w > width then
    local room = math.max(width - fixed - gap - virt, math.floor(width * 0.6) - fixed, 2)
    if ascii then
      text, text_w = text:sub(1, room - 1) .. "…", room
    else
      text = M.fit_name(text, room)
      text_w = vim.fn.strdisplaywidth(text)
    end
  end
  -- Virtual text at the end of a line starts one cell after its last character.
  local left = width - fixed - text_w - 1
  local out = {}
  for i, chunk in ipairs(chunks) do
    local w = cells_of(chunk[1])
    if w < left or (w == left and i == #chunks) then
      out[#out + 1] = chunk
      left = left - w
    else
      if left >= 2 then
        out[#out + 1] = { take_cells(chunk[1], left - 1) .. "…", chunk[2] }
      end
      break
    end
  end
  return text, out
end

---An empty view.
---@return plansight.View
function M.empty_view()
  return {
    lines = {},
    marks = {},
    items = {},
    folds = {},
    levels = {},
    index = {},
    active = {},
    first_mark = {},
    virt = {},
    trees = {},
    labels = {},
  }
end

---Writes lines into a view: the whole sidebar (`M.view`), or a few of its lines again at
---the rows they have (`plansight.patch`, which starts it after line `n`).
---@class plansight.Builder
---@field view plansight.View
---@field n integer the last line added
---@field opts plansight.RenderOpts
---@field icons plansight.Icons
---@field by_id table<string, plansight.Task> the session's tasks by id (while a session is added)
---@field show_owner boolean whether each task shows its owner
---@field current_id string? the session's current task
---@field tree table the session's (v4) tree, `M.tree`
---@field shown table<string, boolean>? the tasks the filter shows (nil: all)
---@field lines string[] `view.lines` (and so on: the view's lists, `write_into`)
---@field items plansight.RenderItem[]
---@field levels (string|integer)[]
---@field index table<string, integer>
---@field marks plansight.Mark[]
---@field first_mark integer[]
---@field n_marks integer how many marks `marks` holds
local Builder = {}
Builder.__index = Builder

---@param view plansight.View
---@param opts plansight.RenderOpts
---@param n integer? the line after which it writes (0)
---@return plansight.Builder
function M.builder(view, opts, n)
  local b = setmetatable({ opts = opts, icons = opts.icons, show_owner = false }, Builder)
  b:write_into(view, n)
  return b
end

---Writes from now on into `view`, after line `n` (0). Its lists are kept in fields: a
---whole render adds thousands of lines and marks, each a lookup less.
---@param view plansight.View
---@param n integer?
function Builder:write_into(view, n)
  self.view, self.n = view, n or 0
  self.lines, self.items, self.levels, self.index = view.lines, view.items, view.levels, view.index
  self.marks, self.first_mark, self.n_marks = view.marks, view.first_mark, #view.marks
end

---Appends a line; returns its row (0-based).
---@param text string
---@param item plansight.RenderItem
---@param level string|integer
---@return integer row
function Builder:add(text, item, level)
  local n = self.n + 1
  self.n = n
  self.lines[n] = text
  self.items[n] = item
  self.levels[n] = level
  self.first_mark[n] = self.n_marks + 1
  local key = item.key
  if key then
    self.index[key] = n
  end
  return n - 1
end

---@param row integer 0-based
---@param col integer start byte column
---@param end_col integer end byte column
---@param hl string highlight group
function Builder:mark(row, col, end_col, hl)
  local k = self.n_marks + 1
  self.n_marks = k
  self.marks[k] = { row, col, end_col, hl }
end

---Starts a fold on the last line added; the caller sets its `finish`.
---@param item plansight.RenderItem
---@param key string
---@param level integer
---@param closed boolean
---@return plansight.Fold
function Builder:open_fold(item, key, level, closed)
  local fold = { key = key, start = self.n, finish = self.n, level = level, closed = closed }
  local folds = self.view.folds
  folds[#folds + 1] = fold
  item.fold = fold
  return fold
end

---A message, wrapped to the window so none of it is cut off.
---@param text string
function Builder:add_message(text)
  for _, part in ipairs(M.wrap(text, self.opts.width)) do
    local row = self:add(part, { kind = "message" }, 0)
    self:mark(row, 0, #part, M.hl.note)
  end
end

---A line under the task of `titem` (a description, note or file line): its icon, then
---`text`, in `hl`; `tag` tells the task's lines apart in the key. A file line marks its
---icon and its path apart.
---@param titem plansight.RenderItem the task's line
---@param kind plansight.ItemKind
---@param tag string
---@param icon string
---@param text string
---@param hl string
---@param file string?
---@param note integer?
---@param pad string? (v4) the task's depth, as indentation
function Builder:add_detail(titem, kind, tag, icon, text, hl, file, note, pad)
  local indent = INDENT_NOTE .. (pad or "")
  local line = indent .. icon .. " " .. text
  local row = self:add(line, {
    kind = kind,
    key = titem.key .. "\0" .. tag,
    session = titem.session,
    phase = titem.phase,
    task = titem.task,
    file = file,
    note = note,
  }, 3 + #(pad or "") / 2)
  if file then
    self:mark(row, #indent, #indent + #icon, hl)
  end
  self:mark(row, #indent + (file and #icon + 1 or 0), #line, hl)
end

---Sets what a session's task lines depend on besides the task: its tasks by id, whether
---owners show, its current task, its (v4) tree and the tasks the filter shows.
---@param state plansight.TodoState
---@param shown table<string, boolean>?
function Builder:session_context(state, shown)
  local by_id = {}
  local show_owner = false
  local first_owner = nil
  local all = protocol.tasks(state)
  for _, task in ipairs(all) do
    by_id[task.id] = task
    -- (M.mixed_owners, in the same pass.)
    local owner = protocol.value(task.owner) or ""
    if first_owner == nil then
      first_owner = owner
    elseif owner ~= first_owner then
      show_owner = true
    end
  end
  local current = protocol.value(state.current)
  self.by_id, self.show_owner = by_id, show_owner
  self.current_id = type(current) == "table" and current.id or nil
  self.tree = M.tree(all)
  self.tree.show_owner = show_owner
  self.view.trees[state.session] = self.tree
  self.shown = shown
  return all
end

---Adds the line of `task` (depth `depth` in its phase) and its description, notes and
---files; returns its fold when it has one (the caller closes it after its subtasks).
---@param state plansight.TodoState
---@param phase_name string
---@param task plansight.Task
---@param depth integer
---@return plansight.Fold?
function Builder:add_task(state, phase_name, task, depth)
  local icons, tree = self.icons, self.tree
  local icon, hl = M.task_icon(task, icons)
  local tkey = "t\0" .. state.session .. "\0" .. tostring(task.id)
  local titem = { kind = "task", key = tkey, session = state.session, phase = phase_name, task = task, depth = depth }
  titem.current = task.id == self.current_id or nil
  local up = tree.parent[task.id]
  if up then
    titem.ancestors = {}
    while up do
      titem.ancestors[#titem.ancestors + 1] = "t\0" .. state.session .. "\0" .. up
      up = tree.parent[up]
    end
  end
  local priority = protocol.value(task.priority)
  local pmark = priority and icons["priority_" .. priority] or nil
  pmark = pmark ~= "" and pmark or nil
  local indent = INDENT_TASK .. ("  "):rep(depth)
  local lead = indent .. icon .. " " .. (pmark and (pmark .. " ") or "")
  -- (v4) A parent's progress: its leaves' statuses as the server sent them.
  local kids = tree.kids[task.id]
  local count = kids and ("  %d/%d"):format(tree.done[task.id] or 0, tree.total[task.id] or 0) or ""
  local chunks = M.task_chunks(task, self.by_id, self.show_owner)
  local text
  text, chunks = M.fit_task_line(lead, M.task_text(task), count, chunks, self.opts.width)
  local line = lead .. text .. count
  local notes = protocol.value(task.notes) or {}
  local files = protocol.value(task.files) or {}
  local description = protocol.value(task.description) or ""
  local tfold, row
  if description ~= "" or #notes > 0 or #files > 0 or kids then
    row = self:add(line, titem, ">" .. (3 + depth))
    -- A parent folds away its subtasks once it ended; details only, unless in progress.
    local closed = kids and protocol.finished(task.status) or (not kids and task.status ~= "in_progress")
    tfold = self:open_fold(titem, tkey, 3 + depth, closed)
  else
    row = self:add(line, titem, 2 + depth)
  end
  local c = #indent
  self:mark(row, c, c + #icon, hl)
  if pmark then
    self:mark(row, c + #icon + 1, c + #icon + 1 + #pmark, M.hl.priority[priority] or M.hl.note)
  end
  self:mark(row, #lead, #lead + #text, hl)
  if count ~= "" then
    self:mark(row, #lead + #text, #line, M.hl.note)
  end
  if task.status == "in_progress" then
    local active = self.view.active
    active[#active + 1] = { row = row, col = c, width = #icon }
  end
  if #chunks > 0 then
    self.view.virt[row + 1] = chunks
  end
  self:add_details(titem, description, notes, files, ("  "):rep(depth))
  if tfold then
    tfold.finish = self.n
  end
  return tfold
end

---The description first (what the task is), then notes and files (what happened).
---@param titem plansight.RenderItem
---@param description string
---@param notes string[]
---@param files string[]
---@param pad string
function Builder:add_details(titem, description, notes, files, pad)
  local icons = self.icons
  for d, part in ipairs(description ~= "" and split_lines(description) or {}) do
    self:add_detail(titem, "description", "d" .. d, icons.description, part, M.hl.description, nil, nil, pad)
  end
  local k = 0
  for i, note in ipairs(notes) do
    for _, part in ipairs(split_lines(note)) do
      k = k + 1
      self:add_detail(titem, "note", "n" .. k, icons.note, part, M.hl.note, nil, i, pad)
    end
  end
  for f, path in ipairs(files) do
    self:add_detail(titem, "file", "f" .. f, icons.file, one_line(path), M.hl.file, path, nil, pad)
  end
end

---The key of a phase's header; a name seen before in the session gets its count.
---@param session string
---@param name string
---@param seen_phase table<string, integer> phase keys seen in this session
---@return string
function M.phase_key(session, name, seen_phase)
  local pkey = "p\0" .. session .. "\0" .. name
  if seen_phase[pkey] then
    seen_phase[pkey] = seen_phase[pkey] + 1
    return pkey .. "\0" .. seen_phase[pkey]
  end
  seen_phase[pkey] = 1
  return pkey
end

---Adds a phase's header line; returns its fold (the caller sets where it ends).
---@param state plansight.TodoState
---@param phase plansight.Phase
---@param pkey string
---@return plansight.Fold
function Builder:phase_header(state, phase, pkey)
  local name = one_line(phase.name)
  local pprogress = progress_or_empty(phase.progress)
  local ptext = INDENT_PHASE .. self.icons.fold_open .. " " .. name
  local pcount = ("  %d/%d"):format(pprogress.completed, pprogress.total)
  local pitem = {
    kind = "phase",
    key = pkey,
    session = state.session,
    phase = phase.name,
    marker_col = #INDENT_PHASE,
  }
  local row = self:add(ptext .. pcount, pitem, ">2")
  local pfold = self:open_fold(pitem, pkey, 2, false)
  self:mark(row, #INDENT_PHASE, #ptext, M.hl.phase)
  self:mark(row, #ptext, #ptext + #pcount, M.hl.note)
  return pfold
end

---Adds a phase's header and its shown tasks.
---@param state plansight.TodoState
---@param phase plansight.Phase
---@param seen_phase table<string, integer> phase keys seen in this session (a name twice)
function Builder:add_phase(state, phase, seen_phase)
  local pfold = self:phase_header(state, phase, M.phase_key(state.session, phase.name, seen_phase))
  -- (v4) Subtasks under their task, each fold closed where its task's lines end.
  local stack = {}
  local function close_folds(depth)
    while #stack > 0 and stack[#stack].depth >= depth do
      stack[#stack].fold.finish = self.n
      stack[#stack] = nil
    end
  end
  local shown, tree = self.shown, self.tree
  for _, task in ipairs(phase.tasks or {}) do
    if not shown or shown[task.id] then
      local depth = tree.depth[task.id] or 0
      close_folds(depth)
      local tfold = self:add_task(state, phase.name, task, depth)
      if tfold then
        stack[#stack + 1] = { fold = tfold, depth = depth }
      end
    end
  end
  close_folds(0)
  pfold.finish = self.n
end

---Adds a session's header line: "▾ agent name  3/8 ███░░░░░░░", with where its agent
---works (v4) as virtual text; returns its fold (the caller sets where it ends).
---@param state plansight.TodoState
---@return plansight.Fold
function Builder:session_header(state)
  local opts, icons = self.opts, self.icons
  local title = protocol.value(state.title)
  -- Sessions of different agents often share a first prompt (their title): the agent's
  -- label comes first, so they differ even when the width cuts the rest.
  local agent, own_name = agents.of(state.session)
  local titled = type(title) == "string" and title ~= ""
  local session = one_line(titled and title or own_name or state.session)
  local progress = progress_or_empty(state.progress)
  local skey = "s\0" .. state.session
  local count = ("  %d/%d"):format(progress.completed, progress.total)
  local filled, empty = "", ""
  if opts.bar_width > 0 and progress.total > 0 then
    filled, empty = M.bar(progress.percent or 0, opts.bar_width, icons)
  end
  local tail = count .. (filled .. empty ~= "" and (" " .. filled .. empty) or "")
  local marker = icons.fold_open .. " "
  local label = agent and (agent .. " ") or ""
  if opts.width then
    -- The window cuts what is too long from the right: the name gives way, so the
    -- count and the whole bar always show (a cut bar reads as another percentage).
    local room = opts.width - vim.fn.strdisplaywidth(marker .. label .. tail)
    session = M.fit_name(session, room)
  end
  local head = marker .. label .. session
  local sitem = { kind = "session", key = skey, session = state.session, marker_col = 0 }
  local row = self:add(head .. tail, sitem, ">1")
  -- (v4) Where its agent works, after the bar: the window cuts it first.
  local where = checkout.label(opts.checkouts and opts.checkouts[state.session])
  self.view.labels[state.session] = where or false
  if where then
    self.view.virt[row + 1] = { { "  " .. where, M.hl.note } }
  end
  local sfold = self:open_fold(sitem, skey, 1, false)
  if agent then
    self:mark(row, 0, #marker, M.hl.header)
    self:mark(row, #marker, #marker + #agent, M.hl.agent)
    self:mark(row, #marker + #label, #head, M.hl.header)
  else
    self:mark(row, 0, #head, M.hl.header)
  end
  self:mark(row, #head, #head + #count, M.hl.note)
  if filled ~= "" then
    local c = #head + #count + 1
    self:mark(row, c, c + #filled, M.hl.completed)
  end
  if empty ~= "" then
    local c = #head + #count + 1 + #filled
    self:mark(row, c, c + #empty, M.hl.note)
  end
  return sfold
end

---Adds a session: its header, then its phases (with a filter, those with a task shown).
---@param state plansight.TodoState
---@param shown table<string, boolean>? the tasks the filter shows (nil: all)
function Builder:add_session(state, shown)
  local sfold = self:session_header(state)
  local progress = progress_or_empty(state.progress)
  if progress.total == 0 and #(state.phases or {}) == 0 then
    local msg = INDENT_PHASE .. "(no tasks)"
    local row = self:add(msg, { kind = "message", session = state.session }, 1)
    self:mark(row, #INDENT_PHASE, #msg, M.hl.note)
  end
  local all = self:session_context(state, shown)
  if shown and next(shown) == nil and #all > 0 then
    local msg = INDENT_PHASE .. "(no task matches the filter)"
    local row = self:add(msg, { kind = "message", session = state.session }, 1)
    self:mark(row, #INDENT_PHASE, #msg, M.hl.note)
  end
  local seen_phase = {}
  for _, phase in ipairs(state.phases or {}) do
    -- With a filter, a phase none of whose tasks is shown is not drawn.
    local skip = shown ~= nil
    for _, task in ipairs(shown and phase.tasks or {}) do
      skip = skip and not shown[task.id]
    end
    if not skip then
      self:add_phase(state, phase, seen_phase)
    end
  end
  sfold.finish = self.n
end

---Builds the sidebar for `states` (newest first).
---@param states plansight.TodoState[]
---@param opts plansight.RenderOpts
---@return plansight.View
function M.view(states, opts)
  local view = M.empty_view()
  local b = M.builder(view, opts)
  if #states == 0 then
    b:add_message(opts.message or M.EMPTY)
    return view
  end
  if opts.message then
    b:add_message(opts.message)
  end
  -- A filter says so at the top while it hides anything, with how to change it.
  local F = require("plansight.filter")
  local filtering = F.active(opts.filter)
  view.filtering = filtering
  local filtered = {}
  if filtering then
    local matching, count = 0, 0
    for _, state in ipairs(states) do
      local tasks = protocol.tasks(state)
      local ids, m = F.shown(tasks, opts.filter --[[@as plansight.Filter]])
      filtered[state.session] = ids
      matching, count = matching + m, count + #tasks
    end
    b:add_message(("Filter: %s; %d of %d tasks (f: filter, H: %s finished)"):format(
      F.describe(opts.filter --[[@as plansight.Filter]]),
      matching,
      count,
      opts.filter.hide_finished and "show" or "hide"
    ))
  end
  for s, state in ipairs(states) do
    if s > 1 or opts.message or filtering then
      b:add("", { kind = "blank" }, 0)
    end
    b:add_session(state, filtering and filtered[state.session] or nil)
  end
  return view
end

---Line `lnum` of `view` as `[text, hl]` chunks, coloured as its marks colour it.
---@param view plansight.View
---@param lnum integer
---@return {[1]: string, [2]: string}[]
function M.line_chunks(view, lnum)
  local line = view.lines[lnum] or ""
  if not view.items[lnum] then
    return { { line, "Normal" } }
  end
  local spans = {}
  for i = view.first_mark[lnum], (view.first_mark[lnum + 1] or #view.marks + 1) - 1 do
    spans[#spans + 1] = view.marks[i]
  end
  table.sort(spans, function(a, b)
    return a[2] < b[2]
  end)
  local chunks = {}
  local pos = 0
  for _, m in ipairs(spans) do
    if m[2] > pos then
      chunks[#chunks + 1] = { line:sub(pos + 1, m[2]), "Normal" }
    end
    chunks[#chunks + 1] = { line:sub(m[2] + 1, m[3]), m[4] }
    pos = m[3]
  end
  if pos < #line then
    chunks[#chunks + 1] = { line:sub(pos + 1), "Normal" }
  end
  return chunks
end

---The text of a closed fold as `[text, hl]` chunks: its first line, with the closed marker
---for sessions and phases and a count of hidden lines for tasks.
---@param view plansight.View
---@param lnum integer the fold's first line
---@param icons plansight.Icons
---@return {[1]: string, [2]: string}[]
function M.fold_text(view, lnum, icons)
  local item = view.items[lnum]
  local chunks = M.line_chunks(view, lnum)
  if not item then
    return chunks
  end
  if item.marker_col then
    -- Swap the open marker for the closed one in whichever chunk holds it.
    local offset = 0
    for _, chunk in ipairs(chunks) do
      local len = #chunk[1]
      if item.marker_col >= offset and item.marker_col < offset + len then
        local at = item.marker_col - offset
        local text = chunk[1]
        if text:sub(at + 1, at + #icons.fold_open) == icons.fold_open then
          chunk[1] = text:sub(1, at) .. icons.fold_closed .. text:sub(at + #icons.fold_open + 1)
        end
        break
      end
      offset = offset + len
    end
  end
  local fold = item.fold
  if fold and item.kind == "task" then
    local hidden = fold.finish - fold.start
    chunks[#chunks + 1] = { ("  [+%d]"):format(hidden), M.hl.note }
  end
  return chunks
end

return M
