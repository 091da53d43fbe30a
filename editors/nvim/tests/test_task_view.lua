-- Issue 33 item 20, against the real server: in the 42-column sidebar a line too long is
-- cut with "…" (on a real screen), `K` shows the task's details in a float (not `man`), `H`
-- hides finished tasks and `f` filters them, each said in the sidebar's first line while on.
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
          { content = "Tag the release", status = "completed", owner = "lead" },
          {
            content = "Ask the release manager for the signing key",
            owner = "release-helper",
            priority = "high",
            description = "Ops hold the key.",
            notes = { "asked on Monday" },
          },
          { content = "Publish", owner = "lead", blockedBy = { "Ask the release manager for the signing key" } },
        },
      },
    },
  },
  { op = "update", task = "Ask the release manager for the signing key", addFiles = { "release/sign.sh" } },
})

---The floating windows open now, with their lines.
local function floats()
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      out[#out + 1] = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
    end
  end
  return out
end

H.test("K shows the task's details in a float, then who did what", function()
  vim.cmd("Plansight open")
  H.wait_line("Ask the release", "the plan")
  H.goto_line("Ask the release")
  H.feed("x") -- the person completes it: history says "you"
  H.wait_status(p.db, "Ask the release manager for the signing key", "completed", "completed")
  H.wait_line("✓ !! Ask the release", "the sidebar shows it completed")
  H.goto_line("Ask the release")
  H.feed("K")
  H.wait(function()
    local f = floats()[1]
    return f and table.concat(f, "\n"):find("Who did what:", 1, true)
  end, "the float, with the history")
  local text = table.concat(floats()[1], "\n")
  for _, want in ipairs({
    "**Ask the release manager for the signing key**",
    "Ops hold the key.",
    "Status: completed · high priority · owner release-helper · phase Release",
    "Added by the agent",
    "- asked on Monday",
    "- release/sign.sh",
    'you: completed "Ask the release manager for the signing key"',
    'agent: added "Ask the release manager for the signing key"',
  }) do
    H.ok(text:find(want, 1, true), "the float holds " .. want .. ":\n" .. text)
  end
  H.eq(vim.api.nvim_get_current_win(), sidebar.state.win, "the cursor stays in the sidebar")
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      vim.api.nvim_win_close(win, true)
    end
  end
end)

H.test("H hides finished tasks and says so; H again shows them", function()
  H.goto_line("Publish")
  H.feed("H")
  H.wait(function()
    return not H.find_line("Tag the release")
  end, "finished tasks hidden")
  H.ok(H.sidebar_lines()[1]:find("^Filter: finished hidden; 1 of 3 tasks"), "said first: " .. H.sidebar_lines()[1])
  H.ok(H.find_line("○ Publish"), "the unfinished task stays")
  H.feed("H")
  H.wait_line("✓ Tag the release", "shown again")
  H.ok(not H.find_line("Filter:"), "nothing said once nothing is hidden")
end)

H.test("f filters by owner, text, priority or status; empty shows all", function()
  answers = { "owner:lead" }
  H.feed("f")
  H.wait(function()
    return not H.find_line("Ask the release")
  end, "another owner's task hidden")
  H.ok(H.find_line("✓ Tag the release") and H.find_line("○ Publish"), "the lead's tasks stay")
  H.ok(H.sidebar_lines()[1]:find("Filter: owner lead; 2 of 3 tasks", 1, true), H.sidebar_lines()[1])
  answers = { "monday" } -- a note's text
  H.feed("f")
  H.wait(function()
    return H.find_line("Ask the release") and not H.find_line("Publish")
  end, "found by its note")
  answers = { "status:pending" }
  H.feed("f")
  H.wait(function()
    return H.find_line("○ Publish") and not H.find_line("Tag the release")
  end, "by status")
  answers = { "status:done" }
  H.messages = {}
  H.feed("f")
  H.ok(H.messages[1] and H.messages[1].msg:find("status:done?", 1, true), "a bad value is said")
  H.ok(H.find_line("○ Publish") and not H.find_line("Tag the release"), "and the filter stays")
  answers = { "" }
  H.feed("f")
  H.wait_line("✓ Tag the release", "empty: every task")
  H.ok(not H.find_line("Filter:"), "nothing said")
  H.ok(sidebar.state.filter.text == nil, "no filter kept")
end)

H.test("<Space> completes a task and reopens it, as a checkbox", function()
  H.goto_line("○ Publish")
  H.feed("<Space>")
  H.wait_status(p.db, "Publish", "completed", "completed")
  H.wait_line("✓ Publish", "drawn completed")
  H.goto_line("✓ Publish")
  H.feed("<Space>")
  H.wait_status(p.db, "Publish", "pending", "reopened")
  H.wait_line("○ Publish", "drawn pending")
end)

H.test("on a real screen, a line too long for the 42-column sidebar ends with …", function()
  vim.cmd("Plansight close")
  H.cli_apply(p.db, {
    {
      op = "init",
      list = {
        {
          phase = "Ship",
          items = {
            { content = "Ask the release manager for the signing key", owner = "release-helper" },
            { content = "Announce", owner = "lead", blockedBy = { "Ask the release manager for the signing key" } },
          },
        },
      },
    },
  }, "screen")
  local T = dofile(H.tests_dir .. "/tui.lua")(H)
  local tui = T.start(p)
  tui.lua("vim.cmd('Plansight open')")
  tui.wait_screen("○ Announce", "the plan")
  local function row(text)
    return tui.screen():match("[^\n]*" .. vim.pesc(text) .. "[^\n]*")
  end
  local ask = row("○ Ask the")
  H.ok(vim.trim(ask):sub(-3) == "…", "a long content ends with … (its owner after it): [" .. ask .. "]")
  H.ok(ask:find("@rel", 1, true), "the owner shows, cut: [" .. ask .. "]")
  local announce = row("○ Announce")
  H.ok(vim.trim(announce):sub(-3) == "…", "long virtual text ends with …: [" .. announce .. "]")
  tui.stop()
end)

H.run()
