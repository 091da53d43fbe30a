-- Protocol version 2 in the sidebar, against the real server: blocked, waiting, priorities,
-- owners, the title, files (open, diff), the keys b p E gD u D, :Plansight history and undo.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local plansight = require("plansight")
local sidebar = require("plansight.sidebar")
local client = require("plansight.client")

local main_win = vim.api.nvim_get_current_win()

-- A real repository with a committed file that the agent then changed.
local function git(args)
  local cmd = { "git", "-C", p.root, "-c", "user.name=Test", "-c", "user.email=test@example.com" }
  vim.list_extend(cmd, args)
  local res = vim.system(cmd, { text = true }):wait()
  H.ok(res.code == 0, table.concat(args, " ") .. ": " .. (res.stderr or ""))
end
vim.fn.delete(p.root .. "/.git", "rf")
git({ "init", "-q" })
vim.fn.mkdir(p.root .. "/src", "p")
vim.fn.writefile({ "one", "two", "three" }, p.root .. "/src/app.py")
git({ "add", "src/app.py" })
git({ "commit", "-q", "-m", "first" })
vim.fn.writefile({ "one", "TWO", "three", "four" }, p.root .. "/src/app.py")
vim.fn.writefile({ "brand new" }, p.root .. "/NOTES.md")

-- Answers the next vim.ui.input / vim.ui.select prompts get, in order (nil cancels); the
-- prompts and items they were shown are kept.
local answers, prompts = {}, {}
vim.ui.input = function(opts, on_confirm)
  prompts[#prompts + 1] = { prompt = opts.prompt, default = opts.default }
  on_confirm(table.remove(answers, 1))
end
vim.ui.select = function(items, opts, on_choice)
  local shown = {}
  for i, item in ipairs(items) do
    shown[i] = opts.format_item and opts.format_item(item) or item
  end
  prompts[#prompts + 1] = { prompt = opts.prompt, items = shown }
  local want = table.remove(answers, 1)
  for i, label in ipairs(shown) do
    if want ~= nil and label:find(want, 1, true) then
      on_choice(items[i], i)
      return
    end
  end
  on_choice(nil, nil)
end

---The virtual text at the end of a sidebar line, joined.
local function virt_text(lnum)
  local marks = vim.api.nvim_buf_get_extmarks(sidebar.state.buf, sidebar.ns, { lnum - 1, 0 }, { lnum - 1, -1 }, { details = true })
  local out = {}
  for _, m in ipairs(marks) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      out[#out + 1] = chunk[1]
    end
  end
  return table.concat(out)
end

---The window of this tab page whose buffer name holds `name`, if any.
local function window_showing(name)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)):find(name, 1, true) then
      return win
    end
  end
  return nil
end

local MARKDOWN = [[
# Release the app

## Build
- [/] Run the build
- [ ] Ask for the signing key
- [ ] Deploy
- [ ] Write the changelog
]]

H.test("the plan's v2 fields as the server sends them: title, blocked, waiting, priority, owner, files", function()
  H.cli({ "import", "--db", p.db, "-" }, MARKDOWN)
  local ids = {}
  for _, c in ipairs({ "Run the build", "Ask for the signing key", "Deploy" }) do
    ids[c] = H.cli_task(p.db, c).id
  end
  H.cli_apply(p.db, {
    { op = "update", id = ids["Run the build"], priority = "high", owner = "lead", addFiles = { "src/app.py", "NOTES.md" } },
    { op = "block", id = ids["Ask for the signing key"], reason = "waiting on ops" },
    { op = "update", id = ids["Deploy"], blockedBy = { ids["Run the build"] }, owner = "helper" },
    -- Every task has an owner: the server auto-starts none (it starts tasks without one).
    { op = "update", id = ids["Ask for the signing key"], owner = "lead" },
    { op = "update", task = "Write the changelog", owner = "lead" },
  })
  vim.cmd("Plansight open")
  H.wait(function()
    return H.find_line("⊘ Ask for the signing key") and H.find_line("◦ src/app.py")
  end, "the v2 plan in the sidebar:\n" .. table.concat(H.sidebar_lines(), "\n"))
  H.eq(H.sidebar_lines()[1]:match("^▾ (.-)  %d"), "Release the app", "the title in the header")
  local build = H.find_line("● !! Run the build")
  H.ok(build, "priority mark on the task in progress")
  H.eq(H.line_groups(build)[2], "PlansightPriorityHigh", "priority highlight")
  H.ok(virt_text(build):find("@lead", 1, true), "owner shown: the session's owners differ")
  local blocked = H.find_line("⊘ Ask for the signing key")
  H.eq(H.line_groups(blocked)[1], "PlansightBlocked", "blocked highlight")
  local deploy = H.find_line("○ Deploy")
  -- Cut with … at the sidebar's 42 columns (the window would cut it with no sign).
  H.eq(virt_text(deploy), '  waits for "Run the build" …', "waits for, as virtual text")
  H.eq(H.sidebar_lines()[H.find_line("◦ src/app.py") + 1], "      ◦ NOTES.md", "files in the order touched")
  H.ok(H.find_line("  ▾ Build  0/4"), "the phase's progress from the server")
end)

H.test("<CR> on a file opens it in the editing window", function()
  H.goto_line("◦ src/app.py")
  H.feed("<CR>")
  H.eq(vim.api.nvim_get_current_win(), main_win, "opened in the window the person came from")
  H.eq(vim.api.nvim_buf_get_name(0), p.root .. "/src/app.py", "the file")
  H.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false)[2], "TWO", "its current text")
