import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlanState } from '../../src/planState';
import { phase, state, task } from './fixtures';

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
    assert.deepEqual(
      plans.sessions().map((s) => [s.session, s.version]),
      [
        ['a', 5],
        ['b', 1],
      ],
    );
  });

  it('follows the chosen session, else the newest one with tasks, else "default"', () => {
    const plans = new PlanState();
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
    assert.deepEqual(
      plans.sessions().map((s) => s.session),
      ['empty', 'new', 'old'],
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
