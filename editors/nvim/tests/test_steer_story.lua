-- The steering story (issue 21, item 6): an agent's plan through its hook (a recorded
-- Claude Code TodoWrite), the person adds and completes from the sidebar, then the agent
-- sends its stale whole list through the hook again: the sidebar still shows the person's
-- changes and the hook's answer tells the agent what was kept.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
require("plansight")
local sidebar = require("plansight.sidebar")

-- Recorded from the real CLI: tests/fixtures/hooks/README.md says how.
local FIXTURE = H.repo_root .. "/tests/fixtures/hooks/claude-code/PostToolUse-TodoWrite.json"
local SESSION = "claude-code:8a3d6b20-9e4f-4d1a-b7c5-2e6f0a9d3b42"
local agent_home = H.tmpdir()
local HOOK_ENV = { PLANSIGHT_DB = p.db, PLANSIGHT_HOOK_IDLE_SECONDS = "60" }

---The recorded TodoWrite event, its placeholders filled in for this test's project.
---@param tool_use_id string
---@return table
local function todo_write(tool_use_id)
  local text = table.concat(vim.fn.readfile(FIXTURE), "\n")
  text = text:gsub("{{project}}", function()
    return p.root
  end):gsub("{{home}}", function()
    return agent_home
  end)
  local e = vim.json.decode(text)
  e.tool_use_id = tool_use_id
  return e
end

---Runs `plansight hook claude-code` with the event on stdin, as Claude Code does.
---@param e table
---@return table reply
local function hook(e)
  local res = vim
    .system({ H.plansight_bin, "hook", "claude-code" }, { stdin = vim.json.encode(e), cwd = agent_home, env = HOOK_ENV, text = true })
    :wait(30000) -- a guard against a hang, not a speed check
  H.eq(res.code, 0, "the hook's exit code (stderr: " .. tostring(res.stderr) .. ")")
  H.eq(res.stderr, "", "the hook says nothing on stderr")
  return vim.json.decode(res.stdout)
end

local function shown()
  return "\n" .. table.concat(H.sidebar_lines(), "\n")
end

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

---The virtual texts drawn on the sidebar line `lnum`.
local function virt_texts(lnum)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(sidebar.state.buf, -1, { lnum - 1, 0 }, { lnum - 1, -1 }, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      out[#out + 1] = vim.trim(chunk[1])
    end
  end
  return out
end

H.test("the person's added and completed tasks survive the agent's stale TodoWrite, and the agent is told", function()
  vim.cmd("Plansight")
  hook(todo_write("toolu_01"))
  wait_for({ "● Writing the notes", "○ Update the notebook" }, "the agent's plan")

  -- The person adds a task from the sidebar (`a`, the prompt answered).
  local real_input = vim.ui.input
  vim.ui.input = function(_, on_confirm)
    on_confirm("Person task C")
  end
  vim.api.nvim_set_current_win(sidebar.state.win)
  vim.api.nvim_win_set_cursor(sidebar.state.win, { H.find_line("○ Update the notebook"), 0 })
  H.feed("a")
  vim.ui.input = real_input
  wait_for({ "○ Person task C" }, "the person's task")
  local added = H.cli_task(p.db, "Person task C", SESSION)
  H.eq(added.createdBy, "user", "the task is the person's")
  H.eq(added.status, "pending", "adding a todo never starts it")
  H.ok(vim.tbl_contains(virt_texts(H.find_line("○ Person task C")), "you"), "marked `you`" .. shown())
  H.ok(not vim.tbl_contains(virt_texts(H.find_line("○ Update the notebook")), "you"), "the agent's task is not")

  -- The person completes the agent's pending task (`x`).
  vim.api.nvim_win_set_cursor(sidebar.state.win, { H.find_line("○ Update the notebook"), 0 })
  H.feed("x")
  wait_for({ "✓ Update the notebook" }, "the person's completion")

  -- The agent's next TodoWrite comes from its own copy, which has neither change.
  local reply = hook(todo_write("toolu_02"))
  local out = reply.hookSpecificOutput
  H.ok(type(out) == "table" and type(out.additionalContext) == "string", "additionalContext in " .. vim.inspect(reply))
  H.eq(out.hookEventName, "PostToolUse", "the event it answers")
  H.ok(out.additionalContext:find("Kept the user's changes your list does not have:", 1, true), "the Kept line: " .. out.additionalContext)
  H.ok(out.additionalContext:find("Person task C", 1, true), "names the kept task: " .. out.additionalContext)
  H.ok(out.additionalContext:find("Update the notebook", 1, true), "names the kept completion: " .. out.additionalContext)

  H.eq(H.cli_task(p.db, "Person task C", SESSION).status, "pending", "the person's task is still there")
  H.eq(H.cli_task(p.db, "Update the notebook", SESSION).status, "completed", "the person's completion is still there")
  H.flush()
  wait_for({ "○ Person task C", "✓ Update the notebook", "● Writing the notes" }, "the sidebar keeps the person's changes")
  vim.system({ H.plansight_bin, "hook-daemon", "--stop" }, { env = HOOK_ENV }):wait(30000)
end)

H.run()
