import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { applyDelta, ChangeReader, isDelta, type ChangeDelta, type ChangePush } from '../../src/changeDeltas';
import type { ApplyResult, ApplyResultDelta } from '../../src/protocol';
import type { DidChangeParams, Task, TodoState } from '../../src/protocol';
import { EXTENSION_ROOT, phase, state, task } from './fixtures';

const members = { origin: 'agent' as const, completedTasks: [], removedTasks: [] };

function whole(of: TodoState): DidChangeParams {
  return { ...of, ...members };
}

/**
 * The delta from `before` to `after` as docs/protocol.md describes it: every phase with
 * its ids where they changed, the tasks that differ, the ids gone.
 */
function deltaOf(before: TodoState, after: TodoState): ChangeDelta {
  const held = new Map(before.phases.flatMap((p) => p.tasks).map((t) => [t.id, JSON.stringify(t)]));
  const now = after.phases.flatMap((p) => p.tasks);
  const ids = (tasks: readonly Task[]): string => tasks.map((t) => t.id).join(',');
  return {
    ...whole(after),
    baseVersion: before.version,
    phases: after.phases.map((p) => {
      const was = before.phases.find((b) => b.name === p.name);
      return was !== undefined && ids(was.tasks) === ids(p.tasks) ? { name: p.name, progress: p.progress } : { name: p.name, progress: p.progress, taskIds: p.tasks.map((t) => t.id) };
    }),
    tasks: now.filter((t) => held.get(t.id) !== JSON.stringify(t)),
    removedIds: [...held.keys()].filter((id) => !now.some((t) => t.id === id)),
  };
}

const v1 = state('default', [phase('Build', task('t1', 'Write the parser', 'in_progress'), task('t2', 'Run the build')), phase('Ship', task('t3', 'Tag the release'))], { version: 1 });
const v2 = state(
  'default',
  [
    phase('Build', task('t1', 'Write the parser', 'completed'), task('t4', 'Fix the lexer', 'in_progress', { parent: 't1' })),
    phase('Ship', task('t3', 'Tag the release', 'pending', { notes: ['After the build'] })),
    phase('Docs', task('t5', 'Write the changelog')),
  ],
  { version: 2, title: 'Parser work' },
);
const v3 = state('default', [phase('Ship', task('t3', 'Tag the release', 'in_progress')), phase('Build', task('t1', 'Write the parser', 'completed'))], { version: 3 });

/** A window's store of states, its `plansight/get` answering from `server`. */
function windowOn(server: Map<string, TodoState>) {
  const heldStates = new Map<string, TodoState>();
  const accepted: DidChangeParams[] = [];
  const asked: string[] = [];
  const reader = new ChangeReader({
    held: (session) => heldStates.get(session),
    accept: (change) => {
      accepted.push(change);
      const had = heldStates.get(change.session);
      if (had === undefined || had.version < change.version) {
        heldStates.set(change.session, change);
      }
    },
    get: (session) => {
      asked.push(session);
      return Promise.resolve(server.get(session) ?? state(session, [], { version: 0 }));
    },
    logError: (message) => assert.fail(message),
  });
  return { reader, heldStates, accepted, asked, receive: (push: ChangePush) => reader.receive(push) };
}

describe('applying a change delta', () => {
  it('makes the whole state of its version, field by field', () => {
    for (const [before, after] of [
      [v1, v2],
      [v2, v3],
    ] as const) {
      assert.deepEqual(applyDelta(before, deltaOf(before, after)), whole(after));
    }
  });

  it('is not applied on another version than its base', () => {
    assert.equal(applyDelta(v2, deltaOf(v1, v2)), undefined);
  });

  it('is not applied when it names a task the held state lacks', () => {
    const delta = { ...deltaOf(v1, v2), tasks: [] };
    assert.equal(applyDelta(v1, delta), undefined);
  });
});

describe('reading pushes', () => {
  it('applies a delta on the version held, without asking the server', async () => {
    const window = windowOn(new Map());
    await window.receive(whole(v1));
    await window.receive(deltaOf(v1, v2));
    assert.deepEqual(window.heldStates.get('default'), whole(v2));
    assert.deepEqual(window.asked, []);
  });

  it('asks plansight/get on a gap (a push lost) and uses its answer', async () => {
    const window = windowOn(new Map([['default', v3]]));
    await window.receive(whole(v1));
    await window.receive(deltaOf(v2, v3)); // v2 never came
    assert.deepEqual(window.asked, ['default']);
    assert.deepEqual(window.heldStates.get('default'), whole(v3));
  });

  it('asks plansight/get for a delta of a session it never held (a restart)', async () => {
    const window = windowOn(new Map([['default', v2]]));
    await window.receive(deltaOf(v1, v2));
    assert.deepEqual(window.asked, ['default']);
    assert.equal(window.heldStates.get('default')?.version, 2);
  });

  it('takes a whole state after deltas, and applies the next delta on it', async () => {
    const window = windowOn(new Map());
    await window.receive(whole(v1));
    await window.receive(deltaOf(v1, v2));
    await window.receive(whole(v3));
    assert.deepEqual(window.heldStates.get('default'), whole(v3));
    const v4 = state('default', [phase('Ship', task('t3', 'Tag the release', 'completed'))], { version: 4 });
    await window.receive(deltaOf(v3, v4));
    assert.deepEqual(window.heldStates.get('default'), whole(v4));
    assert.deepEqual(window.asked, []);
  });

  it('keeps the newer state when pushes come out of order', async () => {
    const window = windowOn(new Map([['default', v3]]));
    await window.receive(whole(v1));
    await window.receive(deltaOf(v2, v3)); // before v2's: a gap, asked
    await window.receive(deltaOf(v1, v2)); // late: v3 is held already
    assert.deepEqual(window.heldStates.get('default'), whole(v3));
    assert.deepEqual(window.asked, ['default']);
  });

  it('adds nothing for a session pruned before its state was read', async () => {
    const window = windowOn(new Map()); // the store holds it no longer
    await window.receive(deltaOf(v1, v2));
    assert.deepEqual(window.asked, ['default']);
    assert.equal(window.heldStates.has('default'), false);
    assert.deepEqual(window.accepted, []);
  });

  it('asks again when a newer delta came while it asked, one at a time', async () => {
    const server = new Map([['default', v3]]);
    const window = windowOn(server);
    await window.receive(whole(v1));
    const v4 = state('default', [phase('Ship', task('t3', 'Tag the release', 'completed'))], { version: 4 });
    const first = window.receive(deltaOf(v2, v3)); // a gap: asked, answered v3
    const second = window.receive(deltaOf(v3, v4)); // while that answer is on its way
    server.set('default', v4);
    await Promise.all([first, second]);
    assert.deepEqual(window.asked, ['default', 'default']);
    assert.deepEqual(window.heldStates.get('default'), whole(v4));
  });
});