end)

H.test("gd diffs a file against HEAD in a scratch buffer (no fugitive)", function()
  H.eq(vim.fn.exists(":Gvdiffsplit"), 0, "fugitive is not loaded here")
  H.goto_line("◦ src/app.py")
  H.feed("gd")
  local file_win = vim.api.nvim_get_current_win()
  H.eq(vim.api.nvim_buf_get_name(0), p.root .. "/src/app.py", "the file's window keeps focus")
  H.eq(vim.wo[file_win].diff, true, "the file is in diff mode")
  local head_win = window_showing("plansight://HEAD/src/app.py")
  H.ok(head_win, "a HEAD buffer beside it")
  local head_buf = vim.api.nvim_win_get_buf(head_win)
  H.eq(vim.api.nvim_buf_get_lines(head_buf, 0, -1, false), { "one", "two", "three" }, "HEAD's text")
  H.eq(vim.wo[head_win].diff, true, "HEAD in diff mode")
  H.eq(vim.bo[head_buf].buftype, "nofile", "a scratch buffer")
  H.eq(vim.bo[head_buf].modifiable, false, "read only")
  -- Closing the HEAD side ends the diff of the file too.
  vim.api.nvim_win_close(head_win, true)
  H.flush()
  H.eq(vim.wo[file_win].diff, false, "the file leaves diff mode")
  -- A file that is not in HEAD is all added: an empty HEAD side.
  H.goto_line("◦ NOTES.md")
  H.feed("gd")
  local new_head = window_showing("plansight://HEAD/NOTES.md")
  H.ok(new_head, "a HEAD side for the new file")
  H.eq(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(new_head), 0, -1, false), { "" }, "empty: the file is new")
  vim.cmd("diffoff!")
  vim.api.nvim_win_close(new_head, true)
end)

H.test("gd uses :Gvdiffsplit when fugitive is there", function()
  -- fugitive is not installable here: a command of its name records what it was asked.
  local called
  vim.api.nvim_create_user_command("Gvdiffsplit", function()
    called = vim.api.nvim_buf_get_name(0)
  end, {})
  H.goto_line("◦ src/app.py")
  H.feed("gd")
  H.eq(called, p.root .. "/src/app.py", ":Gvdiffsplit run in the file's buffer")
  vim.api.nvim_del_user_command("Gvdiffsplit")
end)

H.test("b blocks with an optional reason, cancelling sends nothing", function()
  H.goto_line("○ Write the changelog")
  answers = { "needs the release date" }
  H.feed("b")
  H.wait(function()
    local t = H.cli_task(p.db, "Write the changelog")
    return t.status == "blocked" and t.notes[1] == "needs the release date"
  end, "b blocks with the reason as a note")
  H.wait_line("⊘ Write the changelog", "blocked icon")
  local version = H.cli_state(p.db).version
  H.goto_line("⊘ Write the changelog")
  answers = {} -- the prompt is cancelled
  H.feed("b")
  H.flush()
  H.eq(H.cli_state(p.db).version, version, "a cancelled prompt changes nothing")
end)

