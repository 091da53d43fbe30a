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

H.run()
