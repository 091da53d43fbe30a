-- Change deltas (docs/protocol.md, "Change deltas"): the plugin asks for them, applies one
-- only on the exact version it holds, and asks `plansight/get` on a gap; against the real
-- server and store, with pushes dropped and reordered on purpose.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local client = require("plansight.client")
local delta = require("plansight.delta")

---A delta from `old` to `new` as the contract describes it (the producer's side, for the
---cases the server does not send on purpose: a gap, an order it never makes).
---@param old table
---@param new table
---@return table
local function make_delta(old, new)
  local held, ids_of = {}, {}
  for _, phase in ipairs(old.phases) do
    local ids = {}
    for _, task in ipairs(phase.tasks) do
      held[task.id] = task
      ids[#ids + 1] = task.id
    end
    ids_of[phase.name] = ids
  end
  local d = { baseVersion = old.version, phases = {}, tasks = {}, removedIds = {} }
  local kept = {}
  for _, phase in ipairs(new.phases) do
    local ids = {}
    for _, task in ipairs(phase.tasks) do
      ids[#ids + 1] = task.id
      kept[task.id] = true
      if not vim.deep_equal(held[task.id], task) then
        d.tasks[#d.tasks + 1] = task
      end
    end
    local entry = { name = phase.name, progress = phase.progress }
    if not vim.deep_equal(ids_of[phase.name], ids) then
      entry.taskIds = ids
    end
    d.phases[#d.phases + 1] = entry
  end
  for id in pairs(held) do
    if not kept[id] then
      d.removedIds[#d.removedIds + 1] = id
    end
  end
  for key, value in pairs(new) do
    if key ~= "phases" then
      d[key] = value
    end
  end
  return d
end

---`state` as the plugin's connection decodes a message: JSON nulls in objects left out.
---@param state table
---@return table
local function as_pushed(state)
  return vim.json.decode(vim.json.encode(state), { luanil = { object = true } })
end

---The session's state as the CLI reads it from the store, as a push would carry it.
---@param session string
---@return table
local function stored(session)
  return as_pushed(H.cli_state(p.db, session))
end

-- The versions of session "s" seen by the first test, each as the CLI read it.
local versions = {}
local function snapshot()
  local state = H.cli_state(p.db, "s")
  versions[state.version] = state
  return state
end

H.test("a delta applied on the version before equals the whole state, field by field", function()
  H.cli_apply(p.db, {
    {
      op = "init",
      list = {
        { phase = "Build", items = { "Configure", "Compile", "Link" } },
        { phase = "Ship", items = { "Tag", "Publish" } },
      },
    },
  }, "s")
  local v1 = snapshot()
  -- A status, a note, a task added and one removed, a task moved to another phase, a new
  -- phase, a title: every kind of change a delta carries.
  H.cli({ "done", "--db", p.db, "--session", "s", "Configure" })
  H.cli({ "note", "--db", p.db, "--session", "s", "Compile", "slow on CI" })
  H.cli_apply(p.db, {
    { op = "append", phase = "Ship", items = { "Announce" } },
    { op = "append", phase = "Docs", items = { "Changelog" } },
  }, "s")
  H.cli({ "rm", "--db", p.db, "--session", "s", "Link" })
  H.cli({ "move", "--db", p.db, "--session", "s", "Publish", "--phase", "Build" })
  local last = snapshot()
  H.ok(last.version > v1.version + 1, "several versions apart")
  local d = make_delta(v1, last)
  local applied = assert(delta.apply(v1, d))
  H.eq(applied, last, "the delta applied")
  -- Unchanged tasks are the tables held: the sidebar tells changed ones by identity.
  H.ok(applied.phases[2].tasks[1] == v1.phases[2].tasks[1], "Tag is the task held")
end)

H.test("a delta is applied only on the exact version held", function()
  local v1 = stored("s")
  local v2 = vim.deepcopy(v1)
  v2.version = v1.version + 1
  v2.phases[1].tasks[1].content = "Configured"
  local d = make_delta(v1, v2)
  H.eq(delta.verdict(v1, d), "apply", "on its base")
  local older = vim.deepcopy(v1)
  older.version = v1.version - 1
  H.eq(delta.verdict(older, d), "gap", "a version before its base")
  H.eq(select(2, delta.apply(older, d)), "gap", "not applied on it")
  H.eq(delta.verdict(nil, d), "gap", "nothing held")
  H.eq(delta.verdict(v2, d), "stale", "already at its version")
  -- A delta naming a task the client does not hold (a push it never got) is not applied.
  local odd = vim.deepcopy(d)
  odd.phases[1].taskIds = { "t999" }
  H.eq(select(2, delta.apply(v1, odd)), "unknown task", "an id not held")
end)

-- From here on, through the plugin's connection to the real server. The cache is set back
-- to an older version by hand, as if pushes had been lost.
local conn

---Records the `plansight/get` requests the plugin sends.
local gets = {}
local function count_gets()
  local lsp = assert(client.lsp_client(conn))
  local request = lsp.request
  lsp.request = function(self, method, params, ...)
    if method == "plansight/get" then
      gets[#gets + 1] = params.session
    end
    return request(self, method, params, ...)
  end
end

H.test("the plugin asks for deltas at initialize", function()
  conn = client.ensure(p.root)
  H.wait(function()
    return conn.status == "ready" and conn.loaded
  end, "connected and listed")
  local lsp = assert(client.lsp_client(conn))
  H.eq(vim.tbl_get(lsp.capabilities, "experimental", "plansight", "changeDeltas"), true, "the opt-in sent")
  H.eq(conn.states.s, stored("s"), "the session read whole")
  count_gets()
end)

H.test("the real server's deltas: the plan stays equal to the store's through every kind of change", function()
  H.eq(conn.capabilities and conn.capabilities.changeDeltas, true, "the server sends deltas")
  local kinds = {}
  local receive = client.receive
  client.receive = function(c, params)
    kinds[#kinds + 1] = delta.is_delta(params) and "delta" or "whole"
    return receive(c, params)
  end
  gets = {}
  local steps = {
    { "start", "--session", "s", "Compile" },
    { "note", "--session", "s", "Compile", "second note" },
    { "add", "--session", "s", "--phase", "Docs", "Readme" },
    { "move", "--session", "s", "Readme", "--phase", "Ship" },
    { "done", "--session", "s", "Compile" },
    { "rm", "--session", "s", "Readme" },
    { "undo", "--session", "s" },
  }
  for _, step in ipairs(steps) do
    local args = { step[1], "--db", p.db }
    vim.list_extend(args, vim.list_slice(step, 2))
    H.cli(args)
    local want = stored("s")
    H.wait(function()
      return conn.states.s.version == want.version
    end, "the push of " .. step[1])
    -- A push also says who made the change and what it completed or removed.
    local plan = vim.tbl_extend("force", {}, conn.states.s)
    plan.origin, plan.completedTasks, plan.removedTasks = nil, nil, nil
    H.eq(plan, want, "after " .. step[1])
  end
  client.receive = receive
  H.ok(vim.tbl_contains(kinds, "delta"), "deltas came: " .. table.concat(kinds, " "))
  H.eq(gets, {}, "no gap, no get")
end)

H.test("the real server's push dropped on purpose: the next delta is a gap, the plan read again", function()
  local receive = client.receive
  local dropped = false
  client.receive = function(c, params)
    if not dropped and delta.is_delta(params) then
      dropped = true
      return
    end
    return receive(c, params)
  end
  gets = {}
  local held = conn.states.s.version
  H.cli({ "note", "--db", p.db, "--session", "s", "Configure", "dropped on the way" })
  H.wait(function()
    return dropped
  end, "the push dropped")
  H.eq(conn.states.s.version, held, "nothing applied")
  H.cli({ "note", "--db", p.db, "--session", "s", "Configure", "after the gap" })
  local want = stored("s")
  H.wait(function()
    return conn.states.s.version == want.version
  end, "the plan read again")
  client.receive = receive
  H.eq(gets, { "s" }, "one get")
  H.eq(conn.states.s, want, "equal to the store's")
end)

H.test("deltas in order are applied without asking the server", function()
  local last = stored("s")
  local v1 = as_pushed(versions[1])
  conn.states.s = v1
  gets = {}
  -- The steps 1 -> 2 -> last, in order.
  local v2 = vim.deepcopy(v1)
  v2.version = 2
  v2.phases[1].tasks[1].status = "completed"
  client.receive(conn, make_delta(v1, v2))
  H.eq(conn.states.s.version, 2, "the first applied")
  client.receive(conn, make_delta(v2, last))
  H.eq(conn.states.s, last, "the second applied: the whole state")
  H.eq(gets, {}, "no get")
end)

H.test("a gap: the push before was lost, so the whole state is asked for", function()
  local last = stored("s")
  local v1 = as_pushed(versions[1])
  conn.states.s = v1
  gets = {}
  local before = vim.deepcopy(last)
  before.version = last.version - 1
  client.receive(conn, make_delta(before, last))
  H.eq(conn.states.s, v1, "not applied on a version it does not name")
  H.eq(gets, { "s" }, "get asked")
  H.wait(function()
    return conn.states.s.version == last.version
  end, "the whole state is in")
  H.eq(conn.states.s, last, "equal to the store's")
end)

H.test("out of order: a later delta first asks once, the earlier one is then dropped", function()
  local last = stored("s")
  local v1 = as_pushed(versions[1])
  conn.states.s = v1
  gets = {}
  local v2 = vim.deepcopy(v1)
  v2.version = 2
  v2.phases[1].tasks[1].status = "completed"
  local late, early = make_delta(v2, last), make_delta(v1, v2)
  client.receive(conn, late) -- a gap: 1 held, its base is 2
  H.wait(function()
    return conn.states.s.version == last.version
  end, "the whole state is in")
  client.receive(conn, early) -- now behind what is held
  H.eq(conn.states.s, last, "still the whole state")
  H.eq(gets, { "s" }, "one get")
  -- Two gaps while the get is out: still one request.
  conn.states.s = v1
  gets = {}
  client.receive(conn, late)
  client.receive(conn, late)
  H.wait(function()
    return conn.states.s.version == last.version
  end, "the whole state is in again")
  H.eq(gets, { "s" }, "one get for two gaps")
end)

---Sends `ops` to session "s" through the plugin's API; waits for its answer.
---@param ops table[]
---@return table result what the caller was handed
local function apply_s(ops)
  local done, result = false, nil
  require("plansight").apply(ops, { root = p.root, session = "s" }, function(err, res)
    H.eq(err, nil, "the apply answered")
    done, result = true, res
  end)
  H.wait(function()
    return done
  end, "the answer")
  return result
end

---`state` without what a push or an answer adds to the plan's own fields.
local function plan_of(state)
  local plan = vim.tbl_extend("force", {}, state)
  for _, key in ipairs({ "origin", unpack(delta.RESULT_MEMBERS) }) do
    plan[key] = nil
  end
  return plan
end

---Records the answers of changing requests that came as deltas (and lets them through
---unless `drop` says to lose one).
local function watch_answers(drop)
  local seen = { count = 0 }
  local answer = client.answer
  client.answer = function(c, params, res, done)
    seen.count = seen.count + 1
    if drop and drop(res) then
      seen.dropped = res.version
      return done(res)
    end
    return answer(c, params, res, done)
  end
  return seen, function()
    client.answer = answer
  end
end

H.test("the plugin asks for delta answers; the server's are laid on the state held, no get", function()
  local lsp = assert(client.lsp_client(conn))
  H.eq(vim.tbl_get(lsp.capabilities, "experimental", "plansight", "changeDeltaAnswers"), true, "asked")
  H.eq(conn.capabilities and conn.capabilities.changeDeltaAnswers, true, "the server answers so")
  H.wait(function()
    return conn.states.s.version == stored("s").version
  end, "up to date")
  gets = {}
  local seen, restore = watch_answers()
  local result = apply_s({ { op = "append", phase = "Ship", items = { "Announce" } } })
  H.eq(seen.count, 1, "a delta answer")
  H.eq(plan_of(conn.states.s), stored("s"), "the plan equal to the store's")
  H.eq(plan_of(result), stored("s"), "the caller handed the whole state")
  H.eq(result.changed, true, "with the answer's members")
  H.ok(type(result.summary) == "string" and result.summary ~= "", "its summary")
  -- An answer that changed nothing: the state held, the caller told why.
  local version = conn.states.s.version
  local nothing = apply_s({ { op = "update", task = "t999", content = "x" } })
  H.eq({ nothing.version, nothing.changed, nothing.isError }, { version, false, true }, "nothing changed")
  H.eq(plan_of(nothing), stored("s"), "the whole state all the same")
  -- Undo, through the same path.
  local done = false
  client.request(p.root, "plansight/undo", { session = "s", origin = "user" }, function(err, res)
    H.eq(err, nil, "undo answered")
    H.eq(plan_of(res), stored("s"), "undo handed the whole state")
    done = true
  end)
  H.wait(function()
    return done
  end, "undo")
  restore()
  H.eq(seen.count, 3, "every answer a delta")
  H.eq(plan_of(conn.states.s), stored("s"), "equal to the store's after undo")
  H.eq(gets, {}, "no get")
end)

H.test("a delta answer dropped on purpose (and its push): the next answer is a gap, read whole", function()
  local receive = client.receive
  local target = conn.states.s.version + 1
  client.receive = function(c, params)
    if params.version == target then
      return -- its push lost too
    end
    return receive(c, params)
  end
  local seen, restore = watch_answers(function(res)
    return res.version == target
  end)
  gets = {}
  apply_s({ { op = "note", task = "Configure", text = "lost answer" } })
  H.eq(seen.dropped, target, "the answer dropped")
  H.eq(conn.states.s.version, target - 1, "nothing applied")
  local result = apply_s({ { op = "note", task = "Configure", text = "after the gap" } })
  restore()
  client.receive = receive
  H.eq(gets, { "s" }, "one get")
  H.eq(plan_of(conn.states.s), stored("s"), "equal to the store's")
  H.eq(plan_of(result), stored("s"), "the caller handed the state read")
  H.eq(result.summary ~= nil, true, "with the answer's members")
end)

H.test("a delta of a pruned session does not bring it back", function()
  local held = conn.states.s
  H.ok(held, "s held")
  -- 200 more sessions through the service in one process: the store keeps 200, so it
  -- prunes "s", the least recently updated.
  local python = vim.fs.joinpath(vim.fs.dirname(H.plansight_bin), "python")
  local fill = [[
import sys
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
service = PlanService(open_store(sys.argv[1]))
for i in range(200):
    raw = {"session": f"f{i:03}", "ops": [{"op": "append", "phase": "P", "items": ["x"]}]}
    service.apply(ApplyParams.validate(raw), raw)
service.store.close()
]]
  local res = vim.system({ python, "-c", fill, p.db }, { text = true }):wait(60000)
  H.eq(res.code, 0, "filling the store: " .. tostring(res.stderr))
  H.wait(function()
    return conn.states.s == nil
  end, "didPrune dropped it", 20000)
  -- A delta of it that was on its way: not applied, and the get finds nothing newer.
  local next_state = vim.deepcopy(held)
  next_state.version = held.version + 1
  gets = {}
  client.receive(conn, make_delta(held, next_state))
  H.eq(gets, { "s" }, "get asked")
  H.wait(function()
    return conn.catching_up.s == nil
  end, "the get answered")
  H.eq(conn.states.s, nil, "the pruned session stays gone")
end)

H.run()