H.test("p sets and clears the priority", function()
  H.goto_line("⊘ Write the changelog")
  answers = { "low" }
  H.feed("p")
  H.wait(function()
    return H.cli_task(p.db, "Write the changelog").priority == "low"
  end, "priority low")
  H.eq(prompts[#prompts].items, { "high", "medium", "low", "none" }, "the priorities offered")
  H.wait_line("⊘ ↓ Write the changelog", "the low mark")
  H.goto_line("Write the changelog")
  answers = { "none" }
  H.feed("p")
  H.wait(function()
    return H.cli_task(p.db, "Write the changelog").priority == vim.NIL
  end, "priority cleared")
end)

H.test("E edits the content and the description", function()
  H.goto_line("Write the changelog")
  answers = { "Write the release notes", "Everything since 1.4, user-facing first" }
  H.feed("E")
  H.wait(function()
    local t = H.cli_task(p.db, "Write the release notes")
    return t and t.description == "Everything since 1.4, user-facing first"
  end, "content and description updated")
  H.wait_line("≡ Everything since 1.4, user-facing first", "the description under its task")
  H.eq(prompts[#prompts - 1].default, "Write the changelog", "the content is offered for editing")
  H.eq(prompts[#prompts].default, "", "the (empty) description too")
end)

H.test("gD picks a task to wait for from the session's tasks, and again to drop it", function()
  H.wait_line("Write the release notes", "renamed task shown")
  H.goto_line("Write the release notes")
  answers = { "Deploy" }
  H.feed("gD")
  local deploy = H.cli_task(p.db, "Deploy")
  H.wait(function()
    return vim.deep_equal(H.cli_task(p.db, "Write the release notes").blockedBy, { deploy.id })
  end, "waits for Deploy")
  local offered = prompts[#prompts].items
  H.ok(vim.tbl_contains(offered, "  Run the build") and vim.tbl_contains(offered, "  Deploy"), vim.inspect(offered))
  H.ok(not vim.tbl_contains(offered, "  Write the release notes"), "not itself")
  H.wait(function()
    local l = H.find_line("Write the release notes")
    return l and virt_text(l) == "  waits for…" -- as much as 42 columns hold (K shows all)
  end, "waits for shown")
  -- A cycle is the server's to refuse: the person is told, nothing changes.
  H.goto_line("○ Deploy")
  answers = { "Write the release notes" }
  H.messages = {}
  H.feed("gD")
  H.wait(function()
    for _, m in ipairs(H.messages) do
      if m.msg:find("Dependency cycle", 1, true) then
        return true
      end
    end
  end, "the server's cycle error shown")
  H.goto_line("Write the release notes")
  answers = { "Wait for nothing" }
  H.feed("gD")
  H.wait(function()
    return #H.cli_task(p.db, "Write the release notes").blockedBy == 0
  end, "dependencies cleared")
end)

H.test("u undoes the last change, as the person", function()
  H.goto_line("○ Deploy")
  H.feed("x")
  H.wait_line("✓ Deploy", "Deploy done")
  H.goto_line("✓ Deploy")
  H.feed("u")
  H.wait_status(p.db, "Deploy", "pending", "u restores the version before")
  local history = vim.json.decode(H.cli({ "history", "--db", p.db, "--json", "--limit", "1" }))
  local newest = history.events or history
  H.eq(newest[1].method, "plansight/undo", "undo is plansight/undo (protocol 3)")
  H.eq(newest[1].origin, "user", "made by the person")
end)

H.test(":Plansight history lists the changes and restores the one picked after confirming", function()
  local before = H.cli_state(p.db)
  local target = vim.json.decode(H.cli({ "history", "--db", p.db, "--json" }))
  local events = target.events or target
  local first = events[#events] -- the import
  vim.api.nvim_set_current_win(main_win)
  answers = { ("v%d "):format(first.version), "Cancel" }
  local asked = #prompts
  vim.cmd("Plansight history")
  H.wait(function()
    return #prompts == asked + 2
  end, "the history, then the question")
  H.flush()
  H.eq(H.cli_state(p.db).version, before.version, "cancelled: nothing restored")
  H.ok(prompts[#prompts - 1].items[1]:find(("^v%d "):format(events[1].version)), "newest first")
  answers = { ("v%d "):format(first.version), "Restore" }
  vim.cmd("Plansight history")
  H.wait(function()
    local t = H.cli_task(p.db, "Write the changelog")
    return t and t.status == "pending" and t.priority == vim.NIL
  end, "the plan as it was after the import")
  H.eq(prompts[#prompts].items, { "Restore", "Cancel" }, "asked before restoring")
  H.eq(H.cli_task(p.db, "Run the build").owner, vim.NIL, "every field as it was")
end)

H.test(":Plansight undo undoes the restore", function()
  vim.cmd("Plansight undo")
  H.wait(function()
    return H.cli_task(p.db, "Write the release notes") ~= nil
  end, "back to before the restore")
end)

H.test("D asks before removing a task in progress or with notes, not otherwise", function()
  H.wait_line("● !! Run the build", "plan shown")
  H.goto_line("● !! Run the build")
  answers = { "Cancel" }
  local asked = #prompts
  H.feed("D")
  H.eq(#prompts, asked + 1, "asked")
  H.ok(H.cli_task(p.db, "Run the build"), "Cancel keeps the task")
  H.ok(prompts[#prompts].prompt:find("in progress", 1, true), "says why it asks: " .. prompts[#prompts].prompt)
  H.ok(prompts[#prompts].prompt:find("u undoes it", 1, true), "and how to undo")
  answers = { "Remove" }
  H.feed("D")
  H.wait(function()
    return H.cli_task(p.db, "Run the build") == nil
  end, "Remove removes it")
  -- A task with notes asks too.
  H.wait_line("Ask for the signing key", "blocked task shown")
  H.goto_line("Ask for the signing key")
  asked = #prompts
  answers = { "Remove" }
  H.feed("D")
  H.wait(function()
    return H.cli_task(p.db, "Ask for the signing key") == nil
  end, "removed after the question")
  H.ok(prompts[#prompts].prompt:find("1 note", 1, true) and #prompts == asked + 1, "asked about its note")
  -- A plain pending task goes at once.
  H.wait_line("○ Deploy", "shown")
  H.goto_line("○ Deploy")
  asked = #prompts
  H.feed("D")
  H.wait(function()
    return H.cli_task(p.db, "Deploy") == nil
  end, "removed without a question")
  H.eq(#prompts, asked, "no question")
end)

H.test(":Plansight add outside the sidebar: the server puts the task where the work is", function()
  H.cli_apply(p.db, { { op = "append", phase = "Ship", items = { "Tag" } } })
  H.wait_line("▾ Ship", "the new phase shown")
  vim.api.nvim_set_current_win(main_win)
  local asked = #prompts
  vim.cmd("Plansight add Announce it")
  H.wait(function()
    local _, phase = H.cli_task(p.db, "Announce it")
    return phase == "Ship"
  end, "the phase of the task in progress (Tag, auto-started there)")
  H.eq(#prompts, asked, "nothing asked")
  -- A new session gets the server's default phase.
  client.selected_session = "fresh"
  vim.cmd("Plansight add First thing")
  H.wait(function()
    local _, phase = H.cli_task(p.db, "First thing", "fresh")
    return phase ~= nil
  end, "added to a fresh session")
  client.selected_session = nil
end)

H.test("plansight/didPrune drops the pruned sessions from the sidebar", function()
  H.wait_line("▾ fresh", "the fresh session shown")
  -- "fresh" becomes the least recently updated session; then another process fills the
  -- store to 201 sessions, the store prunes the oldest, and the server says so.
  H.cli_apply(p.db, { { op = "note", task = "Tag", text = "after fresh" } })
  local python = vim.fs.joinpath(vim.fs.dirname(H.plansight_bin), "python")
  H.ok(vim.fn.executable(python) == 1, "the server's Python next to " .. H.plansight_bin)
  -- The service as `plansight demo` drives it (one process, 199 changes): the CLI would
  -- start a process per change.
  local fill = [[
import sys
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
service = PlanService(open_store(sys.argv[1]))
for i in range(199):
    raw = {"session": f"s{i:03}", "ops": [{"op": "append", "phase": "P", "items": ["x"]}]}
    service.apply(ApplyParams.validate(raw), raw)
service.store.close()
]]
  local res = vim.system({ python, "-c", fill, p.db }, { text = true }):wait(60000)
  H.eq(res.code, 0, "filling the store: " .. tostring(res.stderr))
  H.wait(function()
    return not H.find_line("▾ fresh")
  end, "fresh is gone", 20000)
  H.eq(client.get(p.root).states.fresh, nil, "dropped from the cache")
  H.ok(H.find_line("Release the app"), "the other sessions stay")
end)

H.test("g? lists the new keys", function()
  local keys = {}
  for _, k in ipairs(require("plansight.actions.keymaps").key_list()) do
    keys[k.lhs] = k.desc
  end
  for _, lhs in ipairs({ "b", "p", "E", "gD", "u", "gd", "<CR>", "D" }) do
    H.ok(keys[lhs], lhs .. " has a description")
  end
end)

H.run()
