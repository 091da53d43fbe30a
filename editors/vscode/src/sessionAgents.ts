/**
 * Which agent a session belongs to, from its key: the hooks name a session
 * `<agent>:<the agent's own session id>` (server/plansight/hook/event_fields.py), and the
 * language-model tools `vscode-chat:<id>`. Pure: no `vscode` import.
 */

export interface SessionAgent {
  /** The agent's name as a person knows it (the tooltip). */
  readonly name: string;
  /** A short form for a narrow row. */
  readonly short: string;
  /**
   * The icon drawn on the session's row: the extension's own glyph,
   * `media/agents/{light,dark}/<icon>.svg` (codicons have no agents' marks).
   */
  readonly icon: string;
  /** The agent's own session id (the key less its prefix). */
  readonly id: string;
}

const AGENT_PREFIXES: readonly (Omit<SessionAgent, 'id'> & { readonly prefix: string })[] = [
  { prefix: 'claude-code', name: 'Claude Code', short: 'Claude', icon: 'claude-code' },
  { prefix: 'codex', name: 'Codex CLI', short: 'Codex', icon: 'codex' },
  { prefix: 'gemini', name: 'Gemini CLI', short: 'Gemini', icon: 'gemini' },
  { prefix: 'opencode', name: 'OpenCode', short: 'OpenCode', icon: 'opencode' },
  { prefix: 'copilot', name: 'GitHub Copilot', short: 'Copilot', icon: 'copilot' },
  { prefix: 'vscode-chat', name: 'VS Code chat', short: 'Chat', icon: 'vscode-chat' },
];

/** The icon of a session no agent's prefix names (the CLI, an MCP client, a person): a plain robot. */
export const UNKNOWN_AGENT_ICON = 'unknown';

/** Every icon a session's row can have: the agents' and the unknown one (each must ship). */
export const AGENT_ICONS: readonly string[] = [...AGENT_PREFIXES.map((agent) => agent.icon), UNKNOWN_AGENT_ICON];

/** The agent a session key names, if any. */
export function sessionAgent(session: string): SessionAgent | undefined {
  const colon = session.indexOf(':');
  const prefix = colon === -1 ? session : session.slice(0, colon);
  const found = AGENT_PREFIXES.find((agent) => agent.prefix === prefix);
  if (found === undefined) {
    return undefined;
  }
  const { name, short, icon } = found;
  return { name, short, icon, id: colon === -1 ? '' : session.slice(colon + 1) };
}

/**
 * What a session's row is called without a title: `Claude Code 8a3d6b20` rather than the
 * 50-character key a narrow sidebar cuts (the tooltip has the whole key).
 */
export function untitledSessionLabel(session: string): string {
  const agent = sessionAgent(session);
  if (agent === undefined) {
    return session;
  }
  const id = agent.id.length > 8 ? agent.id.slice(0, 8) : agent.id;
  return id === '' ? agent.name : `${agent.name} ${id}`;
}
