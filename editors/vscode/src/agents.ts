/** The agents `plansight setup` sets up, and what the doctor's JSON report says of each. */

/** The agents `plansight setup` takes, with the key of their context key and their name. */
export const AGENTS = [
  { name: 'claude-code', key: 'claudeCode', label: 'Claude Code', command: 'plansight.setupClaudeCode' },
  { name: 'codex', key: 'codex', label: 'Codex CLI', command: 'plansight.setupCodex' },
  { name: 'gemini', key: 'gemini', label: 'Gemini CLI', command: 'plansight.setupGemini' },
  { name: 'opencode', key: 'opencode', label: 'OpenCode', command: 'plansight.setupOpenCode' },
  { name: 'copilot', key: 'copilot', label: 'GitHub Copilot', command: 'plansight.setupCopilot' },
] as const;

export type AgentSetup = 'setUp' | 'found' | '';

/** What the welcome shows per agent, from the doctor's JSON report (unknown agents ignored). */
export function agentSetups(report: unknown): Map<string, AgentSetup> {
  const setups = new Map<string, AgentSetup>(AGENTS.map((agent) => [agent.name, '']));
  const agents = (report as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) {
    throw new Error('the doctor sent no list of agents');
  }
  for (const agent of agents as { name?: unknown; setUp?: unknown }[]) {
    if (typeof agent.name === 'string' && setups.has(agent.name)) {
      setups.set(agent.name, agent.setUp === true ? 'setUp' : 'found');
    }
  }
  return setups;
}
