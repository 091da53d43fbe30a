-- Protocol 4 in the sidebar (issue 32, its Neovim part), against the real server: a plan
-- three levels deep shows each subtask indented under its task, a parent's progress on its
-- line and a fold per parent; mk / mj move a task among its siblings, > and < indent and
-- outdent it (the move op), A adds a subtask (append with parent); g? lists them; H and f
-- keep a shown subtask's parents.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local sidebar = require("plansight.sidebar")

local answers = {}
vim.ui.input = function(_, on_confirm)
  on_confirm(table.remove(answers, 1))
end

H.cli_apply(p.db, {
  {
    op = "init",
    list = {
      {
        phase = "Release",
        items = {
          {
            content = "Build",
            subtasks = {
              { content = "Compile", status = "completed" },
              { content = "Test", subtasks = { "Unit tests", "Integration tests" } },
            },
          },
          "Ship",
        },
      },
    },
  },
})

---The contents of the phase's tasks as the CLI reads them, each with its parent's content.
local function shape()
  local out, by_id = {}, {}
  for _, task in ipairs(H.cli_state(p.db).phases[1].tasks) do
    by_id[task.id] = task.content
  end
  for _, task in ipairs(H.cli_state(p.db).phases[1].tasks) do
    local parent = task.parent ~= vim.NIL and by_id[task.parent] or nil
    out[#out + 1] = parent and (task.content .. " < " .. parent) or task.content
  end
  return out
end

H.test("subtasks are indented under their task, a parent shows its progress, each parent folds", function()
  vim.cmd("Plansight open")
  H.wait_line("○ Integration tests", "the nested plan")
  local lines = H.sidebar_lines()
  local from = H.find_line("Release")
  H.eq(vim.list_slice(lines, from, from + 6), {
    "  ▾ Release  1/4",
    "    ● Build  1/3",
    "      ✓ Compile",
    "      ● Test  0/2",
    "        ● Unit tests",
    "        ○ Integration tests",
    "    ○ Ship",
  }, "three levels, parents with their leaves' progress")
  local build = H.goto_line("● Build")
  H.feed("za")
  H.eq(vim.fn.foldclosed(H.find_line("○ Integration tests")), build, "the parent's fold holds its subtasks")
  H.eq(vim.fn.foldclosed(H.find_line("○ Ship")), -1, "not the next top-level task")
  H.feed("za")
  H.eq(vim.fn.foldclosed(H.find_line("✓ Compile")), -1, "open again")
end)

H.test("mj and mk move a task among its siblings; > and < indent and outdent it", function()
  H.goto_line("✓ Compile")
  H.feed("mj")
  H.wait(function()
    return vim.deep_equal(shape(), { "Build", "Test < Build", "Unit tests < Test", "Integration tests < Test", "Compile < Build", "Ship" })
  end, "Compile after Test: " .. vim.inspect(shape()))
  H.wait(function()
    return H.find_line("✓ Compile") > H.find_line("○ Integration tests")
  end, "redrawn after Test's subtasks")
  H.eq(sidebar.item_at_cursor().task.content, "Compile", "the cursor follows the task")
  H.feed("mk")
  H.wait(function()
    return shape()[2] == "Compile < Build"
  end, "and back before Test")
  H.goto_line("○ Ship")
  H.feed(">")
  H.wait(function()
    return shape()[#shape()] == "Ship < Build"
  end, "Ship under Build, its last subtask")
  H.wait(function()
    return H.sidebar_lines()[H.find_line("○ Ship")] == "      ○ Ship"
  end, "drawn indented")
  H.goto_line("○ Ship")
  H.feed("<")
  H.wait(function()
    return shape()[#shape()] == "Ship"
  end, "Ship back at the top level, after Build")
  H.wait(function()
    return H.sidebar_lines()[H.find_line("○ Ship")] == "    ○ Ship"
  end, "drawn at the top")
  H.goto_line("○ Ship")
  H.messages = {}
  H.feed("<")
  H.ok(H.messages[1] and H.messages[1].msg:find("already at the top level", 1, true), "said, nothing sent")
end)

H.test("a person's move survives the agent's stale list", function()
  -- The agent's list as it last wrote it: flat, Build's tree first, Ship last.
  local stale = {}
  for _, task in ipairs(H.cli_state(p.db).phases[1].tasks) do
    stale[#stale + 1] = { content = task.content, status = task.status, activeForm = task.activeForm }
  end
  H.cli({ "write", "--db", p.db, "--session", "default", "--todos", vim.json.encode(stale) })
  H.goto_line("○ Ship")
  H.feed("mk")
  H.wait(function()
    return shape()[1] == "Ship"
  end, "Ship moved before Build by the person: " .. vim.inspect(shape()))
  H.cli({ "write", "--db", p.db, "--session", "default", "--todos", vim.json.encode(stale) })
  H.eq(shape()[1], "Ship", "the person's move survives the agent's stale list")
  H.eq(shape()[3], "Compile < Build", "the subtasks keep their parent")
  H.wait(function()
    return H.find_line("○ Ship") < H.find_line("● Build")
  end, "drawn first")
  H.goto_line("○ Ship")
  H.feed("mj")
  H.wait(function()
    return shape()[#shape()] == "Ship"
  end, "back after Build")
end)

H.test("A adds a subtask to the task under the cursor", function()
  H.goto_line("○ Integration tests")
  answers = { "Run on CI" }
  H.feed("A")
  H.wait(function()
    return vim.tbl_contains(shape(), "Run on CI < Integration tests")
  end, "a subtask of Integration tests")
  H.wait_line("          ○ Run on CI", "drawn under it")
  H.wait_line("○ Integration tests  0/1", "its parent shows its progress")
end)

H.test("a filter keeps a shown subtask's parents", function()
  answers = { "on ci" }
  H.goto_line("Ship")
  H.feed("f")
  H.wait(function()
    return not H.find_line("Ship") and H.find_line("Run on CI")
  end, "only the match")
  H.ok(H.find_line("● Build") and H.find_line("● Test") and H.find_line("Integration tests"), "with its parents:\n" .. table.concat(H.sidebar_lines(), "\n"))
  H.ok(not H.find_line("Compile"), "not their other subtasks")
  answers = { "" }
  H.feed("f")
  H.wait_line("○ Ship", "all again")
end)

H.test("g? lists the keys of the plan's shape", function()
  local keys = {}
  for _, k in ipairs(require("plansight.actions.keymaps").key_list()) do
    keys[k.lhs] = k.desc
  end
  H.eq(keys["mk"], "Move the task up among its siblings", "mk")
  H.eq(keys["mj"], "Move the task down among its siblings", "mj")
  H.ok(keys[">"]:find("Indent", 1, true) and keys["<"]:find("Outdent", 1, true), "> and <")
  H.eq(keys["A"], "Add a subtask to the task under the cursor", "A")
end)

H.run()
