-- `:Plansight edit` and `:Plansight export` against the real server.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local plansight = require("plansight")
local sidebar = require("plansight.sidebar")

local function edit_buf()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf):find("^plansight://default%.md$") then
      return buf
    end
  end
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

H.test("the markdown edit round trip: :Plansight edit, change, :w", function()
  H.cli_apply(p.db, {
    {
      op = "init",
      list = {
        { phase = "Build", items = { { content = "Configure", status = "completed" }, { content = "Run tests", notes = { "3 failing" } } } },
        { phase = "Ship", items = { ":qa!", "<CR>:cq<CR>" } },
      },
    },
  })
  vim.cmd("Plansight open")
  H.wait_line("Run tests", "plan in the sidebar")
  -- From the sidebar, with the cursor in it: the buffer opens in the editing window.
  vim.api.nvim_set_current_win(sidebar.state.win)
  vim.cmd("Plansight edit")
  local buf = edit_buf()
  H.ok(buf, "edit buffer")
  H.ok(vim.api.nvim_get_current_win() ~= sidebar.state.win, "not in the sidebar window")
  H.eq(vim.api.nvim_get_current_buf(), buf, "focused")
  H.eq(vim.bo[buf].filetype, "markdown", "markdown")
  H.eq(vim.bo[buf].buftype, "acwrite", "written by the plugin, not to a file")
  H.wait(function()
    return text(buf):find("Run tests", 1, true)
  end, "exported markdown loaded")
  local md = text(buf)
  H.ok(md:find("## Build", 1, true), "phase heading")
  H.ok(md:find("- [x] Configure", 1, true), "completed line")
  H.ok(md:find("- [/] Run tests", 1, true), "in progress line")
  H.ok(md:find("> 3 failing", 1, true), "note line")
  H.ok(md:find("- [ ] :qa!", 1, true), "hostile task is text")
  H.eq(vim.bo[buf].modified, false, "not modified after loading")

  -- The person completes a task, adds one with a note, and renames a phase.
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("^%- %[/%] Run tests", "- [x] Run tests"):gsub("^## Ship$", "## Release")
  end
  lines[#lines + 1] = "- [ ] Publish <Esc>ZZ"
  lines[#lines + 1] = "  > needs a token"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  H.eq(vim.bo[buf].modified, true, "modified")
  vim.cmd("write")
  H.wait(function()
    local state = H.cli_state(p.db)
    local release = state.phases[2]
    return release
      and release.name == "Release"
      and release.tasks[3]
      and release.tasks[3].content == "Publish <Esc>ZZ"
      and release.tasks[3].notes[1] == "needs a token"
      and state.phases[1].tasks[2].status == "completed"
  end, "the CLI reads the imported plan")
  H.wait(function()
    return not vim.bo[buf].modified
  end, "buffer saved")
  H.wait(function()
    return H.find_line("○ Publish <Esc>ZZ") and H.find_line("▾ Release")
  end, "sidebar shows the import")
  H.eq(vim.fn.getbufvar(buf, "&modified"), 0, "no unsaved changes")
end)

H.test("an unmodified edit buffer follows live changes", function()
  local buf = edit_buf()
  H.cli_apply(p.db, { { op = "append", phase = "Release", items = { "Announce" } } })
  H.wait(function()
    return text(buf):find("- [ ] Announce", 1, true)
  end, "edit buffer follows the plan")
  H.eq(vim.bo[buf].modified, false, "still unmodified")
end)

H.test("an edit buffer with unsaved changes is left alone", function()
  local buf = edit_buf()
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "- [ ] Mine" })
  H.cli_apply(p.db, { { op = "append", phase = "Release", items = { "Theirs" } } })
  H.wait_line("○ Theirs", "the sidebar has the change")
  H.ok(not text(buf):find("Theirs", 1, true), "the person's text is not replaced")
  H.ok(text(buf):find("- [ ] Mine", 1, true), "unsaved text kept")
  vim.bo[buf].modified = false
end)

H.test(":Plansight export writes markdown and JSON files", function()
  local md = p.root .. "/plan.md"
  local js = p.root .. "/plan.json"
  vim.cmd("Plansight session default")
  vim.cmd("Plansight export " .. md)
  vim.cmd("Plansight export " .. js)
  H.wait(function()
    return vim.uv.fs_stat(md) and vim.uv.fs_stat(js)
  end, "both files written")
  local content = table.concat(vim.fn.readfile(md), "\n")
  H.ok(content:find("## Release", 1, true) and content:find("- [ ] Announce", 1, true), "markdown export")
  local decoded = vim.json.decode(table.concat(vim.fn.readfile(js), "\n"))
  H.eq(type(decoded), "table", "JSON export parses")
  require("plansight.client").selected_session = nil
end)

H.test("an import the server refuses keeps the buffer as typed and says why", function()
  local buf = edit_buf()
  vim.api.nvim_set_current_buf(buf)
  local before = H.cli_state(p.db).version
  local long = ("x"):rep(600) -- over maxContentLength (500)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "## Todos", "- [ ] " .. long })
  H.messages = {}
  vim.cmd("write")
  H.wait(function()
    for _, m in ipairs(H.messages) do
      if m.level == vim.log.levels.WARN and m.msg:find("too long", 1, true) then
        return true
      end
    end
  end, "a warning naming the problem")
  H.eq(H.cli_state(p.db).version, before, "the plan is unchanged")
  H.eq(vim.bo[buf].modified, true, "still modified")
  H.eq(vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1], "- [ ] " .. long, "the person's text is kept")
  vim.bo[buf].modified = false
