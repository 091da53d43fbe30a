-- The session the plugin follows when none is picked: the server's rule (issue 30, item 7),
-- on the cases the server and the VS Code extension run too, and as a person meets it:
-- a second agent writing while the first works does not take the statusline.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local follow = require("plansight.follow")

local fixture = vim.json.decode(table.concat(vim.fn.readfile(H.repo_root .. "/tests/fixtures/follow/cases.json"), "\n"))

H.test("the cases every client runs", function()
  local now = follow.time_ms(fixture.now)
  H.ok(#fixture.cases >= 10, "cases")
  for _, case in ipairs(fixture.cases) do
    local sessions = {}
    for _, s in ipairs(case.sessions) do
      sessions[#sessions + 1] = { session = s.session, updatedAt = s.updatedAt, progress = { total = s.tasks } }
    end
    local kept = {}
    for _, name in ipairs(case.kept or {}) do
      kept[name] = true
    end
    local idle = case.idleSeconds and case.idleSeconds * 1000 or nil
    local found = follow.followed(sessions, vim.NIL ~= case.previous and case.previous or nil, now, kept, idle)
    H.eq(found or vim.NIL, case.followed, case.name)
  end
end)

H.test("the wire's times read as UTC, whatever the machine's zone", function()
  H.eq(follow.time_ms("1970-01-01T00:00:00.000Z"), 0, "the epoch")
  H.eq(follow.time_ms("2026-01-01T12:00:00.250Z"), 1767268800250, "a time with milliseconds")
  H.eq(follow.time_ms("2024-02-29T01:00:00+01:00"), 1709164800000, "an offset")
  H.eq(follow.time_ms("yesterday"), nil, "unreadable")
  H.eq(follow.time_ms(vim.NIL), nil, "none")
end)

H.test("a second agent's session does not take the statusline while the first is in use", function()
  local p = H.start()
  local plansight = require("plansight")
  local client = require("plansight.client")
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Build", items = { "Write the parser", "Run the build" } } } } }, "agent-a")
  vim.cmd("Plansight open")
  H.wait(function()
    return plansight.statusline():find("Write the parser", 1, true)
  end, "the statusline follows the only session")
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Review", items = { "Read the diff" } } } } }, "agent-b")
  H.wait_line("Read the diff", "the second session in the sidebar")
  H.ok(plansight.statusline():find("Write the parser", 1, true), "still the first agent's: " .. plansight.statusline())
  H.eq(client.active_session(p.root), "agent-a", "commands still go to the first agent's session")
  vim.cmd("Plansight add Update the changelog")
  H.wait(function()
    return H.cli_task(p.db, "Update the changelog", "agent-a") ~= nil
  end, ":Plansight add goes to the session followed")
  H.eq(H.cli_task(p.db, "Update the changelog", "agent-b"), nil, "not to the other agent's")
  -- Once the followed session has lost its tasks, the one with tasks is followed.
  H.cli_apply(p.db, { { op = "rm" } }, "agent-a")
  H.wait(function()
    return client.active_session(p.root) == "agent-b"
  end, "the session with tasks is followed")
  H.ok(plansight.statusline():find("Read the diff", 1, true), "its statusline")
end)

H.run()
