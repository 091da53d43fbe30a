---The line the sidebar shows above the plan while `plansight doctor` finds what silently
---stops plans arriving in this workspace: today, Codex hooks not trusted yet (issue 31).
---The doctor is asked in the background (`plansight doctor codex --json`: it may ask
---Codex's app server, seconds) when the sidebar opens, and again when Neovim regains the
---focus while the line is shown, so it goes away once the person trusted the hooks.
local client = require("plansight.client")

local M = {}

---The start of the doctor's finding (server/plansight/setup/doctor.py `UNTRUSTED`).
M.UNTRUSTED = "hooks not trusted by Codex yet"
M.MESSAGE = "Codex does not run Plansight's hooks yet: its plan and your changes do not "
  .. "travel by themselves. In Codex, type /hooks and trust them."

---@type table<string, string> the line, by workspace root
M.messages = {}
---@type table<string, boolean> roots whose doctor is running
M.asking = {}
---@type table<string, boolean> roots whose doctor was asked at least once
M.asked = {}

---The line for a decoded `plansight doctor --json` report, or nil.
---@param report any
---@return string?
function M.message_of(report)
  if type(report) ~= "table" or type(report.agents) ~= "table" then
    return nil
  end
  for _, agent in ipairs(report.agents) do
    if type(agent) == "table" and agent.name == "codex" and type(agent.findings) == "table" then
      for _, finding in ipairs(agent.findings) do
        if type(finding) == "table" and finding.ok == false and type(finding.what) == "string"
          and vim.startswith(finding.what, M.UNTRUSTED) then
          return M.MESSAGE
        end
      end
    end
  end
  return nil
end

---The line for `root`, as the doctor last said.
---@param root string
---@return string?
function M.get(root)
  return M.messages[root]
end

---Asks the doctor for `root` in the background; `on_change` runs when the line changes.
---A doctor that cannot run or answers nonsense changes nothing (:checkhealth says why).
---@param root string
---@param on_change fun()
function M.check(root, on_change)
  if M.asking[root] then
    return
  end
  M.asking[root] = true
  M.asked[root] = true
  local function done(report)
    M.asking[root] = nil
    local message = M.message_of(report)
    if message ~= M.messages[root] then
      M.messages[root] = message
      on_change()
    end
  end
  local ok = pcall(vim.system, client.cli_cmd({ "doctor", "codex", "--json" }), { cwd = root, text = true }, function(res)
    vim.schedule(function()
      local decoded, report = pcall(vim.json.decode, res.stdout or "")
      done(decoded and report or nil)
    end)
  end)
  if not ok then
    M.asking[root] = nil
  end
end

return M
