import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { lastListing } from '../../src/lastListing';
import { LAST_SEEN_FORMAT, lastSeenFile, MAX_LAST_SEEN_BYTES, readLastSeen, userCacheDir, writeLastSeen } from '../../src/lastSeenFile';
import { KEPT_KEYS, LastSeenMemento, readKept } from '../../src/lastSeenMemento';
import { PROTOCOL_VERSION } from '../../src/protocol';
import { phase, state, task } from './fixtures';

const FOLDER = 'file:///home/ada/project';
const plan = state('claude-code:1', [phase('Build', task('t1', 'Paint the rows', 'in_progress'))], { version: 3 });
const listing = { protocol: PROTOCOL_VERSION, states: [plan], sessions: [] };

/** workspaceState as the extension host gives it. */
function workspaceState(): { memento: vscode.Memento; values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  const memento: vscode.Memento = {
    get: (key: string): unknown => values.get(key),
    update: (key: string, value: unknown): Thenable<void> => {
      values.set(key, value);
      return Promise.resolve();
    },
    keys: (): readonly string[] => [...values.keys()],
  };
  return { memento, values };
}

let cache: string;
beforeEach(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'plansight-last-seen-'));
});
afterEach(() => {
  fs.rmSync(cache, { recursive: true, force: true });
});

