/**
 * The plans this workspace's window last drew, kept in its workspaceState, so that the next
 * window draws them the moment the view opens instead of after the Python server's start
 * (seconds on a loaded machine: issue 33, item 12). They are drawn as the last seen, not
 * live (PlanSync says so; the client holds writes), until the server's listing replaces them.
 */
import { KEPT_KEYS } from './lastSeenMemento';
import type * as vscode from 'vscode';
import { PROTOCOL_VERSION, type SessionInfo, type TodoState } from './protocol';

const KEY = KEPT_KEYS.listing;
/** A plan kept past this size (as JSON) is not kept: workspaceState is read at every start. */
const MAX_CHARS = 2_000_000;
/** Changes come in bursts (an agent's turn): kept once they settle. */
const SAVE_DELAY_MS = 1000;

export interface Listing {
  readonly states: readonly TodoState[];
  /** The `plansight/sessions` entries: each session's checkout (v4). */
  readonly sessions: readonly SessionInfo[];
}

interface Kept extends Listing {
  /** The protocol the states were written in: another version's are not read. */
  readonly protocol: number;
}

/** The last listing kept for this workspace, when there is one this extension can read. */
export function lastListing(memento: vscode.Memento): Listing | undefined {
  const kept = memento.get<unknown>(KEY);
  if (!isKept(kept) || kept.protocol !== PROTOCOL_VERSION || kept.states.length === 0) {
    return undefined;
  }
  return { states: kept.states, sessions: kept.sessions };
}

/** Keeps the plans drawn, a moment after they last changed. */
export class ListingKeeper implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: (() => Listing) | undefined;

  constructor(private readonly memento: vscode.Memento) {}

  /** Keeps what `listing` gives once changes settle (read then, not now). */
  keepSoon(listing: () => Listing): void {
    this.pending = listing;
    this.timer ??= setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const listing = this.pending?.();
    this.pending = undefined;
    if (listing === undefined) {
      return;
    }
    const kept: Kept = { protocol: PROTOCOL_VERSION, states: listing.states, sessions: listing.sessions };
    // Too big to read back quickly: nothing kept rather than an older listing.
    const fits = JSON.stringify(kept).length <= MAX_CHARS;
    void this.memento.update(KEY, fits && listing.states.length > 0 ? kept : undefined);
  }

  dispose(): void {
    this.flush();
  }
}

function isKept(value: unknown): value is Kept {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const { protocol, states, sessions } = value as Record<string, unknown>;
  return (
    typeof protocol === 'number' &&
    Array.isArray(states) &&
    Array.isArray(sessions) &&
    states.every((state) => typeof state === 'object' && state !== null && typeof (state as { session?: unknown }).session === 'string')
  );
}
