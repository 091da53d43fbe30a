-- Render benchmark of the Neovim sidebar: a 500-task plan, drawn again after each change.
--
--   nvim --headless --clean -l bench/nvim_render.lua
--   bench/nvim_compare.sh render [REV]   # REV's plugin and this one, side by side
--
-- Times the whole redraw a live `plansight/didChange` causes (the pure view, the buffer
-- lines, the extmarks, the folds and the cursor), with the sidebar visible. No server:
-- the states go straight into the plugin's cache. Target: under 10 ms per render.
-- Prints the figures; asserts nothing about time.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
-- PLANSIGHT_NVIM_PLUGIN: another copy of the plugin (bench/nvim_compare.sh render times an
-- older commit's beside this one).
local plugin = vim.env.PLANSIGHT_NVIM_PLUGIN
vim.opt.rtp:prepend((plugin and plugin ~= "") and plugin or (here .. "/../editors/nvim"))
vim.cmd("runtime plugin/plansight.lua")

local client = require("plansight.client")
local config = require("plansight.config")
local render = require("plansight.render")
local sidebar = require("plansight.sidebar")

local PHASES, PER_PHASE = 10, 50 -- 500 tasks
local RUNS = tonumber(vim.env.PLANSIGHT_BENCH_RUNS or "") or 200

---A plan with `PHASES * PER_PHASE` tasks; every fifth task has two notes; the task at
---`current` is in progress, those before it completed. `tag` is appended to every task.
local function plan(version, current, tag)
  local phases, n = {}, 0
  local now = "2025-01-01T00:00:00.000Z"
  local cur
  for p = 1, PHASES do
    local tasks = {}
    for t = 1, PER_PHASE do
      n = n + 1
      local status = n < current and "completed" or (n == current and "in_progress" or "pending")
      local task = {
        id = "t" .. n,
        content = ("Task %d of phase %d: do the thing properly%s"):format(t, p, tag or ""),
        activeForm = ("Doing task %d of phase %d"):format(t, p),
        status = status,
        notes = n % 5 == 0 and { "first note for " .. n, "second note\nwith two lines" } or {},
        createdAt = now,
        updatedAt = now,
      }
      if status == "in_progress" then
        cur = task
      end
      tasks[t] = task
    end
    local done = 0
    for _, task in ipairs(tasks) do
      done = done + (task.status == "completed" and 1 or 0)
    end
    -- Each phase's progress, as the server sends it.
    local progress = { completed = done, abandoned = 0, blocked = 0, total = #tasks, percent = math.floor(100 * done / #tasks) }
    phases[p] = { name = "Phase " .. p, tasks = tasks, progress = progress }
  end
  return {
    session = "bench",
    version = version,
    phases = phases,
    progress = { completed = current - 1, abandoned = 0, total = n, percent = math.floor(100 * (current - 1) / n) },
    current = cur,
    updatedAt = now,
  }
end

local function stats(samples)
  table.sort(samples)
  local sum = 0
  for _, s in ipairs(samples) do
    sum = sum + s
  end
  return {
    median = samples[math.floor(#samples / 2) + 1],
    p95 = samples[math.floor(#samples * 0.95)],
    mean = sum / #samples,
  }
end

local root = vim.fn.getcwd()
local conn = client.connection(root)
conn.status = "ready"
conn.loaded = true
client.ingest(conn, plan(1, 1))
sidebar.open({ root = root, connect = false })
assert(#vim.api.nvim_buf_get_lines(sidebar.state.buf, 0, -1, false) > 500, "the plan is drawn")

-- Put the cursor mid-plan and close a phase, as a user would have.
vim.api.nvim_win_set_cursor(sidebar.state.win, { 300, 0 })

-- Warm up, then time.
for i = 1, 20 do
  client.ingest(conn, plan(1 + i, 1 + i))
  sidebar.render()
end
local views, renders, full = {}, {}, {}
local opts = { icons = config.options.icons, bar_width = config.options.sidebar.bar_width }
-- States are made before timing: decoding JSON is not the renderer's work.
local live, renamed = {}, {}
for i = 1, RUNS do
  live[i] = plan(100 + i, 1 + (i % 400))
  renamed[i] = plan(1000 + i, 1 + (i % 400), " #" .. i)
end
collectgarbage()
for i = 1, RUNS do
  -- A live update: the next task starts (a few lines change).
  local state = live[i]
  client.ingest(conn, state)
  local t0 = vim.uv.hrtime()
  render.view({ state }, opts)
  views[#views + 1] = (vim.uv.hrtime() - t0) / 1e6
  t0 = vim.uv.hrtime()
  sidebar.render()
  renders[#renders + 1] = (vim.uv.hrtime() - t0) / 1e6
end
for i = 1, RUNS do
  -- The worst case: every line changes (every task renamed).
  client.ingest(conn, renamed[i])
  local t0 = vim.uv.hrtime()
  sidebar.render()
  full[#full + 1] = (vim.uv.hrtime() - t0) / 1e6
end
local lines = vim.api.nvim_buf_line_count(sidebar.state.buf)
local r, v, f = stats(renders), stats(views), stats(full)
io.stdout:write(
  ("nvim render, %d tasks (%d lines, %d folds), %d runs each, Neovim %s:\n"):format(
    PHASES * PER_PHASE,
    lines,
    #sidebar.state.view.folds,
    RUNS,
    tostring(vim.version())
  )
)
io.stdout:write(("  live update (next task starts): median %.2f ms, p95 %.2f ms (target < 10 ms)\n"):format(r.median, r.p95))
io.stdout:write(("  every line changed:             median %.2f ms, p95 %.2f ms (target < 10 ms)\n"):format(f.median, f.p95))
io.stdout:write(("  the pure view alone:            median %.2f ms\n"):format(v.median))
io.stdout:flush()
vim.cmd("qall!")
