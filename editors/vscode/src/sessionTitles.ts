/**
 * A session as a person names it, in every dialog, picker and tab of the extension: its
 * plan's title, else its agent's name and the start of its id (`Claude Code 1111aaaa`),
 * never a raw id like `claude-code:1111aaaa-2222-…`.
 */
import { AGENTS } from './agents';

/** Ids are `<agent>:<the agent's own id>`; a bare id (`default`, a CLI's) stays as it is. */
const SHORT_ID = 8;

export function sessionTitle(session: string, title?: string | null): string {
  if (title !== undefined && title !== null && title.trim() !== '') {
    return title.trim();
  }
  const colon = session.indexOf(':');
  if (colon > 0) {
    const agent = AGENTS.find((known) => known.name === session.slice(0, colon));
    const own = session.slice(colon + 1);
    if (agent !== undefined) {
      return own === '' ? agent.label : `${agent.label} ${own.slice(0, SHORT_ID)}`;
    }
  }
  return session.length <= 24 ? session : `${session.slice(0, 23)}…`;
}
