/**
 * The last known TodoState of every session, as the server reported it. No rules of a
 * todo list live here: only which report is the newest (`version` tells order), the order
 * sessions are shown in (the order they were first seen: a change never moves a session),
 * which sessions a person cleared and keeps in sight, and which session the person's
 * commands, the badge and the status bar go to (the server's follow rule, `followedSession`).
 */
import { FOLLOW_IDLE_SECONDS, type Checkout, type TodoState } from './protocol';

export const DEFAULT_SESSION = 'default';

export class PlanState {
  private readonly bySession = new Map<string, TodoState>();
  /** When each session was first seen (a counter): the order of the panel, the latest on top. */
  private readonly seen = new Map<string, number>();
  private nextSeen = 0;
  /**
   * The panel's order as last drawn (or saved by the window before a reload), top first as
   * ranks below every new session's: a session listed again after a restart or a reload
   * goes back to its place instead of being sorted by its last change.
   */
  private remembered = new Map<string, number>();
  private readonly keptSessions = new Set<string>();
  /** (v4) Each session's checkout, as the last `plansight/sessions` listed it. */
  private readonly checkoutOf = new Map<string, Checkout | null>();
  private chosen: string | undefined;
  /** Without a chosen session: the session followed so far (`followedSession`'s last answer). */
  private held: string | undefined;
  /** The sessions changed since the followed one was last worked out. */
  private stale = true;
  /** The pushes taken so far (a counter), and the last one of each session: see `takeListing`. */
  private pushes = 0;
  private readonly pushedAt = new Map<string, number>();

  /**
   * @param followLatest the badge and status bar follow the most recently updated session at
   *   once (setting `plansight.followLatestSession`); else one in use stays followed until
   *   it has been idle `FOLLOW_IDLE_SECONDS` while another is newer (the server's rule).
   * @param now the clock the idle time is measured with (milliseconds, as `Date.now`).
   */
  constructor(
    chosenSession?: string,
    private following = false,
    private readonly now: () => number = Date.now,
  ) {
    this.chosen = chosenSession;
  }

  /** `plansight.followLatestSession`: follow the newest session at once, with no idle time. */
  get followLatest(): boolean {
    return this.following;
  }

  set followLatest(on: boolean) {
    this.following = on;
    this.stale = true;
  }

  /** Takes a state from a notification or a result; false when it is older than the one held. */
  update(state: TodoState): boolean {
    const held = this.bySession.get(state.session);
    if (held !== undefined && held.version >= state.version) {
      return false;
    }
    this.see(state.session);
    this.bySession.set(state.session, strip(state));
    this.pushedAt.set(state.session, ++this.pushes);
    this.stale = true;
    if (state.progress.total > 0) {
      this.keptSessions.delete(state.session); // back in sight on its own
    }
    return true;
  }

