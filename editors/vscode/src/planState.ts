/**
 * The last known TodoState of every session, as the server reported it. No rules of a
 * todo list live here: only which report is the newest (`version` tells order) and which
 * session the person's commands go to.
 */
import type { TodoState } from './protocol';

export const DEFAULT_SESSION = 'default';

export class PlanState {
  private readonly bySession = new Map<string, TodoState>();
  private chosen: string | undefined;

  constructor(chosenSession?: string) {
    this.chosen = chosenSession;
  }

  /** Takes a state from a notification or a result; false when it is older than the one held. */
  update(state: TodoState): boolean {
    const held = this.bySession.get(state.session);
    if (held !== undefined && held.version >= state.version) {
      return false;
    }
    this.bySession.set(state.session, strip(state));
    return true;
  }

  /** Replaces every session with a fresh listing, keeping a newer state already held. */
  replaceAll(states: readonly TodoState[]): void {
    const previous = new Map(this.bySession);
    this.bySession.clear();
    for (const state of states) {
      const held = previous.get(state.session);
      this.bySession.set(state.session, held !== undefined && held.version > state.version ? held : strip(state));
    }
  }

  /** Forgets pruned sessions (and the choice of one); true when any was held. */
  remove(sessions: readonly string[]): boolean {
    let removed = false;
    for (const session of sessions) {
      removed = this.bySession.delete(session) || removed;
      if (this.chosen === session) {
        this.chosen = undefined;
        removed = true;
      }
    }
    return removed;
  }

  get(session: string): TodoState | undefined {
    return this.bySession.get(session);
  }

  /** Every session, the most recently updated first. */
  sessions(): TodoState[] {
    return [...this.bySession.values()].sort(newestFirst);
  }

  /** Sessions that hold at least one task, the most recently updated first. */
  sessionsWithTasks(): TodoState[] {
    return this.sessions().filter((state) => state.progress.total > 0);
  }

  /** The session a person chose with Switch Session, if any. */
  get chosenSession(): string | undefined {
    return this.chosen;
  }

  choose(session: string | undefined): void {
    this.chosen = session;
  }

  /**
   * The session the palette commands, the badge and the status bar follow: the chosen one,
   * else the most recently updated session that holds tasks, else the default session.
   */
  activeSession(): string {
    return this.chosen ?? this.sessionsWithTasks()[0]?.session ?? this.sessions()[0]?.session ?? DEFAULT_SESSION;
  }

  activeState(): TodoState | undefined {
    return this.get(this.activeSession());
  }
}

/** A notification or an ApplyResult carries more than the state: keep only the state. */
function strip(state: TodoState): TodoState {
  const { session, title, version, phases, progress, current, updatedAt } = state;
  return { session, title: title ?? null, version, phases, progress, current, updatedAt };
}

function time(iso: string | null): number {
  const parsed = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
}

/** Orders states the most recently updated first, then by session name. */
export function newestFirst(a: TodoState, b: TodoState): number {
  const ta = time(a.updatedAt);
  const tb = time(b.updatedAt);
  if (ta !== tb) {
    return tb > ta ? 1 : -1;
  }
  return a.session < b.session ? -1 : a.session > b.session ? 1 : 0;
}
