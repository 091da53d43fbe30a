import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { followedSession, PlanState } from '../../src/planState';
import { PlanTree, sessionNodeId } from '../../src/planTree';
import { EXTENSION_ROOT, phase, state, task } from './fixtures';

interface FollowCases {
  now: string;
  cases: {
    name: string;
    sessions: { session: string; updatedAt: string | null; tasks: number }[];
    kept?: string[];
    previous: string | null;
    idleSeconds?: number;
    followed: string | null;
  }[];
}

describe('PlanState', () => {
  it('keeps the newest version of a session, whatever order reports arrive in', () => {
    const plans = new PlanState();
    assert.equal(plans.update(state('default', [phase('Todos', task('t1', 'a'))], { version: 2 })), true);
    assert.equal(plans.update(state('default', [], { version: 1 })), false);
    assert.equal(plans.update(state('default', [], { version: 2 })), false);
    assert.equal(plans.get('default')?.progress.total, 1);
    assert.equal(plans.update(state('default', [], { version: 3 })), true);
    assert.equal(plans.get('default')?.progress.total, 0);
  });

  it('drops what a notification carries beyond the state', () => {
    const plans = new PlanState();
    plans.update({ ...state('default', []), origin: 'user', completedTasks: [], removedTasks: [] } as ReturnType<typeof state>);
    assert.deepEqual(Object.keys(plans.get('default') ?? {}).sort(), ['current', 'phases', 'progress', 'session', 'title', 'updatedAt', 'version']);
  });

  it('replaces the listing but keeps a newer state that arrived meanwhile', () => {
    const plans = new PlanState();
    plans.update(state('a', [], { version: 5 }));
    plans.update(state('gone', [], { version: 1 }));
    plans.replaceAll([state('a', [], { version: 4 }), state('b', [], { version: 1 })]);
    // 'b' is new to it: on top of the sessions seen before.
    assert.deepEqual(
      plans.sessions().map((s) => [s.session, s.version]),
      [
        ['b', 1],
        ['a', 5],
      ],
    );
  });

  it('keeps a session pushed while a listing was on its way, which the listing could not name (issue 33, item 12)', () => {
    const plans = new PlanState();
    plans.replaceAll([state('a', [phase('Todos', task('t1', 'Old'))], { version: 2 })]);
    const mark = plans.mark();
    // The listing is on its way: an agent begins a session, another changes 'a'.
    plans.update(state('new', [phase('Todos', task('t1', 'Begun meanwhile'))], { version: 1 }));
    plans.update(state('a', [phase('Todos', task('t1', 'Changed meanwhile'))], { version: 3 }));
    plans.takeListing([state('a', [phase('Todos', task('t1', 'Old'))], { version: 2 })], mark);
    assert.deepEqual(
      plans.sessions().map((s) => [s.session, s.version]),
      [
        ['new', 1],
        ['a', 3],
      ],
    );
  });

  it('holds a session both pushed while a listing was on its way and named by it once, at its newer state, one row in the tree (issue 33)', () => {
    for (const [pushed, listed, kept] of [
      [1, 1, 1],
      [2, 1, 2],
      [1, 2, 2],
    ] as const) {
      const plans = new PlanState();
      plans.replaceAll([state('a', [phase('Todos', task('t1', 'Held'))], { version: 2 })]);
      const mark = plans.mark();
      plans.update(state('new', [phase('Todos', task('t1', `Pushed ${pushed}`))], { version: pushed }));
      plans.takeListing([state('a', [phase('Todos', task('t1', 'Held'))], { version: 2 }), state('new', [phase('Todos', task('t1', `Listed ${listed}`))], { version: listed })], mark);
      assert.deepEqual(
        plans.sessions().map((s) => s.session),
        ['new', 'a'],
      );
      assert.equal(plans.get('new')?.version, kept);
      const roots = PlanTree.build(plans.sessions()).roots.map((root) => root.id);
      assert.deepEqual(roots, [sessionNodeId('new'), sessionNodeId('a')]);
    }
  });

  it('after the plans last seen, a listing keeps only what the server listed or pushed since it was asked', () => {
    const plans = new PlanState();
    // The plans last seen, from a store whose versions ran higher.
    plans.replaceAll([state('a', [phase('Todos', task('t1', 'Seen'))], { version: 7 }), state('gone', [phase('Todos', task('t1', 'Seen'))], { version: 9 })]);
    const mark = plans.mark();
    plans.update(state('new', [phase('Todos', task('t1', 'Begun meanwhile'))], { version: 1 }));
    plans.takeListing([state('a', [phase('Todos', task('t1', 'Listed'))], { version: 1 })], mark, true);
    assert.deepEqual(plans.sessions().map((s) => s.session).sort(), ['a', 'new']);
    assert.equal(plans.get('a')?.phases[0]?.tasks[0]?.content, 'Listed');
  });

  it('keeps the order sessions were first seen in, whatever changes later (issue 23, item 7)', () => {
    const plans = new PlanState();
    plans.replaceAll([
      state('old', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T09:00:00.000Z' }),
      state('new', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T11:00:00.000Z' }),
    ]);
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['new', 'old'],
    );
    plans.update(state('old', [phase('Todos', task('t1', 'b'))], { version: 2, updatedAt: '2026-01-01T12:00:00.000Z' }));
    plans.update(state('third', [phase('Todos', task('t1', 'c'))], { updatedAt: '2026-01-01T10:00:00.000Z' }));
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['third', 'new', 'old'],
    );
    plans.replaceAll(plans.sessions());
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['third', 'new', 'old'],
    );
  });

  it("follows the chosen session, else the one in use; another agent's change moves it only once that one is idle (issue 30, item 7)", () => {
    let now = Date.parse('2026-01-01T12:00:00.000Z');
    const plans = new PlanState(undefined, false, () => now);
    assert.equal(plans.activeSession(), 'default');
    plans.update(state('first', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T11:59:00.000Z' }));
    assert.equal(plans.activeSession(), 'first');
    plans.update(state('second', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T11:59:30.000Z' }));
    assert.equal(plans.activeSession(), 'first', 'a second agent writing while the first works does not take the badge');
    now = Date.parse('2026-01-01T12:05:00.000Z');
    assert.equal(plans.activeSession(), 'first', 'time alone never moves it: the badge and the commands agree');
    plans.update(state('second', [phase('Todos', task('t1', 'b'))], { version: 2, updatedAt: '2026-01-01T12:05:00.000Z' }));
    assert.equal(plans.activeSession(), 'second', 'the first has been idle 2 minutes while the second is newer');
    plans.choose('first');
    assert.equal(plans.activeSession(), 'first');
    plans.update(state('second', [phase('Todos', task('t1', 'c'))], { version: 3, updatedAt: '2026-01-01T12:06:00.000Z' }));
    assert.equal(plans.activeSession(), 'first', 'a chosen session stays chosen');
    plans.update(state('first', [], { version: 2 }));
    assert.equal(plans.activeSession(), 'first', 'the chosen session stays chosen when emptied');
  });

  it("picks the session the server's rule picks, on the cases every client runs", () => {
    const fixture = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, '..', '..', 'tests', 'fixtures', 'follow', 'cases.json'), 'utf8')) as FollowCases;
    const now = Date.parse(fixture.now);
    assert.ok(fixture.cases.length >= 10);
    for (const c of fixture.cases) {
      const sessions = c.sessions.map((s) => ({ session: s.session, updatedAt: s.updatedAt, progress: { total: s.tasks } }));
      const idleMs = c.idleSeconds === undefined ? undefined : c.idleSeconds * 1000;
      const found = followedSession(sessions, c.previous ?? undefined, now, new Set(c.kept ?? []), idleMs);
      assert.equal(found ?? null, c.followed, c.name);
    }
  });

  it('keeps a session the person cleared in sight until they switch away or close it (issue 23, item 10)', () => {
    const plans = new PlanState();
    plans.update(state('a', [phase('Todos', task('t1', 'x'))], { updatedAt: '2026-01-01T09:00:00.000Z' }));
    plans.update(state('b', [phase('Todos', task('t1', 'y'))], { updatedAt: '2026-01-01T10:00:00.000Z' }));
    plans.choose('a');
    plans.keep('a');
    plans.update(state('a', [], { version: 2 }));
    assert.deepEqual(
      plans.sessionsWithTasks().map((s) => s.session),
      ['b', 'a'],
    );
    assert.equal(plans.activeSession(), 'a');
    // Undo brings the tasks back: an ordinary session again.
    plans.update(state('a', [phase('Todos', task('t1', 'x'))], { version: 3 }));
    assert.equal(plans.kept.has('a'), false);
    plans.keep('a');
    plans.update(state('a', [], { version: 4 }));
    plans.choose('b');
    assert.deepEqual(
      plans.sessionsWithTasks().map((s) => s.session),
      ['b'],
      'switching away lets it go',
    );
    plans.keep('b');
    plans.update(state('b', [], { version: 2 }));
    assert.equal(plans.release('b'), true);
    assert.deepEqual(plans.sessionsWithTasks(), []);
  });

  it('follows the latest change at once when followLatestSession is on', () => {
    const plans = new PlanState(undefined, true, () => Date.parse('2026-01-01T12:00:00.000Z'));
    assert.equal(plans.activeSession(), 'default');
    plans.update(state('old', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T09:00:00.000Z' }));
    plans.update(state('empty', [], { updatedAt: '2026-01-01T12:00:00.000Z' }));
    plans.update(state('new', [phase('Todos', task('t1', 'a'))], { updatedAt: '2026-01-01T11:00:00.000Z' }));
    assert.equal(plans.activeSession(), 'new');
    plans.choose('old');
    assert.equal(plans.activeSession(), 'old');
    assert.equal(plans.activeState()?.session, 'old');
    plans.choose(undefined);
    assert.equal(plans.activeSession(), 'new');
    // The panel's order is the order first seen, the latest on top.
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['new', 'empty', 'old'],
    );
  });

  it('forgets pruned sessions, and the choice of one', () => {
    const plans = new PlanState('old');
    plans.update(state('old', [phase('Todos', task('t1', 'a'))]));
    plans.update(state('kept', [phase('Todos', task('t1', 'a'))]));
    assert.equal(plans.remove(['gone']), false);
    assert.equal(plans.remove(['old', 'gone']), true);
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['kept'],
    );
    assert.equal(plans.chosenSession, undefined);
    assert.equal(plans.activeSession(), 'kept');
  });
});
