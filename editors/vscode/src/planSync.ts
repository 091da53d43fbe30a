/**
 * Keeps the PlanState in step with the server: a full listing whenever the server (re)starts
 * or a person asks for Refresh, then every `plansight/didChange`. The view, the status bar
 * and the markdown documents redraw from its `onDidUpdate`.
 */
import { KEPT_KEYS } from './lastSeenMemento';
import * as vscode from 'vscode';
import { ChangeReader } from './changeDeltas';
import type { PlansightClient } from './client';
import { lastListing, ListingKeeper } from './lastListing';
import { PlanState } from './planState';
import type { DidChangeParams, SessionInfo, TodoState } from './protocol';

/** Why a write is refused while the last plan seen is drawn (client.holdWrites). */
const NOT_LIVE = 'not done: the plan on screen was the one last seen here, not yet confirmed by the server. Try again in a moment';

const CHOSEN_SESSION_KEY = KEPT_KEYS.chosenSession;
const FOLLOW_LATEST_SETTING = 'plansight.followLatestSession';

/** Whether the palette, badge and status bar follow the newest session (the setting). */
export function followLatest(): boolean {
  return vscode.workspace.getConfiguration().get<boolean>(FOLLOW_LATEST_SETTING, false);
}

export interface PlanUpdate {
  /** The session that changed; undefined after a full listing or a session switch. */
  readonly session?: string;
  /** The session's current task changed (a task started, finished, or went away). */
  readonly currentChanged: boolean;
}

export class PlanSync implements vscode.Disposable {
  readonly plans: PlanState;
  private readonly updateEmitter = new vscode.EventEmitter<PlanUpdate>();
  private readonly listedEmitter = new vscode.EventEmitter<void>();
  private readonly changeEmitter = new vscode.EventEmitter<DidChangeParams>();
  private readonly disposables: vscode.Disposable[] = [this.updateEmitter, this.listedEmitter, this.changeEmitter];
  /** Makes whole states of the server's pushes, deltas included. */
  private readonly reader: ChangeReader;
  private refreshing: Promise<void> | undefined;
  private listing: Promise<void> | undefined;
  /** The `plansight/sessions` entries last listed: kept with the states for the next window. */
  private listed: readonly SessionInfo[] = [];
  private readonly keeper: ListingKeeper;
  private lastSeenValue = false;

  readonly onDidUpdate = this.updateEmitter.event;

  /** Every committed change pushed by the server, as a whole state (the extension's API). */
  readonly onDidChange = this.changeEmitter.event;

  /**
   * After the listing that follows each (re)start, done or failed: what else asks the
   * server's CLI at start (the doctor, the store's path) waits for it, so the first rows
   * do not share two cores with them (issue 33, item 12).
   */
  readonly onDidList = this.listedEmitter.event;

