-- The Lua API for agent plugins, the statusline, auto-open on the first plan, the spinner.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
H.load_plugin()
local p = H.project()
local plansight = require("plansight")
local sidebar = require("plansight.sidebar")
local protocol = require("plansight.protocol")
local base = { cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = true }
plansight.setup(base)

local main_win = vim.api.nvim_get_current_win()
local events = {}
local unsubscribe = plansight.on_change(function(state, event)
  events[#events + 1] = { session = state.session, version = state.version, origin = event.origin, completed = event.completedTasks }
end)

---Calls an async API function and waits for its callback.
local function sync(fn, ...)
  local done, err, result = false, nil, nil
  local args = { ... }
  args[#args + 1] = function(e, r)
    done, err, result = true, e, r
  end
  fn(unpack(args))
  H.wait(function()
    return done
  end, "callback")
  return err, result
end

H.test("get starts the server and answers", function()
  local err, state = sync(plansight.get, { session = "agent" })
  H.eq(err, nil, "no error")
  H.eq(state.session, "agent", "session")
  H.eq(state.version, 0, "unknown session starts at 0")
  H.ok(not sidebar.is_open(), "nothing opened yet")
end)

H.test("the first live plan opens the sidebar without focus", function()
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Todos", items = { "Read", "Write" } } } } }, "agent")
  H.wait(function()
    return sidebar.is_open()
  end, "auto-open")
  H.eq(vim.api.nvim_get_current_win(), main_win, "focus stays")
  H.wait_line("● Read", "plan drawn")
  -- Closed by the user, it stays closed on later changes.
  sidebar.close()
  H.cli_apply(p.db, { { op = "done", task = "Read" } }, "agent")
  H.wait(function()
    local st = plansight.get({ session = "agent" })
    return st and st.progress.completed == 1
  end, "change received")
  H.flush()
  H.ok(not sidebar.is_open(), "not reopened")
end)

H.test("apply: result, on_change event with origin and completed tasks", function()
  events = {}
  local err, result = sync(plansight.apply, {
    { op = "init", list = { { phase = "Build", items = { "Compile", "Test" } } } },
    { op = "done", task = "Compile" },
  }, { session = "api" })
  H.eq(err, nil, "no error")
  H.eq(result.isError, false, "no op error")
  H.eq(result.progress.completed, 1, "progress")
  H.ok(result.summary:find("1/2 completed", 1, true), "summary")
  H.wait(function()
    return #events > 0
  end, "on_change called")
  H.eq(events[1].session, "api", "event session")
  H.eq(events[1].origin, "agent", "API calls are the agent's by default")
  H.eq(events[1].completed[1].content, "Compile", "completedTasks")
  H.eq(plansight.get({ session = "api" }).version, result.version, "get without cb reads the cache")

  local _, bad = sync(plansight.apply, { { op = "done", task = "Nope" } }, { session = "api" })
  H.eq(bad.isError, true, "skipped op")
  H.ok(bad.errors[1]:find('Task "Nope" not found', 1, true), "error line")

  local conflict = sync(plansight.apply, { { op = "done", task = "Test" } }, { session = "api", baseVersion = 0 })
  H.eq(conflict and conflict.code, protocol.errors.content_modified, "baseVersion conflict")
end)

H.test("write: TodoWrite shape, strict refusal as an error", function()
  local err, result = sync(plansight.write, {
    { content = "Plan", activeForm = "Planning", status = "completed" },
    { content = "Code", activeForm = "Coding", status = "in_progress" },
  }, { session = "api", origin = "user" })
  H.eq(err, nil, "no error")
  H.ok(result.summary:find("Todo list updated: 1/2 completed", 1, true), "summary")
  H.eq(H.cli_state(p.db, "api").current.content, "Code", "CLI reads it")
  local refused = sync(plansight.write, {
    { content = "A", activeForm = "A", status = "in_progress" },
    { content = "B", activeForm = "B", status = "in_progress" },
  }, { session = "api" })
  H.eq(refused and refused.code, protocol.errors.invalid_params, "InvalidParams")
  H.ok(protocol.error_text(refused):find("Only one task can be in_progress", 1, true), "readable: " .. protocol.error_text(refused))
end)

H.test("context for an agent's next prompt", function()
  local err, result = sync(plansight.context, { session = "api" })
  H.eq(err, nil, "no error")
  H.eq(type(result.text), "string", "text")
  H.eq(type(result.reminder), "boolean", "reminder")
end)

H.test("statusline", function()
  require("plansight.client").selected_session = "api"
  H.eq(plansight.statusline(), "● Coding 1/2", "current task and progress")
  H.eq(plansight.statusline({ session = "agent" }), "● Write 1/2", "another session")
  H.eq(plansight.statusline({ session = "nope" }), "", "empty without a plan")
  H.eq(plansight.statusline({ max_width = 4 }), "● Cod… 1/2", "the task cut to max_width cells")
  -- Cells, not characters: each of these takes two.
  local ops = { { op = "init", list = { { phase = "P", items = { "計画を立てる" } } } }, { op = "start", task = "計画を立てる" } }
  local err = sync(plansight.apply, ops, { session = "wide" })
  H.eq(err, nil, "the wide plan applied")
  H.eq(plansight.statusline({ session = "wide", max_width = 7 }), "● 計画を… 0/1", "wide characters fit in max_width cells")
  require("plansight.client").selected_session = nil
end)

H.test("on_change can be unsubscribed", function()
  unsubscribe()
  events = {}
  sync(plansight.apply, { { op = "note", task = "Code", text = "halfway" } }, { session = "api" })
  H.flush()
  H.eq(#events, 0, "no more calls")
end)

H.test("a spinner, when configured, turns over the in-progress icon", function()
  local frames = { "⠋", "⠙", "⠹", "⠸" }
  plansight.setup(vim.tbl_deep_extend("force", base, { icons = { spinner = frames } }))
  sidebar.open()
  H.wait_line("● Coding", "plan drawn")
  local function frame()
    local marks = vim.api.nvim_buf_get_extmarks(sidebar.state.buf, sidebar.spinner_ns, 0, -1, { details = true })
    return marks[1] and marks[1][4].virt_text[1][1]
  end
  H.wait(function()
    return frame() ~= nil
  end, "spinner drawn")
  local first = frame()
  H.wait(function()
    return frame() ~= first
  end, "spinner turns")
  H.ok(H.find_line("● Coding"), "the buffer text keeps the icon")
  sidebar.close()
  H.eq(sidebar.state.timer, nil, "timer stopped with the sidebar")
end)

H.test("settings reach the server: initializationOptions, then didChangeConfiguration", function()
  local client = require("plansight.client")
  -- A fresh server, started with autoStart off.
  plansight.setup(vim.tbl_deep_extend("force", base, { settings = { autoStart = false } }))
  client.stop(p.root)
  H.eq(client.get(p.root).status, "idle", "stopped")
  local _, result = sync(plansight.apply, { { op = "init", list = { { phase = "P", items = { "one", "two" } } } } }, { session = "s1" })
  H.eq(result.current, nil, "autoStart off from initializationOptions: nothing started")
  -- The same server, told autoStart is on.
  plansight.setup(vim.tbl_deep_extend("force", base, { settings = { autoStart = true } }))
  _, result = sync(plansight.apply, { { op = "append", phase = "P", items = { "three" } } }, { session = "s1" })
  H.eq(result.current and result.current.content, "one", "autoStart on after didChangeConfiguration")
  plansight.setup(base)
end)

H.run()
