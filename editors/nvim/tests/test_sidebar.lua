-- The sidebar against the real server: live updates from another process, keys, commands,
-- folds and cursor across updates, focus, and plan text that looks like commands.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local plansight = require("plansight")
local sidebar = require("plansight.sidebar")
local client = require("plansight.client")

local main_win = vim.api.nvim_get_current_win()
local events = {}
plansight.on_change(function(state, event)
  events[#events + 1] = { session = state.session, version = state.version, origin = event.origin }
end)

local PLAN = {
  {
    op = "init",
    list = {
      {
        phase = "Build",
        items = {
          { content = "Configure", status = "completed" },
          { content = "Run tests", activeForm = "Running tests", status = "in_progress", notes = { "3 failing" } },
          { content = "Fix lint", notes = { "ruff: E501", "second note" } },
        },
      },
      { phase = "Ship", items = { "Tag release", "Write docs" } },
    },
  },
}

H.test(":Plansight opens the sidebar without taking focus", function()
  vim.cmd("Plansight")
  H.ok(sidebar.is_open(), "sidebar open")
  H.eq(vim.api.nvim_get_current_win(), main_win, "focus stays in the editing window")
  local buf = sidebar.state.buf
  H.eq(vim.bo[buf].filetype, "plansight", "filetype")
  H.eq(vim.bo[buf].buftype, "nofile", "scratch buffer")
  H.eq(vim.bo[buf].modifiable, false, "not modifiable")
  H.eq(vim.api.nvim_win_get_width(sidebar.state.win), 42, "configured width")
  local wins = vim.api.nvim_tabpage_list_wins(0)
  H.eq(vim.fn.win_screenpos(sidebar.state.win)[2] > vim.fn.win_screenpos(main_win)[2], true, "on the right")
  H.eq(#wins, 2, "one split")
  H.wait(function()
    return client.get(p.root).loaded
  end, "the session list is read")
  H.wait_line("No plan yet", "empty state")
end)

H.test("a plan applied by another process appears with its icons and header", function()
  H.cli_apply(p.db, PLAN)
  H.wait_line("● Running tests", "the plan in the sidebar")
  local lines = H.sidebar_lines()
  H.eq(lines[1], "▾ default  1/5 ██░░░░░░░░", "header: session, progress, bar")
  H.eq(lines[2], "  ▾ Build  1/3", "phase")
  H.eq(lines[3], "    ✓ Configure", "completed")
  H.eq(lines[4], "    ● Running tests", "in progress shows its activeForm")
  H.eq(lines[5], "      │ 3 failing", "current task's notes open")
  H.eq(lines[6], "    ○ Fix lint", "pending")
  H.ok(H.find_line("  ▾ Ship  0/2"), "second phase")
  H.eq(H.line_groups(1)[1], "PlansightHeader", "header highlight")
  H.eq(H.line_groups(3)[1], "PlansightDone", "done highlight")
  H.eq(H.line_groups(4)[1], "PlansightActive", "active highlight")
  H.eq(H.line_groups(6)[1], "PlansightPending", "pending highlight")
  -- The pending task's notes are folded, the current task's are not.
  vim.api.nvim_win_call(sidebar.state.win, function()
    H.eq(vim.fn.foldclosed(6), 6, "Fix lint's notes folded")
    H.eq(vim.fn.foldclosed(4), -1, "current task's notes open")
  end)
  H.eq(vim.api.nvim_get_current_win(), main_win, "a live update does not take focus")
  H.eq(plansight.statusline(), "● Running tests 1/5", "statusline")
end)

H.test("x on a task completes it, as the user, and the CLI reads it back", function()
  H.goto_line("○ Fix lint")
  events = {}
  H.feed("x")
  H.wait_line("✓ Fix lint", "Fix lint completed in the sidebar")
  H.eq(H.cli_task(p.db, "Fix lint").status, "completed", "CLI reads the completion")
  H.wait(function()
    return #events > 0
  end, "a change event")
  H.eq(events[#events].origin, "user", "a person's edit goes with origin user")
  H.eq(H.find_line("✓ Fix lint"), vim.api.nvim_win_get_cursor(sidebar.state.win)[1], "cursor stays on the task")
end)

H.test("s starts, d drops, D removes, a adds, n notes", function()
  local answers = {}
  vim.ui.input = function(_, on_confirm)
    on_confirm(table.remove(answers, 1))
  end
  H.goto_line("○ Tag release")
  H.feed("s")
  H.wait_status(p.db, "Tag release", "in_progress", "s starts the task")
  H.eq(H.cli_task(p.db, "Run tests").status, "pending", "the other in-progress task is demoted")

  H.wait_line("○ Write docs", "Write docs in the sidebar")
  H.goto_line("○ Write docs")
  H.feed("d")
  H.wait_status(p.db, "Write docs", "abandoned", "d drops the task")
  H.wait_line("✗ Write docs", "dropped icon")

  H.goto_line("✗ Write docs")
  answers = { "Publish the wheel" }
  H.feed("a")
  H.wait(function()
    local task, phase = H.cli_task(p.db, "Publish the wheel")
    return task and phase == "Ship"
  end, "a appends to the phase under the cursor")

  H.wait_line("○ Publish the wheel", "added task shown")
  H.goto_line("○ Publish the wheel")
  answers = { "needs a token" }
  H.feed("n")
  H.wait(function()
    local task = H.cli_task(p.db, "Publish the wheel")
    return task and task.notes[1] == "needs a token"
  end, "n adds a note")

  H.goto_line("✗ Write docs")
  H.feed("D")
  H.wait(function()
    return H.cli_task(p.db, "Write docs") == nil
  end, "D removes the task")
  H.wait(function()
    return not H.find_line("Write docs")
  end, "removed from the sidebar")
  vim.api.nvim_set_current_win(main_win)
end)

H.test("folds and cursor survive a live update that moves every line", function()
  -- The agent plans anew, having seen what the person did above (else its stale list
  -- would keep the person's removal and completions: protocol 3).
  H.cli_replan(p.db, PLAN)
  H.wait(function()
    return H.find_line("○ Fix lint") and H.find_line("○ Write docs")
  end, "fresh plan")
  -- The user opens Fix lint's notes, closes the Ship phase, and leaves the cursor on Fix lint.
  local fix = H.goto_line("○ Fix lint")
  H.feed("za")
  local ship = H.goto_line("▾ Ship")
  H.feed("za")
  H.goto_line("○ Fix lint")
  vim.api.nvim_win_call(sidebar.state.win, function()
    H.eq(vim.fn.foldclosed(fix), -1, "Fix lint's notes opened by the user")
    H.eq(vim.fn.foldclosed(ship), ship, "Ship closed by the user")
  end)
  vim.api.nvim_set_current_win(main_win)

  -- Another agent's session is newer: it is drawn above, so every line moves down.
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Research", items = { "Read the issue", "Sketch a fix" } } } } }, "agent-2")
  H.wait(function()
    return H.sidebar_lines()[1]:find("agent-2", 1, true)
  end, "the newer session on top")
  local lines = H.sidebar_lines()
  H.ok(H.find_line("▾ default") > 1, "older session below")
  local win = sidebar.state.win
  local cursor = vim.api.nvim_win_get_cursor(win)[1]
  H.eq(lines[cursor], "    ○ Fix lint", "cursor still on Fix lint")
  H.ok(cursor > fix, "the line moved")
  vim.api.nvim_win_call(win, function()
    H.eq(vim.fn.foldclosed(cursor), -1, "Fix lint's notes still open")
    H.eq(vim.fn.foldclosed(cursor + 1), -1, "its note visible")
    local ship_now = H.find_line("▾ Ship")
    H.eq(vim.fn.foldclosed(ship_now), ship_now, "Ship still closed")
    local running = H.find_line("● Running tests")
    H.eq(vim.fn.foldclosed(running), -1, "the current task's notes still open")
  end)
  H.eq(vim.api.nvim_get_current_win(), main_win, "focus never left the editing window")
  H.eq(vim.api.nvim_get_mode().mode, "n", "still in normal mode")

  -- A closed fold shows the closed marker.
  vim.api.nvim_win_call(win, function()
    local ship_now = H.find_line("▾ Ship")
    H.ok(vim.fn.foldtextresult(ship_now):find("▸ Ship", 1, true), "closed marker in fold text")
  end)
end)

H.test(":Plansight add and :Plansight clear", function()
  vim.api.nvim_set_current_win(main_win)
  vim.cmd("Plansight session default")
  vim.cmd("Plansight add Write the changelog")
  H.wait(function()
    return H.cli_task(p.db, "Write the changelog") ~= nil
  end, "added through the command")
  H.wait_line("○ Write the changelog", "shown in the sidebar")
  vim.cmd("Plansight done Configure")
  vim.cmd("Plansight start Write the changelog")
  H.wait_status(p.db, "Write the changelog", "in_progress", ":Plansight start {task}")
  -- The next commands target the current task as the plugin knows it.
  H.wait_line("● Write the changelog", "started task shown")
  vim.cmd("Plansight note remember the date")
  H.wait(function()
    return H.cli_task(p.db, "Write the changelog").notes[1] == "remember the date"
  end, ":Plansight note goes to the current task")
  vim.cmd("Plansight done")
  H.wait_status(p.db, "Write the changelog", "completed", ":Plansight done completes the current task")

  local select = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    on_choice(items[1]) -- "Clear" (tests/test_clear.lua asks it as a person would)
  end
  vim.cmd("Plansight clear")
  vim.ui.select = select
  H.wait(function()
    return H.cli_state(p.db).progress.total == 0
  end, "cleared for the CLI")
  H.wait(function()
    local l = H.find_line("▾ default")
    return l and H.sidebar_lines()[l + 1] == "  (no tasks)"
  end, "cleared in the sidebar")
  H.ok(H.find_line("▾ agent-2") and H.find_line("○ Sketch a fix"), "the other session is untouched")
  H.ok(H.find_line("▾ default") < H.find_line("▾ agent-2"), "the cleared session is now the newest")
  client.selected_session = nil
end)

H.test("completion of :Plansight", function()
  local subs = vim.fn.getcompletion("Plansight ", "cmdline")
  for _, name in ipairs({ "toggle", "open", "close", "add", "clear", "start", "done", "drop", "note", "edit", "export", "session", "refresh" }) do
    H.ok(vim.tbl_contains(subs, name), "subcommand " .. name)
  end
  H.eq(vim.fn.getcompletion("Plansight st", "cmdline"), { "start" }, "prefix")
  vim.cmd("Plansight session agent-2")
  H.eq(vim.fn.getcompletion("Plansight start Sketch a", "cmdline"), { "a fix" }, "task names with spaces")
  H.ok(vim.tbl_contains(vim.fn.getcompletion("Plansight session ", "cmdline"), "agent-2"), "sessions")
  client.selected_session = nil
end)

H.test("plan text is shown as text, never run as commands or keys", function()
  local hostile = {
    ":qa!",
    "<CR>:qa!<CR>",
    "<Esc>ZZ",
    "%{execute('qa!')}",
    "\27:cq\r",
  }
  H.cli_apply(p.db, { { op = "init", list = { { phase = "<C-w>q", items = hostile } } } }, "evil")
  H.wait_line("<CR>:qa!<CR>", "hostile plan shown")
  H.ok(H.find_line("▾ <C-w>q"), "phase name literal")
  H.ok(H.find_line("○ <Esc>ZZ"), "keys literal")
  H.ok(H.find_line("%{execute('qa!')}"), "expression literal")
  -- Work on them with the sidebar keys: the text is only ever data.
  H.goto_line(":qa!")
  H.feed("x")
  H.wait(function()
    return H.cli_task(p.db, ":qa!", "evil") and H.cli_task(p.db, ":qa!", "evil").status == "completed"
  end, "x on ':qa!' completes it")
  H.goto_line("<CR>:qa!<CR>")
  H.feed("x")
  H.wait_status(p.db, "<CR>:qa!<CR>", "completed", "x on '<CR>:qa!<CR>' completes it", "evil")
  H.goto_line("▾ <C-w>q")
  H.feed("za")
  vim.api.nvim_win_call(sidebar.state.win, function()
    local l = H.find_line("▾ <C-w>q")
    H.ok(vim.fn.foldtextresult(l):find("<C-w>q", 1, true), "fold text literal")
  end)
  H.feed("za")
  vim.api.nvim_set_current_win(main_win)
  vim.cmd("Plansight session evil")
  vim.cmd("Plansight start %{execute('qa!')}")
  H.wait_status(p.db, "%{execute('qa!')}", "in_progress", "started by name", "evil")
  H.wait(function()
    return plansight.statusline():find("execute", 1, true)
  end, "statusline follows")
  H.eq(plansight.statusline(), "● %%{execute('qa!')} 2/5", "statusline escapes %")
  H.eq(plansight.statusline({ escape = false }), "● %{execute('qa!')} 2/5", "unescaped on request")
  vim.cmd("Plansight add <CR>:qa!<CR> | echo 'x'")
  H.wait(function()
    return H.cli_task(p.db, "<CR>:qa!<CR> | echo 'x'", "evil") ~= nil
  end, "a command argument is text too, bar included")
  client.selected_session = nil
  H.eq(#vim.api.nvim_list_wins(), 2, "no window was closed")
end)

H.test("a server that dies is started again once; dying again, the sidebar says so and r starts it", function()
  local conn = client.get(p.root)
  local first = conn.client_id
  H.messages = {}
  client.lsp_client(conn).rpc.terminate()
  H.wait(function()
    return conn.status == "ready" and conn.client_id ~= first
  end, "started again on its own")
  H.ok(H.messages[1] and H.messages[1].msg:find("started it again", 1, true), "said: " .. vim.inspect(H.messages))
  client.lsp_client(conn).rpc.terminate()
  H.wait(function()
    return conn.status == "exited"
  end, "the exit is seen")
  H.wait_line("Disconnected", "the sidebar says so")
  H.goto_line("Disconnected")
  H.feed("r")
  H.wait(function()
    return conn.status == "ready" and not H.find_line("Disconnected")
  end, "running again")
  H.cli_apply(p.db, { { op = "append", phase = "Research", items = { "After the restart" } } }, "agent-2")
  H.wait_line("○ After the restart", "live updates again")
  vim.api.nvim_set_current_win(main_win)
end)

H.test("opened from another tab page, the sidebar moves there", function()
  vim.cmd("tabnew")
  local tab2_win = vim.api.nvim_get_current_win()
  H.ok(not sidebar.is_open(), "not shown in the new tab page")
  vim.cmd("Plansight")
  H.ok(sidebar.is_open(), "shown in the new tab page")
  H.eq(vim.api.nvim_get_current_win(), tab2_win, "focus stays")
  H.eq(#vim.api.nvim_tabpage_list_wins(vim.api.nvim_list_tabpages()[1]), 1, "gone from the first tab page")
  H.wait_line("▾ default", "drawn")
  vim.cmd("tabclose")
  H.eq(vim.api.nvim_get_current_win(), main_win, "back in the first tab page")
  vim.cmd("Plansight open")
  H.ok(sidebar.is_open(), "back here")
end)

H.test("q closes the sidebar, :Plansight toggles it back with folds remembered", function()
  H.goto_line("▾ Research")
  H.feed("za")
  H.feed("q")
  H.ok(not sidebar.is_open(), "closed")
  H.eq(#vim.api.nvim_list_wins(), 1, "only the editing window left")
  vim.cmd("Plansight toggle")
  H.ok(sidebar.is_open(), "open again")
  H.eq(vim.api.nvim_get_current_win(), main_win, "still no focus taken")
  H.wait_line("▾ Research", "content back")
  vim.api.nvim_win_call(sidebar.state.win, function()
    local l = H.find_line("▾ Research")
    H.eq(vim.fn.foldclosed(l), l, "the phase closed before is closed again")
  end)
  vim.cmd("Plansight close")
  H.ok(not sidebar.is_open(), ":Plansight close")
end)

H.run()
