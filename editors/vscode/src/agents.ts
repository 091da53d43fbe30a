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

/** The start of the doctor's finding for Codex hooks it does not run yet (setup/doctor.py `codex_trust`). */
const UNTRUSTED_CODEX_HOOKS = 'hooks not trusted by Codex yet';

/** What the Plan view says while Codex does not run Plansight's hooks: nothing arrives by itself. */
export const UNTRUSTED_CODEX_MESSAGE =
  "Codex does not run Plansight's hooks yet: its plan and your changes do not travel by themselves. In Codex, type /hooks and trust Plansight's hooks.";

/**
 * The Plan view's message from the doctor's JSON report: the findings that silently stop
 * plans arriving in this workspace (today, Codex hooks not trusted yet), else undefined.
 */
export function doctorMessage(report: unknown): string | undefined {
  const agents = (report as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) {
    return undefined;
  }
  const codex = (agents as { name?: unknown; findings?: unknown }[]).find((agent) => agent.name === 'codex');
  const findings = Array.isArray(codex?.findings) ? (codex.findings as { ok?: unknown; what?: unknown }[]) : [];
  const untrusted = findings.some((finding) => finding.ok === false && typeof finding.what === 'string' && finding.what.startsWith(UNTRUSTED_CODEX_HOOKS));
  return untrusted ? UNTRUSTED_CODEX_MESSAGE : undefined;
}
