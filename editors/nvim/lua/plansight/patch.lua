---A live update drawn as what changed (issue 34): the lines of the tasks, phase headers and
---session headers a change touched are written again, at the rows they have, into a copy
---of the last view; every other line, highlight, virtual text and fold is the last view's.
---
---It builds no line of its own: each line is written by `render`'s Builder, as a whole
---render writes it, so a patched view equals a fresh one (`tests/test_redraw.lua` checks
---them line by line, highlight by highlight and fold by fold). Where a change moves lines
---(a task added, removed or moved, a note added, a session moved up the list) or touches
---what many lines depend on (the width, the icons, a filter, the owners shown), `M.view`
---returns nil and the whole view is rendered again.
local F = require("plansight.filter")
local checkout = require("plansight.checkout")
local protocol = require("plansight.protocol")
local render = require("plansight.render")

local M = {}

---More tasks than this changed at once (every task renamed, a whole list written again)
---are cheaper rendered whole than written again one block at a time.
M.MAX_TASKS = 40

---Whether two values of a task's field are equal; its lists (notes, files, blockedBy) are
---compared element by element.
---@param a any
---@param b any
---@return boolean
local function same_value(a, b)
  if a == b then
    return true
  end
  if type(a) ~= "table" or type(b) ~= "table" or #a ~= #b then
    return false
  end
  if #a == 0 then
    return vim.deep_equal(a, b)
  end
  for i = 1, #a do
    if a[i] ~= b[i] and not vim.deep_equal(a[i], b[i]) then
      return false
    end
  end
  return true
end

---A copy of list `list`.
---@generic T
---@param list T[]
---@return T[]
local function copy(list)
  local out = {}
  for i = 1, #list do
    out[i] = list[i]
  end
  return out
end

---Whether a task is unchanged: the same table (a delta keeps the tasks it did not list),
---else every field equal (a whole state decodes every task anew).
---@param a plansight.Task
---@param b plansight.Task
---@return boolean
function M.same_task(a, b)
  if a == b then
    return true
  end
  for key, value in pairs(a) do
    if not same_value(value, b[key]) then
      return false
    end
  end
  for key in pairs(b) do
    if a[key] == nil then
      return false
    end
  end
  return true
end

