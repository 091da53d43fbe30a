/**
 * workspaceState with what the Plan view draws first also kept in the last seen file
 * (lastSeenFile.ts): the plans last listed, the session followed, Hide Finished, the rows
 * opened and closed and the sessions' order. Read from the file as the bundle is evaluated,
 * they draw the rows before activate() (issue 33, item 12); the extension then reads them
 * from here, so the view activate() makes draws what VS Code was given already.
 */
import * as fs from 'node:fs';
import type * as vscode from 'vscode';
import { readLastSeen, writeLastSeen, type KeptValues } from './lastSeenFile';

/** The workspaceState keys kept in the file (lastListing.ts, planSync.ts, planView.ts use them). */
export const KEPT_KEYS = {
  listing: 'plansight.lastListing',
  chosenSession: 'plansight.chosenSession',
  hideFinished: 'plansight.plan.hideFinished',
  openRows: 'plansight.plan.openRows',
  closedRows: 'plansight.plan.closedRows',
  order: 'plansight.plan.sessionOrder',
} as const;

/** Each kept key with the shape its value must have to be read back. */
const KEPT: Readonly<Record<string, (value: unknown) => boolean>> = {
  [KEPT_KEYS.listing]: (value) => typeof value === 'object', // lastListing() checks it further
  [KEPT_KEYS.chosenSession]: (value) => typeof value === 'string',
  [KEPT_KEYS.hideFinished]: (value) => typeof value === 'boolean',
  [KEPT_KEYS.openRows]: isStrings,
  [KEPT_KEYS.closedRows]: isStrings,
  [KEPT_KEYS.order]: isStrings,
};
/** The listing is written at once (a reload may follow); the rest once changes settle. */
const LISTING_KEY = KEPT_KEYS.listing;
const SAVE_DELAY_MS = 1000;

/** Where a workspace's values are kept: its file, and what names the workspace in it. */
export interface LastSeenPlace {
  readonly file: string;
  readonly folder: string;
}

/** The values in the place's file, when all of them have the shapes this extension reads. */
export function readKept(place: LastSeenPlace): KeptValues | undefined {
  const values = readLastSeen(place.file, place.folder);
  if (values === undefined) {
    return undefined;
  }
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const shape = KEPT[key];
    if (shape === undefined) {
      continue; // a newer extension's key: not this one's business
    }
    if (value !== undefined && value !== null && !shape(value)) {
      return undefined; // damaged or foreign: nothing from it
    }
    kept[key] = value;
  }
  return kept;
}

export class LastSeenMemento implements vscode.Memento, vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The file's values, when the rows were drawn from them: read here instead of workspaceState. */
  private readonly taken: Record<string, unknown> | undefined;

  constructor(
    private readonly inner: vscode.Memento,
    /** undefined: a window with no folder keeps workspaceState only. */
    private readonly place: LastSeenPlace | undefined,
    taken: KeptValues | undefined,
    private readonly logError: (message: string, error: unknown) => void,
  ) {
    this.taken = taken === undefined ? undefined : { ...taken };
  }

  keys(): readonly string[] {
    return this.inner.keys();
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- vscode.Memento's own signature
  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    if (this.taken !== undefined && key in KEPT) {
      return (this.taken[key] as T | undefined) ?? defaultValue;
    }
    return this.inner.get<T>(key) ?? defaultValue;
  }

  update(key: string, value: unknown): Thenable<void> {
    // The view keeps the sessions' order at every redraw: the file is written when it changed.
    const changed = key === LISTING_KEY || JSON.stringify(value) !== JSON.stringify(this.get(key));
    if (key in KEPT && changed) {
      if (this.taken !== undefined) {
        this.taken[key] = value;
      }
      if (key === LISTING_KEY) {
        this.save(value);
      } else {
        this.timer ??= setTimeout(() => this.flush(), SAVE_DELAY_MS);
      }
    }
    return this.inner.update(key, value);
  }

  /** Writes the file now, if a change waits. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.save(this.get(LISTING_KEY));
    }
  }

  dispose(): void {
    this.flush();
  }

  /** The file, with every kept value as now (`listing` given: workspaceState may not have it yet). */
  private save(listing: unknown): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.place === undefined) {
      return;
    }
    const values: Record<string, unknown> = {};
    for (const key of Object.keys(KEPT)) {
      values[key] = key === LISTING_KEY ? listing : this.get(key);
    }
    try {
      if (writeLastSeen(this.place.file, this.place.folder, values) === 'too big') {
        this.logError('The plans last seen were not kept in their file', new Error('they are bigger than the file may be'));
      }
    } catch (error) {
      this.logError('Keeping the plans last seen in their file failed', error);
      // An older file left would be drawn as the last seen: none rather than that.
      try {
        fs.rmSync(this.place.file, { force: true });
      } catch {
        // the folder itself is not writable: the file's folder check still holds
      }
    }
  }
}

function isStrings(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
