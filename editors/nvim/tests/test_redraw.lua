-- The sidebar's incremental redraw: after any sequence of changes the buffer, its
-- highlights and its folds are exactly what a fresh render draws. No server.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
H.load_plugin()
local client = require("plansight.client")
local sidebar = require("plansight.sidebar")

local root = H.tmpdir()
local conn = client.connection(root)
conn.status = "ready"
conn.loaded = true

local STATUSES = { "pending", "in_progress", "completed", "abandoned" }
local seed = 12345
local function rand(n)
  -- A small LCG so a failure replays the same way.
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end

local next_id = 0
local function random_state(session, version)
  local phases = {}
  for p = 1, rand(4) do
    local tasks = {}
    for t = 1, rand(6) - 1 do
      next_id = next_id + 1
      local notes = {}
      for k = 1, rand(3) - 1 do
        notes[k] = "note " .. k .. (rand(4) == 1 and "\nsecond line" or "")
      end
      tasks[t] = {
        id = "t" .. rand(30),
        content = "Task " .. rand(12),
        activeForm = "Doing " .. t,
        status = STATUSES[rand(4)],
        notes = notes,
      }
    end
    phases[p] = { name = "Phase " .. rand(3), tasks = tasks }
  end
  local total, completed = 0, 0
  for _, ph in ipairs(phases) do
    for _, t in ipairs(ph.tasks) do
      total = total + 1
      completed = completed + (t.status == "completed" and 1 or 0)
    end
  end
  return {
    session = session,
    version = version,
    phases = phases,
    progress = { completed = completed, abandoned = 0, total = total, percent = total > 0 and math.floor(100 * completed / total) or 0 },
    updatedAt = ("2025-01-01T00:00:%02d.000Z"):format(rand(59)),
  }
end

---`marks` (`{row, col, end_col, group}`) in buffer order.
local function in_order(marks)
  table.sort(marks, function(a, b)
    return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
  end)
  return marks
end

