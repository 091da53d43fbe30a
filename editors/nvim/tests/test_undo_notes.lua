-- Protocol 3 in the sidebar, against the real server: `u` and `:Plansight undo` step back one
-- change each (plansight/undo), E and D on a note line edit and delete that note (the update
-- op's notes), and g? lists them.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local keymaps = require("plansight.actions.keymaps")

-- Answers the next vim.ui.input prompts get, in order (nil cancels); the prompts are kept.
local answers, prompts = {}, {}
vim.ui.input = function(opts, on_confirm)
  prompts[#prompts + 1] = { prompt = opts.prompt, default = opts.default }
  on_confirm(table.remove(answers, 1))
end

local function said(text)
  for _, m in ipairs(H.messages) do
    if m.msg:find(text, 1, true) then
      return true
    end
  end
  return false
end

local function history(limit)
  local decoded = vim.json.decode(H.cli({ "history", "--db", p.db, "--json", "--limit", tostring(limit) }))
  return decoded.events
end

H.test("u twice steps back twice, each step said in words", function()
  H.cli_apply(p.db, {
    {
      op = "init",
      list = {
        {
          phase = "Build",
          items = {
            { content = "Run the build", activeForm = "Running the build", notes = { "use the release flags", "then\nsign it" } },
            "Deploy",
          },
        },
      },
    },
  })
  vim.cmd("Plansight open")
  H.wait_line("○ Deploy", "the plan shown")
  H.goto_line("○ Deploy")
  H.feed("x")
  H.wait_line("✓ Deploy", "Deploy done")
  H.cli_apply(p.db, { { op = "append", phase = "Build", items = { "Announce it" } } })
  H.wait_line("○ Announce it", "the agent's task shown")
  H.messages = {}
  H.goto_line("✓ Deploy")
  H.feed("u")
  H.wait(function()
    return H.cli_task(p.db, "Announce it") == nil
  end, "the first u takes back the agent's task")
  H.wait(function()
    return said('undo: removed "Announce it"')
  end, "the undo said in words")
  H.goto_line("Deploy")
  H.feed("u")
  H.wait_status(p.db, "Deploy", "pending", "the second u takes back the completion, not the first undo")
  H.ok(H.cli_task(p.db, "Announce it") == nil, "the agent's task stays undone")
  local events = history(2)
  H.eq({ events[1].method, events[1].origin }, { "plansight/undo", "user" }, "newest: an undo by the person")
  H.eq(events[2].method, "plansight/undo", "and the one before")
end)

H.test(":Plansight undo at the start of the history says there is nothing to undo", function()
  vim.cmd("Plansight undo") -- back to the empty list (version 0)
  H.wait(function()
    return H.cli_state(p.db).progress.total == 0
  end, "the init undone")
  H.messages = {}
  vim.cmd("Plansight undo")
  H.wait(function()
    return said("Nothing to undo")
  end, "nothing to undo, said")
  -- Bring the plan back for the note tests: an agent's change ends the run. The agent looks
  -- first: a stale list would keep the person's undo of these tasks (protocol 3).
  H.cli_replan(p.db, {
    {
      op = "init",
      list = { { phase = "Build", items = { { content = "Run the build", activeForm = "Running the build", notes = { "use the release flags", "then\nsign it" } } } } },
    },
  })
end)

H.test("E on a note line edits that note; a line break is typed as \\n", function()
  H.wait_line("│ use the release flags", "the current task's notes shown")
  H.goto_line("│ use the release flags")
  answers = { "use the release flags and the signing key" }
  H.feed("E")
  H.wait(function()
    return vim.deep_equal(H.cli_task(p.db, "Run the build").notes, { "use the release flags and the signing key", "then\nsign it" })
  end, "the first note edited, the second kept")
  H.eq(prompts[#prompts], { prompt = "Note: ", default = "use the release flags" }, "asked with the note as it was")
  H.eq(history(1)[1].changes, { 'edited a note of "Run the build": "use the release flags and the signing key"' }, "history says it")
  H.wait_line("│ use the release flags and the signing key", "the edited note shown")
  -- The second line of a two-line note belongs to that note.
  H.wait_line("│ sign it", "the note's second line")
  H.goto_line("│ sign it")
  answers = { "then\\nsign it\\nand ship it" }
  H.feed("E")
  H.wait(function()
    return vim.deep_equal(H.cli_task(p.db, "Run the build").notes, { "use the release flags and the signing key", "then\nsign it\nand ship it" })
  end, "the two-line note edited, line breaks kept, the first note as edited")
  H.eq(prompts[#prompts].default, "then\\nsign it", "offered with its line break as \\n")
end)

H.test("D on a note line deletes that note, not the task; u brings it back", function()
  H.wait_line("│ and ship it", "the edited note shown")
  H.goto_line("│ and ship it")
  local asked = #prompts
  H.messages = {}
  H.feed("D")
  H.wait(function()
    local task = H.cli_task(p.db, "Run the build")
    return task ~= nil and vim.deep_equal(task.notes, { "use the release flags and the signing key" })
  end, "the note deleted, the task kept: " .. vim.inspect(H.cli_task(p.db, "Run the build")))
  H.eq(#prompts, asked, "no question")
  H.wait(function()
    return said("deleted the note (u undoes it)")
  end, "said, with how to undo")
  H.feed("u")
  H.wait(function()
    return #H.cli_task(p.db, "Run the build").notes == 2
  end, "u brings it back")
end)

H.test("E and D on a task line still edit and remove the task; g? names the note keys", function()
  local keys = {}
  for _, k in ipairs(keymaps.key_list()) do
    keys[k.lhs] = k.desc
  end
  H.ok(keys["E"]:find("on a note, edit the note", 1, true), "E: " .. keys["E"])
  H.ok(keys["D"]:find("on a note, delete the note", 1, true), "D: " .. keys["D"])
  H.ok(keys["u"]:find("again: one more step back", 1, true), "u: " .. keys["u"])
  H.wait_line("Running the build", "the task shown")
  H.goto_line("Running the build")
  answers = { "Run the release build", "" }
  H.feed("E")
  H.wait(function()
    return H.cli_task(p.db, "Run the release build") ~= nil
  end, "E on the task edits the task")
end)

H.run()
