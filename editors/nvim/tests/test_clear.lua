-- Issue 33 item 18: `:Plansight clear` asks first (naming the session by its title), and the
-- sidebar's cursor stays in the cleared session, though that session moves to the top: `u`
-- then undoes the clear, not a change of the session that took the cursor's line.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local sidebar = require("plansight.sidebar")

-- Answers the next vim.ui.select questions get, in order; the questions are kept.
local answers, asked = {}, {}
vim.ui.select = function(items, opts, on_choice)
  asked[#asked + 1] = { prompt = opts.prompt, items = items }
  on_choice(table.remove(answers, 1))
end

---An agent's whole list (a Claude Code TodoWrite) with a title, as the hooks send it.
local function init(session, title, items)
  local todos = {}
  for _, content in ipairs(items) do
    todos[#todos + 1] = { content = content, activeForm = content, status = "pending" }
  end
  H.cli({ "ingest", "--db", p.db, "--session", session, "--title", title, "--format", "claude-todowrite", vim.json.encode({ todos = todos }) })
end

H.test(":Plansight clear asks, Cancel keeps the list, Clear empties it; the cursor stays there and u undoes it", function()
  init("claude-code:older", "Older plan", { "Alpha one", "Alpha two", "Alpha three" })
  init("codex:newer", "Newer plan", { "Beta one", "Beta two" })
  vim.cmd("Plansight open")
  H.wait_line("○ Alpha three", "both sessions shown")
  H.wait_line("○ Beta two", "both sessions shown")
  H.ok(H.find_line("Newer plan") < H.find_line("Older plan"), "the newer session first")
  local newer_version = H.cli_state(p.db, "codex:newer").version

  H.goto_line("○ Alpha two")
  answers = { "Cancel" }
  vim.cmd("Plansight clear")
  H.eq(#asked, 1, "asked first")
  H.eq(asked[1].prompt, 'Clear "Older plan" (3 tasks)? u undoes it', "the session by its title, and how many tasks go")
  H.eq(asked[1].items, { "Clear", "Cancel" }, "the choices")
  H.flush()
  H.eq(H.cli_state(p.db, "claude-code:older").progress.total, 3, "Cancel clears nothing")

  answers = { "Clear" }
  vim.cmd("Plansight clear")
  H.wait(function()
    return H.cli_state(p.db, "claude-code:older").progress.total == 0
  end, "cleared for the CLI")
  H.wait(function()
    local l = H.find_line("Older plan")
    return l and H.sidebar_lines()[l + 1] == "  (no tasks)"
  end, "cleared in the sidebar")
  H.ok(H.find_line("Older plan") < H.find_line("Newer plan"), "the cleared session moved to the top")
  local item = sidebar.item_at_cursor()
  H.ok(item and item.session == "claude-code:older", "the cursor stays in the cleared session: " .. vim.inspect(item and item.session))

  H.feed("u")
  H.wait(function()
    return H.cli_state(p.db, "claude-code:older").progress.total == 3
  end, "u undoes the clear")
  H.eq(H.cli_state(p.db, "codex:newer").version, newer_version, "the other session is untouched")
end)

H.run()
