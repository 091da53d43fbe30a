import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { lastListing, ListingKeeper } from '../../src/lastListing';
import type { SessionInfo } from '../../src/protocol';
import { phase, state, task } from './fixtures';

/** workspaceState as the extension host gives it: JSON values by key. */
function workspaceState(): { memento: vscode.Memento; values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  const memento: vscode.Memento = {
    get: (key: string): unknown => (values.has(key) ? (JSON.parse(JSON.stringify(values.get(key))) as unknown) : undefined),
    update: (key: string, value: unknown): Thenable<void> => {
      if (value === undefined) {
        values.delete(key);
      } else {
        values.set(key, value);
      }
      return Promise.resolve();
    },
    keys: (): readonly string[] => [...values.keys()],
  };
  return { memento, values };
}

const plan = state('claude-code:1', [phase('Build', task('t1', 'Paint the rows', 'in_progress'))], { version: 3 });
const sessions: SessionInfo[] = [{ session: 'claude-code:1', title: 'Paint', version: 3, updatedAt: null, progress: plan.progress, current: null, checkout: null }];

describe('the last listing a window drew (issue 33, item 12)', () => {
  it('gives the next window the plans and the sessions kept', () => {
    const { memento } = workspaceState();
    const keeper = new ListingKeeper(memento);
    keeper.keepSoon(() => ({ states: [plan], sessions }));
    assert.equal(lastListing(memento), undefined, 'kept once the changes settle');
    keeper.flush();
    const last = lastListing(memento);
    assert.ok(last !== undefined);
    assert.deepEqual(last.states, [plan]);
    assert.deepEqual(last.sessions, sessions);
  });

  it('reads nothing kept by another protocol version, nothing malformed, and keeps no empty listing', () => {
    const { memento, values } = workspaceState();
    values.set('plansight.lastListing', { protocol: 3, states: [plan], sessions: [] });
    assert.equal(lastListing(memento), undefined);
    values.set('plansight.lastListing', { protocol: 4, states: [{ no: 'session' }], sessions: [] });
    assert.equal(lastListing(memento), undefined);
    const keeper = new ListingKeeper(memento);
    keeper.keepSoon(() => ({ states: [], sessions: [] }));
    keeper.flush();
    assert.equal(values.has('plansight.lastListing'), false, 'an empty plan replaces what was kept');
  });
});
