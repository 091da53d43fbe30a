-- Issue 31 item 6: while Codex does not run Plansight's hooks (not trusted in its /hooks
-- yet), nothing arrives by itself; the sidebar says so above the plan, from `plansight
-- doctor`, and no longer once they are trusted.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local warning = require("plansight.doctor_warning")

local RECORDED = H.repo_root .. "/tests/fixtures/setup/doctor-codex-untrusted.json"

H.test("the line comes from the doctor's finding, as recorded", function()
  local report = vim.json.decode(table.concat(vim.fn.readfile(RECORDED), "\n"))
  H.eq(warning.message_of(report), warning.MESSAGE, "untrusted hooks")
  H.ok(warning.MESSAGE:find("/hooks", 1, true), "says how to trust them")
  for _, finding in ipairs(report.agents[1].findings) do
    finding.ok = true
  end
  H.eq(warning.message_of(report), nil, "trusted")
  H.eq(warning.message_of(vim.NIL), nil, "not a report")
  H.eq(warning.message_of({ agents = { { name = "codex", findings = "?" } } }), nil, "a strange one")
end)

---What `/hooks` appends to Codex's config.toml for Plansight's hooks (their keys and
---hashes as Codex computes them: server/plansight/codex_hook_trust.py).
local function trust_the_hooks()
  local python = vim.fn.readfile(H.plansight_bin, "", 1)[1]:gsub("^#!", "")
  local script = [[
import json, pathlib
from plansight.codex_hook_trust import codex_home, plansight_hooks
home = codex_home()
config = home / "config.toml"
tables = "".join(
    f"\n[hooks.state.{json.dumps(k)}]\ntrusted_hash = {json.dumps(v)}\n"
    for k, v in plansight_hooks(home / "hooks.json")
)
config.write_text(config.read_text() + tables)
]]
  local res = vim.system({ python, "-c", script }, { text = true }):wait(20000)
  H.eq(res.code, 0, "trusted: " .. (res.stderr or ""))
end

H.test("the sidebar says Codex does not run the hooks until they are trusted", function()
  H.cli({ "setup", "codex" })
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Todos", items = { "Fix it" } } } } })
  vim.cmd("Plansight open")
  H.wait_line("Fix it", "the plan")
  local lnum = H.wait_line("Codex does not run Plansight's hooks yet", "the doctor's line", 60000)
  H.ok(lnum < H.find_line("Fix it"), "above the plan")
  H.ok(table.concat(H.sidebar_lines(), " "):find("/hooks", 1, true), "how to trust them")

  trust_the_hooks()
  vim.api.nvim_exec_autocmds("FocusGained", {}) -- the person comes back from Codex
  H.wait(function()
    return H.find_line("Codex does not run") == nil
  end, "the line gone once trusted", 60000)
  H.ok(H.find_line("Fix it"), "the plan stays")
  vim.cmd("Plansight close")
end)

H.run()
