/**
 * Which agent a session belongs to, from its key: the hooks name a session
 * `<agent>:<the agent's own session id>` (server/plansight/hook/event_fields.py), and the
 * language-model tools `vscode-chat:<id>`. Pure: no `vscode` import.
 */

import agentLogos from './agentLogos.json';

export interface SessionAgent {
  /** The agent's name as a person knows it (the tooltip). */
  readonly name: string;
  /** A short form for a narrow row. */
  readonly short: string;
  /**
   * The agent's own mark, when the `simple-icons` package has it (src/agentLogos.json):
   * the name of `out/media/agents/<logo>-{light,dark}.svg`, which the build writes
   * (scripts/agentLogos.mjs). Codex has none (simple-icons took OpenAI's out), nor VS Code's chat.
   */
  readonly logo: string | undefined;
  /** The codicon drawn for an agent without a logo. */
  readonly codicon: string;
  /** The agent's own session id (the key less its prefix). */
  readonly id: string;
}

const LOGOS: Readonly<Record<string, string>> = agentLogos;

const AGENT_PREFIXES: readonly (Omit<SessionAgent, 'id' | 'logo'> & { readonly prefix: string })[] = [
  { prefix: 'claude-code', name: 'Claude Code', short: 'Claude', codicon: 'sparkle' },
  { prefix: 'codex', name: 'Codex CLI', short: 'Codex', codicon: 'terminal' },
  { prefix: 'gemini', name: 'Gemini CLI', short: 'Gemini', codicon: 'star-full' },
  { prefix: 'opencode', name: 'OpenCode', short: 'OpenCode', codicon: 'code' },
  { prefix: 'copilot', name: 'GitHub Copilot', short: 'Copilot', codicon: 'copilot' },
  { prefix: 'vscode-chat', name: 'VS Code chat', short: 'Chat', codicon: 'comment-discussion' },
];

/** The codicon of a session no agent's prefix names (the CLI, an MCP client, a person's own loop). */
export const UNKNOWN_AGENT_CODICON = 'hubot';

/** The agents with a logo, each shipped for a light and a dark theme. */
export const AGENT_LOGOS: readonly string[] = AGENT_PREFIXES.map((agent) => agent.prefix).filter((prefix) => prefix in LOGOS);

/** Where a logo is in the extension's folder, for a light and for a dark theme. */
export function logoPaths(logo: string): { readonly light: readonly string[]; readonly dark: readonly string[] } {
  return { light: ['out', 'media', 'agents', `${logo}-light.svg`], dark: ['out', 'media', 'agents', `${logo}-dark.svg`] };
}

/** How a session's row is marked: its agent's logo (`logo`), else a codicon (`codicon`). */
export function sessionIcon(session: string): { readonly logo: string } | { readonly codicon: string } {
  const agent = sessionAgent(session);
  if (agent?.logo !== undefined) {
    return { logo: agent.logo };
  }
  return { codicon: agent?.codicon ?? UNKNOWN_AGENT_CODICON };
}

/** The agent a session key names, if any. */
export function sessionAgent(session: string): SessionAgent | undefined {
  const colon = session.indexOf(':');
  const prefix = colon === -1 ? session : session.slice(0, colon);
  const found = AGENT_PREFIXES.find((agent) => agent.prefix === prefix);
  if (found === undefined) {
    return undefined;
  }
  const { name, short, codicon } = found;
  return { name, short, logo: found.prefix in LOGOS ? found.prefix : undefined, codicon, id: colon === -1 ? '' : session.slice(colon + 1) };
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