---The buffer's highlights as `{row, col, end_col, group}`, sorted.
local function buffer_marks()
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(sidebar.state.buf, sidebar.ns, 0, -1, { details = true })) do
    out[#out + 1] = { m[2], m[3], m[4].end_col, m[4].hl_group }
  end
  return in_order(out)
end

---The view's highlights that are drawn (not empty), sorted.
local function view_marks(view)
  local out = {}
  for _, m in ipairs(view.marks) do
    if m[3] > m[2] then
      out[#out + 1] = { m[1], m[2], m[3], m[4] }
    end
  end
  return in_order(out)
end

H.test("changed_runs keeps the unchanged head and tail", function()
  local render = require("plansight.render")
  local config = require("plansight.config")
  local opts = { icons = config.options.icons, bar_width = 10 }
  local a = random_state("s", 1)
  local b = vim.deepcopy(a)
  b.version = 2
  -- One status change in the last phase with tasks.
  for p = #b.phases, 1, -1 do
    if #b.phases[p].tasks > 0 then
      b.phases[p].tasks[1].status = b.phases[p].tasks[1].status == "completed" and "pending" or "completed"
      break
    end
  end
  local va, vb = render.view({ a }, opts), render.view({ b }, opts)
  local runs = sidebar.changed_runs(va, vb)
  local rewritten = 0
  for _, r in ipairs(runs) do
    H.eq(r[2], r[3], "same length")
    rewritten = rewritten + (r[3] - r[1])
  end
  H.ok(rewritten <= 4, "a status change rewrites a few lines, not " .. rewritten)
end)

H.test("200 random updates: buffer, highlights and folds equal a fresh render", function()
  sidebar.open({ root = root, connect = false })
  local win = sidebar.state.win
  local versions = { a = 0, b = 0 }
  local toggled = {} -- fold key -> closed, where the user left it unlike its default
  for step = 1, 200 do
    -- Sometimes the user opens or closes a visible fold first.
    local before = sidebar.state.view
    if before and #before.folds > 0 and rand(2) == 1 then
      local fold = before.folds[rand(#before.folds)]
      vim.api.nvim_win_call(win, function()
        local fc = vim.fn.foldclosed(fold.start)
        if fc == -1 or fc == fold.start then
          vim.api.nvim_win_set_cursor(win, { fold.start, 0 })
          vim.cmd("normal! za")
          -- The plugin remembers a state that differs from the default; back at the
          -- default, the fold follows the default again (e.g. when its task starts).
          local closed = vim.fn.foldclosed(fold.start) == fold.start
          if closed ~= fold.closed then
            toggled[fold.key] = closed
          else
            toggled[fold.key] = nil
          end
        end
      end)
    end
    local session = rand(3) == 1 and "b" or "a"
    versions[session] = versions[session] + 1
    client.ingest(conn, random_state(session, versions[session]))
    sidebar.render()
    local view = sidebar.state.view
    H.eq(vim.api.nvim_buf_get_lines(sidebar.state.buf, 0, -1, false), view.lines, "lines at step " .. step)
    H.eq(buffer_marks(), view_marks(view), "highlights at step " .. step)
    vim.api.nvim_win_call(win, function()
      for _, fold in ipairs(view.folds) do
        local closed = toggled[fold.key]
        if closed == nil then
          closed = fold.closed
        end
        local fc = vim.fn.foldclosed(fold.start)
        -- A fold inside a closed one reads as its parent's; only check visible ones.
        if fc == -1 or fc == fold.start then
          H.eq(fc == fold.start, closed, ("fold %q at step %d"):format(fold.key, step))
        end
      end
      for lnum = 1, #view.lines do
        local level = view.levels[lnum]
        local want = type(level) == "string" and tonumber(level:sub(2)) or level
        H.eq(vim.fn.foldlevel(lnum), want, ("fold level of line %d at step %d"):format(lnum, step))
      end
    end)
  end
  sidebar.close()
end)

---A plan of two phases with subtasks, notes, a task waiting for another and an owner each,
---of session "a", at `version`.
local function nested_plan(version)
  local phases = {}
  local n = 0
  for p = 1, 3 do
    local tasks = {}
    for t = 1, 6 do
      n = n + 1
      tasks[t] = {
        id = "t" .. n,
        content = "Task " .. n,
        activeForm = "Doing " .. n,
        status = "pending",
        notes = n % 3 == 0 and { "note of " .. n } or {},
        owner = "ann",
        blockedBy = n % 5 == 0 and { "t" .. (n - 1) } or {},
        waiting = n % 5 == 0,
        -- Tasks 2 and 3 of each phase are subtasks of its first; 4 of its third.
        parent = (t == 2 or t == 3) and ("t" .. (n - t + 1)) or (t == 4 and ("t" .. (n - 1)) or nil),
      }
    end
    phases[p] = { name = "Phase " .. p, tasks = tasks, progress = { completed = 0, abandoned = 0, total = 6, percent = 0 } }
  end
  return {
    session = "a",
    version = version,
    phases = phases,
    progress = { completed = 0, abandoned = 0, total = n, percent = 0 },
    updatedAt = "2025-01-02T00:00:00.000Z",
  }
end

---The next version of `state` with one small change to one task, as a delta applied
---(the other tasks the same tables) or as a whole state decoded anew.
local function small_change(state, whole)
  local new = whole and vim.deepcopy(state) or vim.tbl_extend("force", {}, state)
  new.version = state.version + 1
  if not whole then
    new.phases = {}
    for p, phase in ipairs(state.phases) do
      new.phases[p] = { name = phase.name, progress = phase.progress, tasks = { unpack(phase.tasks) } }
    end
  end
  local phase = new.phases[rand(#new.phases)]
  local t = rand(#phase.tasks)
  local task = vim.deepcopy(phase.tasks[t])
  phase.tasks[t] = task
  local what = rand(6)
  if what == 1 then
    task.status = STATUSES[rand(4)]
  elseif what == 2 then
    task.content = "Renamed " .. rand(100)
  elseif what == 3 and #task.notes > 0 then
    task.notes = { "edited note " .. rand(100) }
  elseif what == 4 then
    task.priority = ({ "high", "low", vim.NIL })[rand(3)]
  elseif what == 5 then
    new.current = task
    task.status = "in_progress"
  else
    task.status = "completed"
    local done = 0
    for _, tk in ipairs(phase.tasks) do
      done = done + (tk.status == "completed" and 1 or 0)
    end
    phase.progress = { completed = done, abandoned = 0, total = #phase.tasks, percent = math.floor(100 * done / #phase.tasks) }
  end
  return new
end

H.test("300 small live updates, patched: buffer, highlights and folds equal a fresh render", function()
  local render = require("plansight.render")
  local patch = require("plansight.patch")
  local patched, calls = 0, 0
  local real = patch.view
  patch.view = function(...)
    calls = calls + 1
    local v = real(...)
    patched = patched + ((v and v ~= select(1, ...)) and 1 or 0)
    return v
  end
  conn.states = {}
  sidebar.state.overrides = {} -- the folds the last test's person toggled
  local state = nested_plan(1)
  client.ingest(conn, state)
  client.ingest(conn, vim.tbl_extend("force", nested_plan(1), { session = "b", updatedAt = "2025-01-01T00:00:00.000Z" }))
  sidebar.open({ root = root, connect = false })
  local win = sidebar.state.win
  local toggled = {}
  for step = 1, 300 do
    local before = sidebar.state.view
    if rand(3) == 1 then
      local fold = before.folds[rand(#before.folds)]
      vim.api.nvim_win_call(win, function()
        local fc = vim.fn.foldclosed(fold.start)
        if fc == -1 or fc == fold.start then
          vim.api.nvim_win_set_cursor(win, { fold.start, 0 })
          vim.cmd("normal! za")
          local closed = vim.fn.foldclosed(fold.start) == fold.start
          if closed ~= fold.closed then
            toggled[fold.key] = closed
          else
            toggled[fold.key] = nil
          end
        end
      end)
    end
    -- A fold the person left as its default is at the default: it follows the next one.
    -- (Only one it can read: a fold inside a closed one keeps what it had.)
    vim.api.nvim_win_call(win, function()
      for _, fold in ipairs(before.folds) do
        local fc = vim.fn.foldclosed(fold.start)
        if toggled[fold.key] == fold.closed and (fc == -1 or fc == fold.start) then
          toggled[fold.key] = nil
        end
      end
    end)
    state = small_change(state, rand(2) == 1)
    client.ingest(conn, state)
    sidebar.render()
    local view = sidebar.state.view
    H.eq(view.base, nil, "the view drawn keeps no view before it alive")
    local fresh = render.view(client.states(root), view.opts)
    H.eq(view.lines, fresh.lines, "the view's lines at step " .. step)
    H.eq(view_marks(view), view_marks(fresh), "the view's highlights at step " .. step)
    H.eq(vim.api.nvim_buf_get_lines(sidebar.state.buf, 0, -1, false), fresh.lines, "lines at step " .. step)
    local highlights, virt = {}, {}
    for _, m in ipairs(buffer_marks()) do
      if m[4] then
        highlights[#highlights + 1] = m
      end
    end
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(sidebar.state.buf, sidebar.ns, 0, -1, { details = true })) do
      if m[4].virt_text then
        virt[m[2] + 1] = vim.tbl_map(function(c)
          return { c[1], c[2] }
        end, m[4].virt_text)
      end
    end
    H.eq(highlights, view_marks(fresh), "highlights at step " .. step)
    H.eq(virt, fresh.virt, "virtual text at step " .. step)
    H.eq(#view.active, #fresh.active, "in-progress icons at step " .. step)
    vim.api.nvim_win_call(win, function()
      for i, fold in ipairs(fresh.folds) do
        H.eq({ view.folds[i].start, view.folds[i].finish, view.folds[i].closed }, { fold.start, fold.finish, fold.closed }, "fold " .. i)
        local closed = toggled[fold.key]
        if closed == nil then
          closed = fold.closed
        end
        local fc = vim.fn.foldclosed(fold.start)
        if fc == -1 or fc == fold.start then
          H.eq(fc == fold.start, closed, ("fold %q at step %d"):format(fold.key, step))
        end
      end
      for lnum = 1, #fresh.lines do
        H.eq(view.items[lnum].key, fresh.items[lnum].key, "item of line " .. lnum)
        local level = fresh.levels[lnum]
        local want = type(level) == "string" and tonumber(level:sub(2)) or level
        H.eq(vim.fn.foldlevel(lnum), want, ("fold level of line %d at step %d"):format(lnum, step))
      end
    end)
  end
  patch.view = real
  H.ok(patched > 250, ("most updates are patched, not drawn whole: %d of %d"):format(patched, calls))
  sidebar.close()
end)

H.test("folds the person closed with zM stay closed through a live update", function()
  conn.states = {}
  sidebar.state.overrides = {} -- the folds the last test's person toggled
  local state = nested_plan(1)
  client.ingest(conn, state)
  sidebar.open({ root = root, connect = false })
  local win = sidebar.state.win
  vim.api.nvim_win_call(win, function()
    vim.cmd("normal! zM")
  end)
  local next_state = vim.deepcopy(state)
  next_state.version = 2
  next_state.phases[3].tasks[6].status = "completed"
  client.ingest(conn, next_state)
  sidebar.render()
  vim.api.nvim_win_call(win, function()
    vim.api.nvim_win_set_cursor(win, { 1, 0 })
    vim.cmd("normal! zo") -- the session opens: its phases are as the person left them
    local view = sidebar.state.view
    for _, fold in ipairs(view.folds) do
      if view.items[fold.start].kind == "phase" then
        H.eq(vim.fn.foldclosed(fold.start), fold.start, "phase " .. view.lines[fold.start] .. " still closed")
      end
    end
  end)
  sidebar.close()
end)

H.run()
