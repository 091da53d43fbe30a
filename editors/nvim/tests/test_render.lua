-- The pure renderer on fixture states: lines, icons, highlights, folds. No server.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local config = require("plansight.config")
local render = require("plansight.render")

local function task(id, content, status, extra)
  local t = {
    id = id,
    content = content,
    activeForm = "Doing " .. content,
    status = status,
    notes = {},
    createdAt = "2025-01-01T00:00:00.000Z",
    updatedAt = "2025-01-01T00:00:00.000Z",
  }
  return vim.tbl_extend("force", t, extra or {})
end

---A Progress as the server sends it (fixtures only: the plugin never counts).
local function progress(tasks)
  local completed, abandoned, blocked = 0, 0, 0
  for _, t in ipairs(tasks) do
    completed = completed + (t.status == "completed" and 1 or 0)
    abandoned = abandoned + (t.status == "abandoned" and 1 or 0)
    blocked = blocked + (t.status == "blocked" and 1 or 0)
  end
  local total = #tasks
  return {
    completed = completed,
    abandoned = abandoned,
    blocked = blocked,
    total = total,
    percent = total > 0 and math.floor(100 * completed / total) or 0,
  }
end

---A TodoState as the server sends it; `current` is the last task in progress.
local function state(session, phases, updated)
  local all, current = {}, nil
  for _, p in ipairs(phases) do
    p.progress = p.progress or progress(p.tasks)
    for _, t in ipairs(p.tasks) do
      all[#all + 1] = t
      if t.status == "in_progress" then
        current = t
      end
    end
  end
  return {
    session = session,
    version = 1,
    phases = phases,
    progress = progress(all),
    current = current,
    updatedAt = updated or "2025-01-01T00:00:00.000Z",
  }
end

local function opts()
  return { icons = config.options.icons, bar_width = 10 }
end

local fixture = state("default", {
  {
    name = "Build",
    tasks = {
      task("t1", "Configure", "completed"),
      task("t2", "Run tests", "in_progress", { activeForm = "Running tests", notes = { "3 failing", "line one\nline two" } }),
      task("t3", "Fix lint", "pending", { notes = { "ruff says E501" } }),
    },
  },
  { name = "Ship", tasks = { task("t4", "Tag release", "abandoned"), task("t5", "Write docs", "pending") } },
})

H.test("header, phases, icons and activeForm", function()
  local view = render.view({ fixture }, opts())
  H.eq(view.lines, {
    "▾ default  1/5 ██░░░░░░░░",
    "  ▾ Build  1/3",
    "    ✓ Configure",
    "    ● Running tests",
    "      │ 3 failing",
    "      │ line one",
    "      │ line two",
    "    ○ Fix lint",
    "      │ ruff says E501",
    "  ▾ Ship  0/2",
    "    ✗ Tag release",
    "    ○ Write docs",
  }, "sidebar lines")
end)

H.test("highlight groups per status", function()
  local view = render.view({ fixture }, opts())
  local by_row = {}
  for _, m in ipairs(view.marks) do
    by_row[m[1] + 1] = by_row[m[1] + 1] or {}
    table.insert(by_row[m[1] + 1], m[4])
  end
  H.eq(by_row[1][1], "PlansightHeader", "header")
  H.eq(by_row[2][1], "PlansightPhase", "phase")
  H.eq(by_row[3], { "PlansightDone", "PlansightDone" }, "completed task")
  H.eq(by_row[4], { "PlansightActive", "PlansightActive" }, "in progress task")
  H.eq(by_row[5], { "PlansightNote" }, "note")
  H.eq(by_row[8], { "PlansightPending", "PlansightPending" }, "pending task")
  H.eq(by_row[11], { "PlansightDropped", "PlansightDropped" }, "abandoned task")
  for _, m in ipairs(view.marks) do
    local line = view.lines[m[1] + 1]
    H.ok(m[2] >= 0 and m[3] <= #line and m[2] <= m[3], "mark inside its line: " .. vim.inspect(m))
  end
end)

H.test("folds: sessions and phases open, only the current task's notes open", function()
  local view = render.view({ fixture }, opts())
  local folds = {}
  for _, f in ipairs(view.folds) do
    folds[#folds + 1] = { f.start, f.finish, f.level, f.closed }
  end
  H.eq(folds, {
    { 1, 12, 1, false },
    { 2, 9, 2, false },
    { 4, 7, 3, false }, -- in progress: notes open
    { 8, 9, 3, true }, -- pending: notes folded
    { 10, 12, 2, false },
  }, "folds")
  H.eq(view.levels, { ">1", ">2", 2, ">3", 3, 3, 3, ">3", 3, ">2", 2, 2 }, "fold levels")
end)

H.test("items keep stable keys for cursor and folds", function()
  local view = render.view({ fixture }, opts())
  H.eq(view.items[4].kind, "task", "task item")
  H.eq(view.items[4].task.id, "t2", "task id")
  H.eq(view.items[5].kind, "note", "note item")
  H.eq(view.items[5].task.id, "t2", "note belongs to its task")
  H.eq(view.index[view.items[8].key], 8, "index by key")
  H.eq(#view.active, 1, "one in-progress icon")
  H.eq(view.active[1].row, 3, "in-progress row")
end)

H.test("closed fold text swaps the marker and counts hidden notes", function()
  local view = render.view({ fixture }, opts())
  local icons = config.options.icons
  local phase = render.fold_text(view, 2, icons)
  local text = ""
  for _, c in ipairs(phase) do
    text = text .. c[1]
  end
  H.eq(text, "  ▸ Build  1/3", "closed phase")
  local t = render.fold_text(view, 8, icons)
  text = ""
  for _, c in ipairs(t) do
    text = text .. c[1]
  end
  H.eq(text, "    ○ Fix lint  [+1]", "closed task")
end)

H.test("v2: blocked, waiting, priorities, owners, files, title, the server's phase progress", function()
  local s = state("agent-7", {
    {
      name = "Build",
      tasks = {
        task("t1", "Run the build", "in_progress", { priority = "high", owner = "lead", files = { "src/a.py", "README.md" } }),
        task("t2", "Ask for the key", "blocked", { owner = "lead", description = "Ops hold it.\nAsk on Monday." }),
        task("t3", "Deploy", "pending", { blockedBy = { "t1", "t2", "t4" }, waiting = true, priority = "low", owner = "sub" }),
        task("t4", "Done before", "completed", { priority = vim.NIL, owner = vim.NIL }),
      },
    },
  })
  s.title = "Release 2.0 of the whole thing"
  -- The server's count wins: the shim draws it, it does not count.
  s.phases[1].progress = { completed = 1, abandoned = 0, blocked = 1, total = 4, percent = 25 }
  local view = render.view({ s }, vim.tbl_extend("force", opts(), { width = 30 }))
  H.eq(view.lines, {
    "▾ Release 2.0…  1/4 ███░░░░░░░",
    "  ▾ Build  1/4",
    "    ● !! Doing Run the build", -- it fits: whole; its owner is cut
    "      ◦ src/a.py",
    "      ◦ README.md",
    "    ⊘ Ask for the key",
    "      ≡ Ops hold it.",
    "      ≡ Ask on Monday.",
    "    ○ ↓ Deploy",
    "    ✓ Done before",
  }, "lines")
  H.eq(view.items[4].kind, "file", "a file is a child of its task")
  H.eq(view.items[4].file, "src/a.py", "the file's path")
  H.eq(view.items[4].task.id, "t1", "the file's task")
  H.eq(view.folds[3].start, 3, "the task with files folds them")
  H.eq(view.folds[3].finish, 5, "up to its last file")
  H.eq(view.items[7].kind, "description", "the description under its task")
  H.eq(view.folds[4].closed, true, "a blocked task's description is folded")
  H.eq(view.virt[9], { { '  waits for "R…', "PlansightWaiting" } }, "cut to the width with …")
  H.eq(view.virt[3], nil, "no room left for the owner at 30 columns (K shows it)")
  H.eq(render.view({ s }, vim.tbl_extend("force", opts(), { width = 34 })).virt[3], { { "  @l…", "PlansightOwner" } }, "cut to the room")
  local wide = render.view({ s }, vim.tbl_extend("force", opts(), { width = 80 })).virt
  H.eq(wide[9], {
    { '  waits for "Run the build", "Ask for the key"', "PlansightWaiting" },
    { "  @sub", "PlansightOwner" },
  }, "waits for its unfinished blockers, and its owner (the session's owners differ)")
  H.eq(view.virt[10], nil, "a task without owner shows none")
  local groups = {}
  for _, m in ipairs(view.marks) do
    if m[1] == 5 then
      groups[#groups + 1] = m[4]
    elseif m[1] == 2 and view.lines[3]:sub(m[2] + 1, m[3]) == "!!" then
      groups.priority = m[4]
    end
  end
  H.eq(groups, { "PlansightBlocked", "PlansightBlocked", priority = "PlansightPriorityHigh" }, "blocked and priority groups")
  -- One owner for the whole session: nobody's name is repeated on every line.
  local one = state("default", { { name = "Todos", tasks = { task("t1", "A", "pending", { owner = "me" }) } } })
  H.eq(render.view({ one }, opts()).virt, {}, "no owner shown when all tasks share it")
end)

H.test("several sessions, each its own section, in the given (newest first) order", function()
  local older = state("agent-a", { { name = "Todos", tasks = { task("t1", "Old", "completed") } } }, "2025-01-01T00:00:00.000Z")
  local newer = state("agent-b", { { name = "Todos", tasks = { task("t1", "New", "pending") } } }, "2025-01-02T00:00:00.000Z")
  local view = render.view({ newer, older }, opts())
  H.eq(view.lines[1]:match("^▾ (%S+)"), "agent-b", "newest first")
  H.eq(view.lines[4], "", "blank line between sessions")
  H.eq(view.lines[5]:match("^▾ (%S+)"), "agent-a", "older second")
  H.ok(view.items[3].key ~= view.items[7].key, "same task id in two sessions, distinct keys")
end)

H.test("the agent's label leads the header: sessions with the same first prompt differ at any width", function()
  local function titled(session)
    local st = state(session, { { name = "Todos", tasks = { task("t1", "Fix it", "pending") } } })
    st.title = "Fix the login bug please, and then look at the signup form too"
    return st
  end
  local o = opts()
  o.width = 30
  local view = render.view({ titled("claude-code:5f0c2a9e"), titled("codex:019a1b2c"), titled("gemini-cli-mcp-client 2026-11-23 12:52") }, o)
  H.eq(view.lines[1]:match("^▾ (%S+) Fix"), "claude", "Claude Code's hook session")
  H.eq(view.lines[5]:match("^▾ (%S+) Fix"), "codex", "Codex's hook session")
  H.eq(view.lines[9]:match("^▾ (%S+) Fix"), "gemini", "an MCP session named after its client")
  for _, lnum in ipairs({ 1, 5, 9 }) do
    H.ok(vim.fn.strdisplaywidth(view.lines[lnum]) <= 30, "fits the width: " .. view.lines[lnum])
  end
  H.ok(view.lines[1] ~= view.lines[5], "the two headers differ")
  local groups = {}
  for i = view.first_mark[1], view.first_mark[2] - 1 do
    groups[view.lines[1]:sub(view.marks[i][2] + 1, view.marks[i][3])] = view.marks[i][4]
  end
  H.eq(groups["claude"], "PlansightAgent", "the label has its own highlight")
  -- Without a title the session's own id follows the label (the agent's word is not repeated).
  local untitled = render.view({ state("claude-code:5f0c2a9e", { { name = "Todos", tasks = { task("t1", "a", "pending") } } }) }, opts())
  H.eq(untitled.lines[1]:match("^▾ (.-)  0/1"), "claude 5f0c2a9e", "label, then the id")
  -- A session a person named has no label.
  local plain = render.view({ state("release", { { name = "Todos", tasks = { task("t1", "a", "pending") } } }) }, opts())
  H.eq(plain.lines[1]:match("^▾ (.-)  0/1"), "release", "no label")
end)

H.test("empty and cleared plans", function()
  local view = render.view({}, opts())
  H.eq(#view.lines, 1, "one message line")
  H.ok(view.lines[1]:find("No plan yet", 1, true), "empty message")
  local cleared = state("default", {})
  view = render.view({ cleared }, opts())
  H.eq(view.lines, { "▾ default  0/0", "  (no tasks)" }, "cleared session")
end)

H.test("plan text is data: one line each, never split or interpreted", function()
  local s = state("default", {
    {
      name = "Ph\nase",
      tasks = {
        task("t1", ":qa!", "pending"),
        task("t2", "<CR>:!rm -rf /<CR>", "pending", { notes = { "<Esc>:qa!<CR>\r\nsecond" } }),
        task("t3", "%{execute('qa!')}", "pending"),
      },
    },
  })
  local view = render.view({ s }, opts())
  H.eq(view.lines, {
    "▾ default  0/3 ░░░░░░░░░░",
    "  ▾ Ph ase  0/3",
    "    ○ :qa!",
    "    ○ <CR>:!rm -rf /<CR>",
    "      │ <Esc>:qa!<CR>",
    "      │ second",
    "    ○ %{execute('qa!')}",
  }, "literal lines")
end)

H.test("the current task is the server's, not the first in progress", function()
  local s = state("default", {
    { name = "Build", tasks = { task("t1", "First", "in_progress"), task("t2", "Second", "in_progress") } },
  })
  s.current = s.phases[1].tasks[2]
  local view = render.view({ s }, opts())
  local marked = {}
  for lnum, item in ipairs(view.items) do
    if item.current then
      marked[#marked + 1] = lnum
    end
  end
  H.eq(marked, { view.index["t\0default\0t2"] }, "only the server's current task is marked")
  s.current = vim.NIL
  view = render.view({ s }, opts())
  for _, item in ipairs(view.items) do
    H.ok(not item.current, "no current task: none marked")
  end
end)

H.test("configured icons are used", function()
  local icons = vim.tbl_extend("force", config.options.icons, { pending = "[ ]", completed = "[x]", in_progress = "[>]" })
  local view = render.view({ fixture }, { icons = icons, bar_width = 0 })
  H.eq(view.lines[1], "▾ default  1/5", "no bar when bar_width = 0")
  H.eq(view.lines[3], "    [x] Configure", "completed icon")
  H.eq(view.lines[4], "    [>] Running tests", "in progress icon")
end)

H.test("v4: subtasks indented under their task, a parent's leaves' progress on its line, a fold per parent", function()
  local s = state("default", {
    {
      name = "Release",
      tasks = {
        task("t1", "Build", "in_progress", { parent = vim.NIL, activeForm = "Build" }),
        task("t2", "Compile", "completed", { parent = "t1" }),
        task("t3", "Test", "in_progress", { parent = "t1", activeForm = "Test", notes = { "flaky" } }),
        task("t4", "Unit", "in_progress", { parent = "t3", activeForm = "Unit" }),
        task("t5", "Integration", "pending", { parent = "t3" }),
        task("t6", "Ship", "completed", { parent = vim.NIL }),
        task("t7", "Tag", "completed", { parent = "t6" }),
      },
    },
  })
  local view = render.view({ s }, opts())
  H.eq(view.lines, {
    "▾ default  3/7 ████░░░░░░",
    "  ▾ Release  3/7",
    "    ● Build  1/3",
    "      ✓ Compile",
    "      ● Test  0/2",
    "        │ flaky",
    "        ● Unit",
    "        ○ Integration",
    "    ✓ Ship  1/1",
    "      ✓ Tag",
  }, "three levels; each parent's leaves, completed of all")
  local folds = {}
  for _, f in ipairs(view.folds) do
    folds[#folds + 1] = { f.start, f.finish, f.closed }
  end
  H.eq(folds, {
    { 1, 10, false },
    { 2, 10, false },
    { 3, 8, false }, -- Build: its subtasks, open while it goes on
    { 5, 8, false }, -- Test: its note and its subtasks
    { 9, 10, true }, -- Ship ended: its subtasks folded away
  }, "a fold per parent, closed where its subtasks end")
  H.eq(view.items[7].ancestors, { "t\0default\0t3", "t\0default\0t1" }, "a subtask knows its parents (the cursor falls back to them)")
  -- A filter keeps a shown subtask's parents, and only them.
  local filtered = render.view({ s }, vim.tbl_extend("force", opts(), { filter = { text = "integ" } }))
  H.eq(vim.list_slice(filtered.lines, 2), {
    "",
    "▾ default  3/7 ████░░░░░░",
    "  ▾ Release  3/7",
    "    ● Build  1/3",
    "      ● Test  0/2",
    "        │ flaky",
    "        ○ Integration",
  }, "the match with its parents")
  H.eq(filtered.lines[1], 'Filter: text "integ"; 1 of 7 tasks (f: filter, H: hide finished)', "said first")
end)

H.run()