---The tasks whose lines a change from `before` to `state` may redraw, by id: the tasks that
---changed, the current task before and after, their parents (a parent's line counts its
---leaves) and the tasks waiting for them (`waits for "X"` shows their content); and the
---session's tasks by id. Nil when the change moves lines or touches many: phases or task
---order differ, a task changed parent or owner (owners show on every line when mixed), or
---more than `M.MAX_TASKS` tasks changed.
---@param before plansight.TodoState
---@param state plansight.TodoState
---@param shape table the session's tree as last drawn (`render.tree`)
---@return table<string, plansight.Task>? dirty, table<string, plansight.Task> by_id
local function dirty_tasks(before, state, shape)
  local phases, bphases = state.phases or {}, before.phases or {}
  local by_id = {}
  if #phases ~= #bphases then
    return nil, by_id
  end
  local changed, waiting, n_changed = {}, {}, 0
  for p, phase in ipairs(phases) do
    local tasks, btasks = phase.tasks or {}, bphases[p].tasks or {}
    if phase.name ~= bphases[p].name or #tasks ~= #btasks then
      return nil, by_id
    end
    for t = 1, #tasks do
      local task, btask = tasks[t], btasks[t]
      if task.id ~= btask.id then
        return nil, by_id
      end
      by_id[task.id] = task
      if task ~= btask and not M.same_task(task, btask) then
        if
          protocol.value(task.parent) ~= protocol.value(btask.parent)
          or protocol.value(task.owner) ~= protocol.value(btask.owner)
        then
          return nil, by_id
        end
        changed[task.id] = true
        n_changed = n_changed + 1
        if n_changed > M.MAX_TASKS then
          return nil, by_id
        end
      end
      local blocked_by = protocol.value(task.blockedBy)
      if blocked_by and #blocked_by > 0 then
        waiting[#waiting + 1] = task
      end
    end
  end
  local dirty = {}
  local bcur, cur = protocol.value(before.current), protocol.value(state.current)
  for _, c in ipairs({ type(bcur) == "table" and bcur or false, type(cur) == "table" and cur or false }) do
    if c and by_id[c.id] then
      dirty[c.id] = by_id[c.id]
    end
  end
  for id in pairs(changed) do
    local up = id
    while up do
      dirty[up] = by_id[up]
      up = shape.parent[up]
    end
  end
  for _, task in ipairs(waiting) do
    for _, blocker in ipairs(protocol.value(task.blockedBy)) do
      if changed[blocker] then
        dirty[task.id] = task
      end
    end
  end
  return dirty, by_id
end

---A patch in the making: the new view (a copy of the old one's lists) and the marks of
---each line written again.
---@class plansight.Patch
---@field old plansight.View
---@field view plansight.View
---@field opts plansight.RenderOpts
---@field line_marks table<integer, plansight.Mark[]>
---@field active table[] the in-progress icons of the lines written again
---@field fold_at table<integer, integer> a fold's start line -> its index in `folds`

---Writes one unit (a header or a task's block) again, at line `first`, with `write(b)`;
---false when it no longer fits the old lines (another count, other folds or keys).
---@param patch plansight.Patch
---@param b plansight.Builder
---@param first integer
---@param write fun(b: plansight.Builder): plansight.Fold?
---@return boolean
local function rewrite(patch, b, first, write)
  local old, view = patch.old, patch.view
  local scratch = render.empty_view()
  b:write_into(scratch, first - 1)
  local fold = write(b)
  local last = b.n
  local old_fold = old.items[first].fold
  if (fold == nil) ~= (old_fold == nil) then
    return false
  end
  for l = first, last do
    local item, old_item = scratch.items[l], old.items[l]
    if not old_item or scratch.levels[l] ~= old.levels[l] or item.key ~= old_item.key or item.kind ~= old_item.kind then
      return false
    end
  end
  local next_item = old.items[last + 1]
  if old.items[first].kind == "task" and next_item and next_item.task == old.items[first].task and next_item.kind ~= "task" then
    return false -- the old block had more lines
  end
  if fold then
    -- Its end is the old one's: a parent's (and a header's) fold holds lines not rewritten.
    fold.finish = old_fold.finish
    view.folds[patch.fold_at[first]] = fold
  end
  local first_mark, marks = scratch.first_mark, scratch.marks
  for l = first, last do
    view.lines[l] = scratch.lines[l]
    view.items[l] = scratch.items[l]
    view.virt[l] = scratch.virt[l]
    local lm = {}
    for k = first_mark[l], (l < last and first_mark[l + 1] or #marks + 1) - 1 do
      lm[#lm + 1] = marks[k]
    end
    patch.line_marks[l] = lm
  end
  vim.list_extend(patch.active, scratch.active)
  return true
end

---(v4) The leaves under each parent in `dirty`, completed and all, as a parent's line
---shows them: the tasks in its fold (the tree's shape is the one drawn), by their state now.
---@param old plansight.View
---@param session string
---@param dirty table<string, plansight.Task>
---@param shape table
---@param by_id table<string, plansight.Task>
---@return table<string, integer> done, table<string, integer> total
local function leaves(old, session, dirty, shape, by_id)
  local done, total = {}, {}
  for id in pairs(dirty) do
    local line = shape.kids[id] and old.index["t\0" .. session .. "\0" .. id]
    if line then
      local fold = old.items[line].fold
      local d, t = 0, 0
      for l = line + 1, fold and fold.finish or line do
        local item = old.items[l]
        local task = item.kind == "task" and by_id[item.task.id]
        if task and not shape.kids[task.id] then
          t = t + 1
          d = d + (task.status == "completed" and 1 or 0)
        end
      end
      done[id], total[id] = d, t
    end
  end
  return done, total
end

---Writes again the lines of session `state` (drawn from `before`) that its change touched:
---its header, the phase headers whose progress changed, and the task blocks in `dirty`.
---@param patch plansight.Patch
---@param before plansight.TodoState
---@param state plansight.TodoState
---@return boolean done false: the change moves lines
local function patch_session(patch, before, state)
  local old, session = patch.old, state.session
  local header = old.index["s\0" .. session]
  local shape = old.trees and old.trees[session]
  if not header or not shape then
    return false
  end
  local empty = render.progress(state.progress).total == 0 and #(state.phases or {}) == 0
  if empty ~= (render.progress(before.progress).total == 0 and #(before.phases or {}) == 0) then
    return false
  end
  local dirty, by_id = dirty_tasks(before, state, shape)
  if not dirty or vim.tbl_count(dirty) > M.MAX_TASKS then
    return false
  end
  local b = render.builder(render.empty_view(), patch.opts)
  local cur = protocol.value(state.current)
  b.by_id, b.show_owner = by_id, shape.show_owner
  b.current_id = type(cur) == "table" and cur.id or nil
  local done, total = leaves(old, session, dirty, shape, by_id)
  b.tree = { parent = shape.parent, depth = shape.depth, kids = shape.kids, done = done, total = total }
  if not rewrite(patch, b, header, function(w)
    return w:session_header(state)
  end) then
    return false
  end
  local seen = {}
  for p, phase in ipairs(state.phases or {}) do
    local line = old.index[render.phase_key(session, phase.name, seen)]
    local bphase = before.phases[p]
    if not line then
      return false
    end
    if phase ~= bphase and not same_value(render.progress(phase.progress), render.progress(bphase.progress)) then
      local ok = rewrite(patch, b, line, function(w)
        return w:phase_header(state, phase, old.items[line].key)
      end)
      if not ok then
        return false
      end
    end
  end
  for id, task in pairs(dirty) do
    local line = old.index["t\0" .. session .. "\0" .. id]
    local ok = line
      and rewrite(patch, b, line, function(w)
        return w:add_task(state, old.items[line].phase, task, shape.depth[id] or 0)
      end)
    if not ok then
      return false
    end
  end
  return true
end

---The marks of `patch.view` in line order: each line's own, written again or the old ones;
---and the lines written again, in order (`view.patched`).
---@param patch plansight.Patch
local function join_marks(patch)
  local old, view = patch.old, patch.view
  local om, of = old.marks, old.first_mark
  local lines = {}
  local same_count = true
  for l, lm in pairs(patch.line_marks) do
    lines[#lines + 1] = l
    same_count = same_count and #lm == (of[l + 1] or #om + 1) - of[l]
  end
  table.sort(lines)
  view.patched = lines
  if same_count then
    -- Each line has as many marks as before (a status, a count): the old list, those replaced.
    local marks = copy(om)
    for l, lm in pairs(patch.line_marks) do
      for k, m in ipairs(lm) do
        marks[of[l] + k - 1] = m
      end
    end
    view.marks, view.first_mark = marks, of
  else
    local marks, first = {}, {}
    local n = 0
    for l = 1, #view.lines do
      first[l] = n + 1
      local lm = patch.line_marks[l]
      for k = 1, lm and #lm or 0 do
        marks[n + k] = lm[k]
      end
      n = n + (lm and #lm or 0)
      for k = lm and 1 or of[l], lm and 0 or (of[l + 1] or #om + 1) - 1 do
        n = n + 1
        marks[n] = om[k]
      end
    end
    view.marks, view.first_mark = marks, first
  end
  local active = patch.active
  for _, a in ipairs(old.active) do
    if not patch.line_marks[a.row + 1] then
      active[#active + 1] = a
    end
  end
  table.sort(active, function(x, y)
    return x.row < y.row
  end)
  view.active = active
end

---Whether `opts` draw as `old`'s did (the same width, icons, bar, message, no filter).
---@param old plansight.View
---@param opts plansight.RenderOpts
---@return boolean
local function same_opts(old, opts)
  local old_opts = old.opts --[[@as plansight.RenderOpts]]
  -- A filter's count at the top, and which lines show, follow any task's change. (The
  -- filter is changed in place: whether the old view had one is the view's own record.)
  return opts.width == old_opts.width
    and opts.icons == old_opts.icons
    and opts.bar_width == old_opts.bar_width
    and opts.message == old_opts.message
    and not F.active(opts.filter)
    and not old.filtering
end

---The view of `states` as `old` (drawn from `old.states` with `old.opts`) patched with what
---changed; `old` itself when nothing did; nil when only a whole render is right.
---@param old plansight.View?
---@param states plansight.TodoState[]
---@param opts plansight.RenderOpts
---@return plansight.View?
function M.view(old, states, opts)
  local old_states, old_opts = old and old.states, old and old.opts
  if not old or not old_states or not old_opts or #states ~= #old_states or #states == 0 then
    return nil
  end
  if not same_opts(old, opts) then
    return nil
  end
  local changed = {}
  for i, state in ipairs(states) do
    local before = old_states[i]
    -- A session that moved up the list (it changed last) moves all lines between.
    if before.session ~= state.session then
      return nil
    end
    -- A checkout listed since (the listing fills the same table): its label is new.
    local where = checkout.label(opts.checkouts and opts.checkouts[state.session]) or false
    if where ~= old.labels[state.session] then
      return nil
    end
    if before ~= state then
      changed[#changed + 1] = i
    end
  end
  if #changed == 0 then
    return old
  end
  local view = {
    lines = copy(old.lines),
    items = copy(old.items),
    levels = old.levels, -- every line written again keeps its fold level
    folds = copy(old.folds),
    index = old.index, -- every line written again keeps its key
    trees = old.trees, -- the same shape: no task moved or changed parent
    labels = old.labels, -- the same checkouts
    base = old,
    virt = {},
    states = states,
    opts = opts,
  }
  for l, chunks in pairs(old.virt) do
    view.virt[l] = chunks
  end
  local fold_at = {}
  for i, fold in ipairs(old.folds) do
    fold_at[fold.start] = i
  end
  ---@type plansight.Patch
  local patch = { old = old, view = view, opts = opts, line_marks = {}, active = {}, fold_at = fold_at }
  for _, i in ipairs(changed) do
    if not patch_session(patch, old_states[i], states[i]) then
      return nil
    end
  end
  join_marks(patch)
  return view
end

return M