  /** Replaces every session with a fresh listing, keeping a newer state already held. */
  replaceAll(states: readonly TodoState[]): void {
    const previous = new Map(this.bySession);
    this.stale = true;
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

  /** Where the pushes stand as a listing is asked for: give it back to `takeListing`. */
  mark(): number {
    return this.pushes;
  }

  /**
   * Takes a whole listing asked for at `mark`. A session pushed since (an agent that began
   * while the listing was on its way, or a change meanwhile) keeps its pushed state when the
   * listing has none or an older one: the listing was read before it, and a session it
   * cannot name would otherwise leave the panel until its next change. `lastSeen`: the
   * states held before were the plans last seen, not the server's (another store's versions
   * even): none of them counts but what the server pushed since.
   */
  takeListing(states: readonly TodoState[], mark: number, lastSeen = false): void {
    const pushed = [...this.bySession.values()].filter((held) => (this.pushedAt.get(held.session) ?? 0) > mark);
    const listed = new Map(states.map((state) => [state.session, state]));
    const newer = pushed.filter((held) => held.version > (listed.get(held.session)?.version ?? -1));
    const taken = [...states.filter((state) => !newer.some((held) => held.session === state.session)), ...newer];
    if (lastSeen) {
      this.replaceAll([]);
    }
    this.replaceAll(taken);
  }

  /** Forgets pruned sessions (and the choice of one); true when any was held. */
  remove(sessions: readonly string[]): boolean {
    let removed = false;
    this.stale = true;
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
    this.stale = true;
  }

  /** Lets a kept session go (Close, or a switch to another session); true when it was kept. */
  release(session: string): boolean {
    if (this.held === session) {
      this.held = undefined;
    }
    this.stale = true;
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
    this.stale = true;
  }

  /**
   * The session the palette commands, the badge and the status bar follow: the chosen one;
   * else the one `followedSession` gives (the one followed so far while in use, else the
   * newest shown); else the default. Worked out again only after a change, so what the
   * status bar shows is what a command acts on, however long ago it was drawn.
   */
  activeSession(): string {
    if (this.chosen !== undefined) {
      return this.chosen;
    }
    if (this.stale) {
      const idleMs = this.following ? 0 : FOLLOW_IDLE_SECONDS * 1000;
      this.held = followedSession([...this.bySession.values()], this.held, this.now(), this.keptSessions, idleMs);
      this.stale = false;
    }
    return this.held ?? DEFAULT_SESSION;
  }

  activeState(): TodoState | undefined {
    return this.get(this.activeSession());
  }

  private isShown(state: TodoState): boolean {
    return state.progress.total > 0 || this.keptSessions.has(state.session);
  }

  private see(session: string): void {
    if (!this.seen.has(session)) {
      this.seen.set(session, this.remembered.get(session) ?? this.nextSeen++);
    }
  }

  /** Takes the panel's order, top first, to put back sessions listed again later. */
  rememberOrder(sessions: readonly string[]): void {
    this.remembered = new Map(sessions.map((session, index) => [session, -1 - index]));
  }

  /** The sessions in the panel's order, top first (what `rememberOrder` takes back). */
  order(): string[] {
    return this.sessions().map((state) => state.session);
  }

  /** Takes the checkouts of a `plansight/sessions` listing; true when any changed. */
  setCheckouts(listed: readonly { session: string; checkout?: Checkout | null }[]): boolean {
    let changed = false;
    for (const { session, checkout } of listed) {
      const now = checkout ?? null; // a server before v4 sends none
      const before = this.checkoutOf.get(session);
      changed ||= before === undefined || JSON.stringify(before) !== JSON.stringify(now);
      this.checkoutOf.set(session, now);
    }
    return changed;
  }

  /** Each listed session's checkout (a session not listed yet has none here). */
  get checkouts(): ReadonlyMap<string, Checkout | null> {
    return this.checkoutOf;
  }

  private forget(session: string): void {
    this.checkoutOf.delete(session);
    this.pushedAt.delete(session);
    this.seen.delete(session);
    this.keptSessions.delete(session);
    if (this.held === session) {
      this.held = undefined;
    }
  }
}

/** What the follow rule reads of a session: a TodoState or an entry of `plansight/sessions`. */
export interface FollowCandidate {
  readonly session: string;
  readonly updatedAt: string | null;
  readonly progress: { readonly total: number };
}

/**
 * The session followed when the person picked none; the server's rule
 * (`server/plansight/protocol/follow.py`, which `plansight watch` applies), on the same
 * cases (`tests/fixtures/follow/cases.json`). Among the sessions with tasks and the kept
 * ones (else all), `previous` stays while it is the newest or was updated within `idleMs`
 * of `nowMs`; else the newest. Undefined without any session.
 */
export function followedSession(
  sessions: readonly FollowCandidate[],
  previous: string | undefined,
  nowMs: number,
  kept: ReadonlySet<string> = new Set(),
  idleMs: number = FOLLOW_IDLE_SECONDS * 1000,
): string | undefined {
  const shown = sessions.filter((s) => s.progress.total > 0 || kept.has(s.session));
  const pool = [...(shown.length > 0 ? shown : sessions)].sort(newestFirst);
  const newest = pool[0];
  const held = pool.find((s) => s.session === previous);
  if (held !== undefined && (held === newest || nowMs - time(held.updatedAt) <= idleMs)) {
    return held.session;
  }
  return newest?.session;
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
export function newestFirst(a: FollowCandidate, b: FollowCandidate): number {
  const ta = time(a.updatedAt);
  const tb = time(b.updatedAt);
  if (ta !== tb) {
    return tb > ta ? 1 : -1;
  }
  return a.session < b.session ? -1 : a.session > b.session ? 1 : 0;
}