type Said = Pick<ApplyResult, 'summary' | 'errors' | 'isError' | 'completedTasks' | 'removedTasks' | 'changed'>;
const said: Said = { summary: 'Did it.', errors: [], isError: false, completedTasks: [], removedTasks: [], changed: true };

/** A changing request's answer from `before` to `after`, as a delta (no `origin`: the push's). */
function answerOf(before: TodoState, after: TodoState, members = said): ApplyResultDelta {
  const { session, title, version, baseVersion, updatedAt, progress, current, phases, tasks, removedIds } = deltaOf(before, after);
  return { session, title, version, baseVersion, updatedAt, progress, current, ...members, phases, tasks, removedIds };
}

/** The whole ApplyResult of `of` with the answer's members. */
function resultOf(of: TodoState, members = said): ApplyResult {
  return { ...of, ...members };
}

describe('reading answers that carry the change', () => {
  it('lays a delta answer on the version held and hands its caller the whole result', async () => {
    const window = windowOn(new Map());
    await window.receive(whole(v1));
    const result = await window.reader.answer(answerOf(v1, v2), 'user');
    assert.deepEqual(result, resultOf(v2));
    assert.deepEqual(window.heldStates.get('default'), { ...whole(v2), origin: 'user' });
    assert.deepEqual(window.asked, []);
    // The push of the same change comes next: a version held already, a no-op.
    await window.receive(deltaOf(v1, v2));
    assert.equal(window.accepted.length, 2);
  });

  it('asks plansight/get on a gap (an answer or push lost) and answers with its state', async () => {
    const window = windowOn(new Map([['default', v3]]));
    await window.receive(whole(v1));
    const result = await window.reader.answer(answerOf(v2, v3), 'agent'); // v2 never came
    assert.deepEqual(window.asked, ['default']);
    assert.deepEqual(result, resultOf(v3));
    assert.equal(window.heldStates.get('default')?.version, 3);
  });

  it('answers a change that changed nothing from the state held, asking nothing', async () => {
    const window = windowOn(new Map());
    await window.receive(whole(v2));
    const nothing: Said = { ...said, changed: false, isError: true, errors: ['no task zz'] };
    const result = await window.reader.answer(answerOf(v2, v2, nothing), 'agent');
    assert.deepEqual(result, resultOf(v2, nothing));
    assert.deepEqual(window.asked, []);
    assert.equal(window.accepted.length, 1); // nothing new told to listeners
  });

  it('hands a whole answer on as it is', async () => {
    const window = windowOn(new Map());
    const result = await window.reader.answer(resultOf(v1), 'agent');
    assert.deepEqual(result, resultOf(v1));
    assert.deepEqual(window.asked, []);
  });

  it('after a restart (nothing held), reads the state the answer names', async () => {
    const window = windowOn(new Map([['default', v2]]));
    const result = await window.reader.answer(answerOf(v1, v2), 'agent');
    assert.deepEqual(window.asked, ['default']);
    assert.deepEqual(result, resultOf(v2));
  });
});

describe('the pushes of a real server (test/fixtures/changeDeltas.json)', () => {
  // Recorded from `plansight serve` by scripts/recordChangeDeltas.py: adds, subtasks, a
  // status, a note, a new phase, a move between phases, a removal, an update, a new list.
  const recorded = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, 'test', 'fixtures', 'changeDeltas.json'), 'utf8')) as {
    pushes: ChangePush[];
    states: TodoState[];
  };

  it('laid one after another, each makes plansight/get’s state at its version, field by field', async () => {
    const window = windowOn(new Map());
    assert.ok(recorded.pushes.filter(isDelta).length >= recorded.pushes.length - 1, 'the server sent deltas');
    for (const [index, push] of recorded.pushes.entries()) {
      await window.receive(push);
      const held = window.heldStates.get(push.session);
      const { session, title, version, phases, progress, current, updatedAt } = held ?? assert.fail('no state held');
      assert.deepEqual({ session, title, version, phases, progress, current, updatedAt }, recorded.states[index], `version ${push.version}`);
    }
    assert.deepEqual(window.asked, []);
  });
});
