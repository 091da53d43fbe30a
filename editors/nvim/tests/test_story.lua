-- The end-to-end story (issue #13, section 4): a recorded Claude Code session replayed
-- through `plansight hook claude-code`, one real subprocess per event, while the sidebar
-- of a real server on the same store watches; then a person completes a task with `x` and
-- the agent's next prompt is told so, once.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local plansight = require("plansight")
-- Wide enough for the agent's label and the whole title.
plansight.setup({ cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = false, sidebar = { width = 60 } })
local sidebar = require("plansight.sidebar")

-- Recorded from the real CLI: tests/fixtures/hooks/README.md says how.
local FIXTURES = H.repo_root .. "/tests/fixtures/hooks/claude-code/"
local SESSION = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"
local TITLE = "Fix the login bug please" -- the recorded prompt
-- The agent's own folder: the hook must go by the event's cwd, never by its own.
local agent_home = H.tmpdir()

---A recorded event, its machine paths (placeholders) filled in for this test's project.
---@param name string
---@return table
local function event(name)
  local text = table.concat(vim.fn.readfile(FIXTURES .. name .. ".json"), "\n")
  text = text:gsub("{{project}}", function()
    return p.root
  end)
  text = text:gsub("{{home}}", function()
    return agent_home
  end)
  return vim.json.decode(text)
end

---The third TaskCreate: Claude Code recorded two in one turn; this one is the second
---recorded event with only its subject and ids changed (the shape stays as recorded).
---@return table
local function third_task_create()
  local e = event("PostToolUse-TaskCreate-2")
  e.tool_input.subject = "Add a regression test"
  e.tool_response.task.subject = "Add a regression test"
  e.tool_response.task.id = "3"
  e.tool_use_id = "toolu_01b"
  return e
end

local HOOK_ENV = { PLANSIGHT_DB = p.db, PLANSIGHT_HOOK_IDLE_SECONDS = "60" }

---Runs `plansight hook claude-code` with the event on stdin, as Claude Code does, writing
---the test's store; fails unless it exits 0 with one JSON object on stdout and no stderr.
---@param e table
---@return string stdout, table reply
local function hook(e)
  local res = vim
    .system({ H.plansight_bin, "hook", "claude-code" }, {
      stdin = vim.json.encode(e),
      cwd = agent_home,
      -- The events after the first go to the warm hook process it starts: it leaves
      -- within a minute of the last one, and the last test stops it.
      env = HOOK_ENV,
      text = true,
    })
    :wait(30000) -- a guard against a hang, not a speed check
  H.eq(res.code, 0, "the hook's exit code (stderr: " .. tostring(res.stderr) .. ")")
  H.eq(res.stderr, "", "the hook says nothing on stderr")
  local lines = vim.split(res.stdout, "\n", { trimempty = true })
  H.eq(#lines, 1, "stdout is exactly one JSON object: " .. vim.inspect(res.stdout))
  local reply = vim.json.decode(lines[1])
  H.eq(type(reply), "table", "the reply is an object")
  return res.stdout, reply
end

---Replays one recorded step; the agent is told nothing while nobody else edits its plan.
---@param e table
local function step(e)
  local stdout = hook(e)
  H.eq(vim.trim(stdout), "{}", "nothing to tell the agent after " .. e.hook_event_name)
end

local function shown()
  return "\n" .. table.concat(H.sidebar_lines(), "\n")
end

---Waits until the sidebar holds every one of these lines.
---@param lines string[]
---@param what string
local function wait_for(lines, what)
  H.wait(function()
    for _, text in ipairs(lines) do
      if not H.find_line(text) then
        return false
      end
    end
    return true
  end, what .. shown())
end

---The sidebar's task lines, in order.
---@return string[]
local function task_lines()
  local out = {}
  for lnum, item in ipairs(sidebar.state.view.items) do
    if item.kind == "task" then
      out[#out + 1] = H.sidebar_lines()[lnum]
    end
  end
  return out
end

---The files the sidebar draws under the task with this content.
---@param content string
---@return string[]
local function files_under(content)
  local out = {}
  for _, item in ipairs(sidebar.state.view.items) do
    if item.kind == "file" and item.task.content == content then
      out[#out + 1] = item.file
    end
  end
  return out
end

H.test("the recorded session shows up in the sidebar step by step", function()
  vim.cmd("Plansight")
  H.wait(function()
    return H.find_line("No plan yet")
  end, "the empty sidebar" .. shown())

  -- SessionStart and the prompt make no plan: the sidebar stays empty until a task.
  step(event("SessionStart"))
  step(event("UserPromptSubmit"))
  H.flush()
  H.ok(H.find_line("No plan yet"), "no session before the first task" .. shown())

  step(event("PostToolUse-TaskCreate-1"))
  wait_for({ "▾ claude " .. TITLE .. "  0/1", "○ Reproduce the login bug" }, "the first task, the session titled by its prompt")
  H.eq(H.sidebar_lines()[1]:match("^▾ claude (.-)  %d"), TITLE, "the agent, then the prompt's title in the header, not the session id")

  step(event("PostToolUse-TaskCreate-2"))
  wait_for({ "▾ claude " .. TITLE .. "  0/2", "○ Fix the session check" }, "the second task")

  step(third_task_create())
  wait_for({ "▾ claude " .. TITLE .. "  0/3", "○ Add a regression test" }, "the third task")
  H.eq(task_lines(), {
    "    ○ Reproduce the login bug",
    "    ○ Fix the session check",
    "    ○ Add a regression test",
  }, "three tasks, in the agent's order")

  step(event("PostToolUse-TaskUpdate-in_progress"))
  wait_for({ "● Reproducing the login bug" }, "the task in progress, by its activeForm")
  local active = H.find_line("● Reproducing the login bug")
  H.eq(H.line_groups(active)[1], "PlansightActive", "the task in progress is marked")
  H.eq(#vim.tbl_filter(function(l)
    return l:find("●", 1, true) ~= nil
  end, task_lines()), 1, "one task in progress")

  step(event("PostToolUse-Edit"))
  wait_for({ "◦ app.py" }, "the edited file")
  H.eq(files_under("Reproduce the login bug"), { "app.py" }, "the file, workspace-relative, under the task in progress")
  local file = H.find_line("◦ app.py")
  H.ok(file > active and file < H.find_line("○ Fix the session check"), "drawn under the task in progress" .. shown())
  H.eq(files_under("Fix the session check"), {}, "not under the other tasks")

  step(event("PostToolUse-TaskUpdate-completed"))
  wait_for({ "▾ claude " .. TITLE .. "  1/3", "✓ Reproduce the login bug" }, "the agent completes its task")
  H.eq(files_under("Reproduce the login bug"), { "app.py" }, "the file stays with its task")
  H.eq(H.cli_state(p.db, SESSION).title, TITLE, "the hook and the server share one store")
end)

H.test("a person completes a task with x; the agent's next prompt is told so, once", function()
  local lnum = H.find_line("○ Fix the session check")
  H.ok(lnum, "the task in the sidebar" .. shown())
  vim.api.nvim_set_current_win(sidebar.state.win)
  vim.api.nvim_win_set_cursor(sidebar.state.win, { lnum, 0 })
  H.feed("x")
  wait_for({ "▾ claude " .. TITLE .. "  2/3", "✓ Fix the session check" }, "the person's completion")

  local stdout, told = hook(event("UserPromptSubmit"))
  H.eq(stdout:sub(-1), "\n", "one line")
  local out = told.hookSpecificOutput
  H.ok(type(out) == "table", "hookSpecificOutput in " .. stdout)
  H.eq(vim.tbl_keys(told), { "hookSpecificOutput" }, "nothing else in the reply")
  H.eq(out.hookEventName, "UserPromptSubmit", "the event it answers")
  H.ok(type(out.additionalContext) == "string", "additionalContext in " .. stdout)
  H.ok(out.additionalContext:find("Fix the session check", 1, true), "names the completed task: " .. out.additionalContext)
  H.ok(out.additionalContext:find("The user changed the todo list", 1, true), "as the person's change: " .. out.additionalContext)
  H.ok(not out.additionalContext:find("Reproduce the login bug", 1, true), "the agent's own completion is not told back to it: " .. out.additionalContext)

  step(event("UserPromptSubmit")) -- told once: the next prompt gets {}

  vim.system({ H.plansight_bin, "hook-daemon", "--stop" }, { env = HOOK_ENV }):wait(30000)
end)

H.run()
