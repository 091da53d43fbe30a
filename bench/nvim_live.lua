-- Live-update benchmark of the Neovim sidebar against the real server (issue 34): a plan of
-- 1,000 tasks, one task completed per change, each change pushed by the server
-- (`plansight/didChange`, a delta when the server sends them) and drawn by the sidebar.
--
--   bench/nvim_live.sh            # PLANSIGHT_BENCH_RUNS=100 by default
--
-- Times the redraw the push causes (`sidebar.render`: the view, the buffer's lines, the
-- extmarks, the folds and the cursor), with the sidebar visible and the cursor mid-plan.
-- Side by side in one run: changes alternate between the redraw of what changed
-- (`plansight.patch`) and the whole redraw of before, so the machine's load weighs on both
-- alike. Target: the redraw of what changed at most 5 ms. Prints the figures; asserts
-- nothing about time.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
-- PLANSIGHT_NVIM_PLUGIN: another copy of the plugin (bench/nvim_compare.sh live times an
-- older commit's beside this one); one without `plansight.patch` draws every change whole.
local plugin = vim.env.PLANSIGHT_NVIM_PLUGIN
vim.opt.rtp:prepend((plugin and plugin ~= "") and plugin or (here .. "/../editors/nvim"))
vim.o.swapfile = false
vim.cmd("runtime plugin/plansight.lua")

local client = require("plansight.client")
local compat = require("plansight.compat")
local sidebar = require("plansight.sidebar")

local PHASES, PER_PHASE = 20, 50 -- 1,000 tasks
local RUNS = tonumber(vim.env.PLANSIGHT_BENCH_RUNS or "") or 100
local bin = assert(vim.env.PLANSIGHT_BIN, "PLANSIGHT_BIN: the plansight command")
local root = vim.uv.fs_realpath(vim.fn.getcwd()) or vim.fn.getcwd()
local db = root .. "/bench.sqlite3"

-- The plan as an agent writes it: every fifth task with two notes.
local list = {}
for p = 1, PHASES do
  local items = {}
  for t = 1, PER_PHASE do
    local n = (p - 1) * PER_PHASE + t
    items[t] = {
      content = ("Task %d of phase %d: do the thing properly"):format(t, p),
      activeForm = ("Doing task %d of phase %d"):format(t, p),
      notes = n % 5 == 0 and { "first note for " .. n, "second note" } or nil,
    }
  end
  list[p] = { phase = "Phase " .. p, items = items }
end
-- A plan over the default 200 tasks: the server's `maxTasks` raised, as bench/run.py does.
require("plansight").setup({
  cmd = { bin, "serve", "--db", db },
  auto_open = false,
  settings = { maxTasks = 5000 },
})
sidebar.open({ root = root, focus = false })
local written
client.request(root, "plansight/apply", { session = "bench", ops = { { op = "init", list = list } } }, function(err)
  assert(not err, "writing the plan: " .. vim.inspect(err))
  written = true
end)
local conn = client.get(root) --[[@as plansight.Connection]]
local function wait(cond, what)
  assert(vim.wait(60000, cond, 5), "timed out waiting for " .. what)
end
wait(function()
  return written and conn.loaded and conn.states.bench ~= nil and sidebar.state.view ~= nil and #sidebar.state.view.lines > 1000
end, "the plan drawn")
vim.api.nvim_win_set_cursor(sidebar.state.win, { 800, 0 })

-- Each redraw, timed, with the version it drew.
local drawn, took = 0, 0
local render = sidebar.render
sidebar.render = function()
  local t0 = vim.uv.hrtime()
  render()
  took = (vim.uv.hrtime() - t0) / 1e6
  drawn = conn.states.bench and conn.states.bench.version or 0
end

---Completes task `n` through the connection, answer unread: the push alone updates the
---sidebar, as a change of an agent's (another process) does.
---@param n integer
---@return number ms the redraw it caused
local function change(n)
  local version = conn.states.bench.version
  local lsp = assert(client.lsp_client(conn))
  compat.call(lsp, "request", "plansight/apply", { session = "bench", ops = { { op = "done", id = "t" .. n } } }, function() end)
  wait(function()
    return drawn > version
  end, "the push drawn")
  return took
end

local samples = { patch = {}, whole = {} }
local can_patch = pcall(require, "plansight.patch")
for i = 1, 10 do -- warm up
  sidebar.patching = i % 2 == 0
  change(i)
end
for i = 1, RUNS do
  local patching = can_patch and i % 2 == 0
  sidebar.patching = patching
  table.insert(samples[patching and "patch" or "whole"], change(10 + i))
end

local function stats(list_)
  table.sort(list_)
  return list_[math.floor(#list_ / 2) + 1], list_[math.max(1, math.floor(#list_ * 0.95))]
end
local view = sidebar.state.view
io.stdout:write(
  ("nvim live update against the server, %d tasks (%d lines, %d folds), %d changes, deltas %s, Neovim %s:\n"):format(
    PHASES * PER_PHASE,
    #view.lines,
    #view.folds,
    RUNS,
    tostring(conn.capabilities and conn.capabilities.changeDeltas == true),
    tostring(vim.version())
  )
)
local wm, wp = stats(samples.whole)
io.stdout:write(("  whole redraw:               median %.2f ms, p95 %.2f ms\n"):format(wm, wp))
if can_patch then
  local pm, pp = stats(samples.patch)
  io.stdout:write(("  redraw of what changed:     median %.2f ms, p95 %.2f ms (target <= 5 ms)\n"):format(pm, pp))
end
io.stdout:flush()
for _, c in ipairs(vim.lsp.get_clients({ name = "plansight" })) do
  c:stop(true)
end
vim.cmd("qall!")