  constructor(
    private readonly client: PlansightClient,
    private readonly memento: vscode.Memento,
  ) {
    this.plans = new PlanState(memento.get<string>(CHOSEN_SESSION_KEY), followLatest());
    this.keeper = new ListingKeeper(memento);
    this.reader = new ChangeReader({
      held: (session) => this.plans.get(session),
      accept: (change) => {
        this.accept(change);
        this.changeEmitter.fire(change);
      },
      get: (session) => client.request('plansight/get', { session }),
      logError: (message, error) => client.logError(message, error),
    });
    // Answers that carry only the change are laid on the states held here, as pushes are.
    client.readAnswersWith(this.reader);
    this.disposables.push(
      this.keeper,
      this.updateEmitter.event(() => {
        if (!this.lastSeenValue) {
          this.keeper.keepSoon(() => ({ states: this.plans.sessions(), sessions: this.listed }));
        }
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(FOLLOW_LATEST_SETTING)) {
          this.plans.followLatest = followLatest();
          this.updateEmitter.fire({ currentChanged: false });
        }
      }),
      client.onDidChange((push) => void this.reader.receive(push)),
      client.onDidPrune((sessions) => this.prune(sessions)),
      client.onDidBecomeReady(() => {
        const began = Date.now();
        void this.refresh()
          .then(() => client.log(`Listed the sessions in ${Date.now() - began} ms`))
          .catch((error: unknown) => {
            client.logError('Listing the sessions failed', error);
            this.forgetLastSeen();
          })
          .finally(() => this.listedEmitter.fire());
      }),
      // A server that gave up sends no more changes: a plan left on screen would look live
      // (a spinning task, a badge) while the agent moves on. The store keeps it all; a
      // restart lists it again.
      client.onDidChangeState((state) => {
        if (state === 'failed') {
          this.forgetLastSeen();
        }
        if (state === 'failed' && this.plans.sessions().length > 0) {
          this.plans.replaceAll([]);
          this.updateEmitter.fire({ currentChanged: false });
        }
      }),
    );
  }

  /**
   * True while the plans drawn are the ones this workspace's window last saw, not yet the
   * server's: the view says so, and the client refuses writes meanwhile.
   */
  get lastSeen(): boolean {
    return this.lastSeenValue;
  }

  /**
   * Holds the plans this workspace's window last saw, before the server has started (issue
   * 33, item 12), without telling anyone yet (`redraw` tells): the Plan view reads them as
   * it is made, so VS Code's first fetch of its rows has them. The first listing replaces
   * them. Returns whether there were any.
   */
  takeLastSeen(): boolean {
    const last = lastListing(this.memento);
    if (last === undefined || this.client.state === 'running' || this.client.state === 'failed') {
      return false;
    }
    this.lastSeenValue = true;
    this.client.holdWrites(NOT_LIVE);
    this.plans.replaceAll(last.states);
    this.plans.setCheckouts(last.sessions);
    this.listed = last.sessions;
    return true;
  }

  /** Tells everyone to draw the plans held (after `takeLastSeen`). */
  redraw(): void {
    this.updateEmitter.fire({ currentChanged: false });
  }

  /** The server's answer replaced the last plans seen, or none will: live from now on. */
  private forgetLastSeen(): void {
    if (this.lastSeenValue) {
      this.lastSeenValue = false;
      this.client.holdWrites(undefined);
      this.plans.replaceAll([]); // the store may hold none of them now (pruned, another store)
      this.updateEmitter.fire({ currentChanged: false });
    }
  }

  /** Fetches every session's state from the server. */
  refresh(): Promise<void> {
    this.refreshing ??= this.fetchAll().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Takes a state from a notification or a request's result. */
  accept(state: TodoState): void {
    const before = this.plans.get(state.session)?.current?.id;
    if (this.plans.update(state)) {
      const update: PlanUpdate = { session: state.session, currentChanged: before !== (state.current?.id ?? undefined) };
      if (this.plans.checkouts.has(state.session)) {
        this.updateEmitter.fire(update);
        return;
      }
      // A session new to this window: its checkout (v4) is in the listing, not the state.
      // It is drawn once, with its checkout: drawn before, its row was there already when
      // the checkout redrew it, so it no longer opened as a new session's row does.
      void this.listCheckouts()
        .catch((error: unknown) => this.client.logError('Listing the sessions failed', error))
        .finally(() => this.updateEmitter.fire(update));
    }
  }

  private listCheckouts(): Promise<void> {
    this.listing ??= this.client
      .request('plansight/sessions', {})
      .then(({ sessions }) => {
        this.listed = sessions;
        this.plans.setCheckouts(sessions);
      })
      .finally(() => {
        this.listing = undefined;
      });
    return this.listing;
  }

  /** Drops sessions the store pruned. */
  prune(sessions: readonly string[]): void {
    const chosen = this.plans.chosenSession;
    if (this.plans.remove(sessions)) {
      if (chosen !== undefined && this.plans.chosenSession === undefined) {
        void this.memento.update(CHOSEN_SESSION_KEY, undefined);
      }
      this.updateEmitter.fire({ currentChanged: false });
    }
  }

  /** Keeps a session the person cleared in the panel, so its Undo is at hand. */
  keep(session: string): void {
    this.plans.keep(session);
    this.updateEmitter.fire({ session, currentChanged: false });
  }

  /** Lets a kept session leave the panel (its Close button). */
  release(session: string): void {
    if (this.plans.release(session)) {
      this.updateEmitter.fire({ currentChanged: false });
    }
  }

  /** Makes the palette commands, badge and status bar follow a session; undefined follows the newest. */
  async choose(session: string | undefined): Promise<void> {
    this.plans.choose(session);
    await this.memento.update(CHOSEN_SESSION_KEY, session);
    this.updateEmitter.fire({ currentChanged: false });
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private async fetchAll(): Promise<void> {
    // Pushes go on while the listing is on its way: a session they bring is kept (takeListing).
    const mark = this.plans.mark();
    const { sessions } = await this.client.request('plansight/sessions', {});
    const states = await Promise.all(sessions.map(({ session }) => this.client.request('plansight/get', { session })));
    // The server's states replace the last seen ones whatever their versions (a new store
    // starts again at 1).
    const lastSeen = this.lastSeenValue;
    if (lastSeen) {
      this.lastSeenValue = false;
      this.client.holdWrites(undefined);
    }
    this.plans.takeListing(states, mark, lastSeen);
    this.plans.setCheckouts(sessions);
    this.listed = sessions;
    this.updateEmitter.fire({ currentChanged: true });
    this.keeper.flush(); // a full listing is kept at once: a reload may follow soon
  }
}