describe('the plans last seen, in a file of the machine (issue 33, item 12)', () => {
  it('lives in the user\'s own cache folder, one file a workspace', () => {
    assert.equal(userCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/ada'), '/x/cache');
    assert.equal(userCacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux', '/home/ada'), '/home/ada/.cache', 'a relative XDG_CACHE_HOME is ignored');
    assert.equal(userCacheDir({}, 'darwin', '/Users/ada'), '/Users/ada/Library/Caches');
    const file = lastSeenFile(FOLDER, '/home/ada/.cache');
    assert.match(file, /^\/home\/ada\/\.cache\/plansight\/vscode-last-seen\/[0-9a-f]{32}\.json$/);
    assert.notEqual(lastSeenFile('file:///home/ada/other', '/home/ada/.cache'), file);
  });

  it('gives back what was kept, readable by the user alone, with no file half-written left', () => {
    const file = lastSeenFile(FOLDER, cache);
    assert.equal(readLastSeen(file, FOLDER), undefined, 'nothing before the first window');
    assert.equal(writeLastSeen(file, FOLDER, { [KEPT_KEYS.listing]: listing, [KEPT_KEYS.openRows]: ['s:claude-code:1'] }), 'written');
    assert.deepEqual(readLastSeen(file, FOLDER), { [KEPT_KEYS.listing]: listing, [KEPT_KEYS.openRows]: ['s:claude-code:1'] });
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
  });

  it('reads nothing from a damaged file, another format\'s, another folder\'s or one too big', () => {
    const file = lastSeenFile(FOLDER, cache);
    writeLastSeen(file, FOLDER, { [KEPT_KEYS.listing]: listing });
    const whole = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, whole.slice(0, whole.length / 2));
    assert.equal(readLastSeen(file, FOLDER), undefined, 'cut short');
    fs.writeFileSync(file, '\u0000\u0001 not json');
    assert.equal(readLastSeen(file, FOLDER), undefined, 'not JSON');
    for (const document of [
      { format: LAST_SEEN_FORMAT + 1, folder: FOLDER, values: {} },
      { folder: FOLDER, values: {} },
      { format: LAST_SEEN_FORMAT, folder: 'file:///home/ada/other', values: {} },
      { format: LAST_SEEN_FORMAT, folder: FOLDER, values: [] },
      [1, 2],
      null,
    ]) {
      fs.writeFileSync(file, JSON.stringify(document));
      assert.equal(readLastSeen(file, FOLDER), undefined, JSON.stringify(document));
    }
    fs.writeFileSync(file, JSON.stringify({ format: LAST_SEEN_FORMAT, folder: FOLDER, values: { pad: 'x'.repeat(MAX_LAST_SEEN_BYTES) } }));
    assert.equal(readLastSeen(file, FOLDER), undefined, 'too big to read as the window starts');
    fs.rmSync(file);
    fs.mkdirSync(file);
    assert.equal(readLastSeen(file, FOLDER), undefined, 'a folder in its place');
  });

  it('keeps no plan too big, and leaves no older one in its place', () => {
    const file = lastSeenFile(FOLDER, cache);
    writeLastSeen(file, FOLDER, { [KEPT_KEYS.listing]: listing });
    const big = { ...listing, states: [{ ...plan, title: 'x'.repeat(MAX_LAST_SEEN_BYTES) }] };
    assert.equal(writeLastSeen(file, FOLDER, { [KEPT_KEYS.listing]: big }), 'too big');
    assert.equal(fs.existsSync(file), false);
  });

  it('takes no value of a shape the view cannot draw (an older or foreign file)', () => {
    const place = { file: lastSeenFile(FOLDER, cache), folder: FOLDER };
    writeLastSeen(place.file, place.folder, { [KEPT_KEYS.listing]: listing, [KEPT_KEYS.openRows]: 5 });
    assert.equal(readKept(place), undefined);
    writeLastSeen(place.file, place.folder, { [KEPT_KEYS.listing]: listing, [KEPT_KEYS.hideFinished]: true, 'a.newer.key': 1 });
    assert.deepEqual(readKept(place), { [KEPT_KEYS.listing]: listing, [KEPT_KEYS.hideFinished]: true });
  });
});

describe('workspaceState with the view\'s first values also in the file', () => {
  it('writes the listing at once, the rows\' state once changes settle, every value each time', () => {
    const place = { file: lastSeenFile(FOLDER, cache), folder: FOLDER };
    const { memento: inner, values } = workspaceState();
    const memento = new LastSeenMemento(inner, place, undefined, () => assert.fail('no error'));
    void memento.update(KEPT_KEYS.openRows, ['s:claude-code:1']);
    assert.equal(readKept(place), undefined, 'the rows\' state waits for the changes to settle');
    void memento.update(KEPT_KEYS.listing, listing);
    assert.deepEqual(readKept(place)?.[KEPT_KEYS.openRows], ['s:claude-code:1'], 'written with the listing');
    assert.deepEqual(lastListing({ get: (key: string): unknown => readKept(place)?.[key] } as vscode.Memento)?.states, [plan]);
    void memento.update(KEPT_KEYS.order, ['claude-code:1']);
    memento.dispose();
    const written = fs.statSync(place.file).mtimeMs;
    fs.utimesSync(place.file, 0, 0);
    const again = new LastSeenMemento(inner, place, undefined, () => assert.fail('no error'));
    void again.update(KEPT_KEYS.order, ['claude-code:1']);
    again.dispose();
    assert.equal(fs.statSync(place.file).mtimeMs, 0, `not written again for a value that did not change (was ${written})`);
    assert.deepEqual(readKept(place)?.[KEPT_KEYS.order], ['claude-code:1'], 'written when the window closes');
    assert.deepEqual(values.get(KEPT_KEYS.order), ['claude-code:1'], 'workspaceState keeps them too');
  });

  it('reads the file\'s values when the rows were drawn from them, workspaceState\'s otherwise', () => {
    const { memento: inner, values } = workspaceState();
    values.set(KEPT_KEYS.chosenSession, 'codex:2');
    values.set('plansight.other', 1);
    const taken = new LastSeenMemento(inner, undefined, { [KEPT_KEYS.listing]: listing }, () => undefined);
    assert.equal(taken.get(KEPT_KEYS.chosenSession), undefined, 'as the rows drawn from the file had it');
    assert.equal(taken.get(KEPT_KEYS.hideFinished, false), false);
    assert.equal(taken.get('plansight.other'), 1);
    void taken.update(KEPT_KEYS.chosenSession, 'claude-code:1');
    assert.equal(taken.get(KEPT_KEYS.chosenSession), 'claude-code:1');
    taken.dispose();
    const plain = new LastSeenMemento(inner, undefined, undefined, () => undefined);
    assert.equal(plain.get(KEPT_KEYS.chosenSession), 'claude-code:1');
    plain.dispose();
  });

  it('says a failed write in the log and never throws', () => {
    // Its folder cannot be made (a file is in the way): fails for root too.
    fs.writeFileSync(path.join(cache, 'plansight'), '');
    const place = { file: lastSeenFile(FOLDER, cache), folder: FOLDER };
    const errors: string[] = [];
    const memento = new LastSeenMemento(workspaceState().memento, place, undefined, (message) => errors.push(message));
    void memento.update(KEPT_KEYS.listing, listing);
    assert.deepEqual(errors, ['Keeping the plans last seen in their file failed']);
    assert.equal(memento.get(KEPT_KEYS.listing), listing, 'workspaceState has it still');
    memento.dispose();
  });
});
