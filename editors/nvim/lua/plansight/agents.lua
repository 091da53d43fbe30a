---Which agent a session belongs to, read from its name.
---
---The server's summaries carry no agent field, but every face names a session after its
---agent: the hooks `<agent>:<id>` (`claude-code:…`, `codex:…`, `gemini:…`), the OpenCode
---plugin `opencode:<id>`, the MCP server `<client name> <date> <time>`. The first word of
---the name (up to `:` or a space) is the agent when it is one Plansight knows; a session a
---person named ("default", "release") has none.
local M = {}

---Short labels, by the start of that first word (an MCP client may add a suffix).
---@type {[1]: string, [2]: string}[]
M.LABELS = {
  { "claude", "claude" },
  { "codex", "codex" },
  { "gemini", "gemini" },
  { "opencode", "opencode" },
  { "cursor", "cursor" },
  { "copilot", "copilot" },
  { "roo", "roo" },
  { "vscode", "vscode" },
  { "Visual Studio Code", "vscode" },
}

---The agent's short label of `session` and the name without the agent's word, or nil.
---@param session string
---@return string? label, string? rest the session's own id, for a session without a title
function M.of(session)
  local word, rest = session:match("^([%w_.%-]+)[: ](.*)$")
  if not word then
    return nil, nil
  end
  local lower = word:lower()
  for _, entry in ipairs(M.LABELS) do
    if vim.startswith(lower, entry[1]) then
      return entry[2], rest ~= "" and rest or session
    end
  end
  return nil, nil
end

return M