end)

local edit = require("plansight.edit")

---Opens the edit buffer of `session` and waits for its text to hold `want`.
local function open_steer(session, want)
  local buf = edit.open(p.root, session)
  H.wait(function()
    return text(buf):find(want, 1, true)
  end, "the exported markdown of " .. session)
  return buf
end

---Waits until the plugin has heard of the plan's version `version` of `session`.
local function wait_version(session, version)
  H.wait(function()
    local conn = require("plansight.client").get(p.root)
    local state = conn and conn.states[session]
    return state and state.version >= version
  end, "the plugin to hear of version " .. version)
end

H.test(":w of a buffer opened before an agent's change merges with it (issue 21, item 5)", function()
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Todos", items = { "Write the parser", "Write the docs" } } } } }, "steer")
  vim.cmd("Plansight open")
  local buf = open_steer("steer", "Write the docs")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  lines[#lines + 1] = "- [ ] Person task C"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  -- The agent completes a task meanwhile; the modified buffer does not follow it.
  H.cli_apply(p.db, { { op = "done", task = "Write the parser" } }, "steer")
  wait_version("steer", H.cli_state(p.db, "steer").version)
  H.ok(not text(buf):find("- [x] Write the parser", 1, true), "the buffer still shows the stale copy: " .. text(buf))
  vim.cmd("write")
  H.wait(function()
    return H.cli_task(p.db, "Person task C", "steer") ~= nil
  end, "the person's task imported")
  H.eq(H.cli_task(p.db, "Write the parser", "steer").status, "completed", "the agent's completion survives the stale buffer")
  local mine = H.cli_task(p.db, "Person task C", "steer")
  H.eq(mine.createdBy, "user", "the task the person added is theirs")
  H.eq(mine.status, "pending", "a person's task is never started for them")
  H.wait(function()
    return not vim.bo[buf].modified and text(buf):find("- [x] Write the parser", 1, true)
  end, "the buffer reloads the merged plan: " .. text(buf))
  -- The sidebar marks the task the person added, and only that one.
  H.wait(function()
    local lnum = H.find_line("○ Person task C")
    if not lnum then
      return false
    end
    local marks = vim.api.nvim_buf_get_extmarks(sidebar.state.buf, -1, { lnum - 1, 0 }, { lnum - 1, -1 }, { details = true })
    for _, m in ipairs(marks) do
      for _, chunk in ipairs(m[4].virt_text or {}) do
        if vim.trim(chunk[1]) == "you" and chunk[2] == "PlansightYou" then
          return true
        end
      end
    end
  end, "the `you` mark on the person's task")
  local agents = H.find_line("Write the docs")
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(sidebar.state.buf, -1, { agents - 1, 0 }, { agents - 1, -1 }, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      H.ok(vim.trim(chunk[1]) ~= "you", "no mark on the agent's task")
    end
  end
end)

H.test("a conflicting :w lists the conflict and offers compare, overwrite, cancel; overwrite reverts nothing it did not list", function()
  local buf = open_steer("steer", "Person task C")
  H.wait(function()
    return not vim.bo[buf].modified
  end, "a saved buffer")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("^%- %[.%] Person task C$", "- [x] Person task C")
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  -- The agent drops the same task meanwhile: both changed its status. It also completes a
  -- task and adds one, which conflict with nothing (issue 33, item 2).
  H.cli_apply(p.db, {
    { op = "drop", task = "Person task C" },
    { op = "done", task = "Write the docs" },
    { op = "append", phase = "Todos", items = { "Agent task D" } },
  }, "steer")
  local dropped = H.cli_state(p.db, "steer").version
  wait_version("steer", dropped)

  local real_select = vim.ui.select
  local offered, answer = nil, "Compare"
  vim.ui.select = function(items, _, on_choice)
    offered = items
    on_choice(answer)
  end
  H.messages = {}
  vim.cmd("write")
  H.wait(function()
    return offered ~= nil
  end, "the choice")
  H.eq(offered, { "Compare", "Overwrite", "Cancel" }, "the choices")
  local told = false
  for _, m in ipairs(H.messages) do
    told = told or (m.msg:find('"Person task C": status changed on both sides', 1, true) ~= nil)
  end
  H.ok(told, "the conflict is named: " .. vim.inspect(H.messages))
  H.wait(function()
    local diffs = 0
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      diffs = diffs + (vim.wo[win].diff and 1 or 0)
    end
    return diffs == 2
  end, "the buffer and the current plan side by side in diff mode")
  H.eq(H.cli_task(p.db, "Person task C", "steer").status, "abandoned", "nothing saved")
  H.eq(vim.bo[buf].modified, true, "the person's text is kept, unsaved")

  offered, answer = nil, "Overwrite"
  vim.cmd("write")
  H.wait_status(p.db, "Person task C", "completed", "overwritten with the person's text", "steer")
  -- Only the conflict listed took the person's side (`merge = "mine"`).
  H.eq(H.cli_task(p.db, "Write the docs", "steer").status, "completed", "the agent's completion is not reverted")
  H.ok(H.cli_task(p.db, "Agent task D", "steer") ~= nil, "the agent's task is not removed")
  H.wait(function()
    return not vim.bo[buf].modified and text(buf):find("Agent task D", 1, true)
  end, "the buffer reloads the merged plan: " .. text(buf))
  vim.ui.select = real_select
end)

H.run()
