/**
 * The last known TodoState of every session, as the server reported it. No rules of a
 * todo list live here: only which report is the newest (`version` tells order), the order
 * sessions are shown in (the order they were first seen: a change never moves a session),
 * which sessions a person cleared and keeps in sight, and which session the person's
 * commands, the badge and the status bar go to.
 */
import type { TodoState } from './protocol';

export const DEFAULT_SESSION = 'default';

export class PlanState {
  private readonly bySession = new Map<string, TodoState>();
  /** When each session was first seen (a counter): the order of the panel, the latest on top. */
  private readonly seen = new Map<string, number>();
  private nextSeen = 0;
  private readonly keptSessions = new Set<string>();
  private chosen: string | undefined;
  /** Without a chosen session and without following the latest: the session followed so far. */
  private held: string | undefined;

  /**
   * @param followLatest the badge and status bar follow the most recently updated session
   *   (setting `plansight.followLatestSession`); else they stay on one until the person switches.
   */
  constructor(
    chosenSession?: string,
    public followLatest = false,
  ) {
    this.chosen = chosenSession;
  }

  /** Takes a state from a notification or a result; false when it is older than the one held. */
  update(state: TodoState): boolean {
    const held = this.bySession.get(state.session);
    if (held !== undefined && held.version >= state.version) {
      return false;
    }
    this.see(state.session);
    this.bySession.set(state.session, strip(state));
    if (state.progress.total > 0) {
      this.keptSessions.delete(state.session); // back in sight on its own
    }
    return true;
  }

  /** Replaces every session with a fresh listing, keeping a newer state already held. */
  replaceAll(states: readonly TodoState[]): void {
    const previous = new Map(this.bySession);
    this.bySession.clear();
    // Sessions seen for the first time here go in by last change, so the latest is on top.
    for (const state of [...states].sort(newestFirst).reverse()) {
      this.see(state.session);
    }
    for (const state of states) {
      const held = previous.get(state.session);
      this.bySession.set(state.session, held !== undefined && held.version > state.version ? held : strip(state));
    }
    for (const session of [...this.seen.keys()].filter((s) => !this.bySession.has(s))) {
      this.forget(session);
    }
  }

  /** Forgets pruned sessions (and the choice of one); true when any was held. */
  remove(sessions: readonly string[]): boolean {
    let removed = false;
    for (const session of sessions) {
      removed = this.bySession.delete(session) || removed;
      this.forget(session);
      if (this.chosen === session) {
        this.chosen = undefined;
        removed = true;
      }
    }
    return removed;
  }

  /** Keeps a session the person just cleared in sight, until they switch away or close it. */
  keep(session: string): void {
    this.keptSessions.add(session);
  }

  /** Lets a kept session go (Close, or a switch to another session); true when it was kept. */
  release(session: string): boolean {
    if (this.held === session) {
      this.held = undefined;
    }
    return this.keptSessions.delete(session);
  }

  /** The sessions a person cleared and keeps in sight. */
  get kept(): ReadonlySet<string> {
    return this.keptSessions;
  }

  get(session: string): TodoState | undefined {
    return this.bySession.get(session);
  }

  /** Every session, in the panel's order: the one first seen last on top, never moved by a change. */
  sessions(): TodoState[] {
    return [...this.bySession.values()].sort((a, b) => (this.seen.get(b.session) ?? 0) - (this.seen.get(a.session) ?? 0));
  }

  /** Sessions the panel shows: those with at least one task, and the kept ones, in the panel's order. */
  sessionsWithTasks(): TodoState[] {
    return this.sessions().filter((state) => this.isShown(state));
  }

  /** The session a person chose with Switch Session, if any. */
  get chosenSession(): string | undefined {
    return this.chosen;
  }

  /** Follows a session (undefined: none chosen); a kept session left behind is let go. */
  choose(session: string | undefined): void {
    const left = this.chosen ?? this.held;
    if (left !== undefined && left !== session) {
      this.keptSessions.delete(left);
    }
    this.chosen = session;
    this.held = undefined;
  }

  /**
   * The session the palette commands, the badge and the status bar follow: the chosen one;
   * else, following the latest, the most recently updated session shown; else the one
   * followed so far while it is shown, or the first shown in the panel; else the default.
   */
  activeSession(): string {
    if (this.chosen !== undefined) {
      return this.chosen;
    }
    const shown = this.sessionsWithTasks();
    if (this.followLatest) {
      return [...shown].sort(newestFirst)[0]?.session ?? this.sessions()[0]?.session ?? DEFAULT_SESSION;
    }
    const held = this.held === undefined ? undefined : this.bySession.get(this.held);
    if (held === undefined || !this.isShown(held)) {
      this.held = shown[0]?.session;
    }
    return this.held ?? this.sessions()[0]?.session ?? DEFAULT_SESSION;
  }

  activeState(): TodoState | undefined {
    return this.get(this.activeSession());
  }

  private isShown(state: TodoState): boolean {
    return state.progress.total > 0 || this.keptSessions.has(state.session);
  }

  private see(session: string): void {
    if (!this.seen.has(session)) {
      this.seen.set(session, this.nextSeen++);
    }
  }

  private forget(session: string): void {
    this.seen.delete(session);
    this.keptSessions.delete(session);
    if (this.held === session) {
      this.held = undefined;
    }
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
