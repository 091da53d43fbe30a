import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlanTree, phaseNodeId, sessionNodeId, taskNodeId } from '../../src/planTree';
import type { Task, TodoState } from '../../src/protocol';
import { treeRefresh } from '../../src/treeRefresh';
import { phase, state, task } from './fixtures';

/** A lone session of `count` tasks in one phase, t1 in progress. */
function flat(count: number, change: (tasks: Task[]) => Task[] = (tasks) => tasks): TodoState {
  const tasks = Array.from({ length: count }, (_, index) => task(`t${index + 1}`, `Task number ${index + 1}`, index === 0 ? 'in_progress' : 'pending'));
  return state('default', [phase('Todos', ...change(tasks))]);
}

function refreshed(before: readonly TodoState[], after: readonly TodoState[]): true | readonly string[] {
  const change = treeRefresh(PlanTree.build(before), PlanTree.build(after));
  return change.whole ? true : change.ids;
}

const id = (taskId: string, session = 'default'): string => taskNodeId(session, taskId);

describe('which rows a change redraws', () => {
  it('redraws nothing when nothing a row shows changed', () => {
    assert.deepEqual(refreshed([flat(20)], [{ ...flat(20), version: 2 }]), []);
  });

  it('redraws only the task whose status changed, in a lone session of many tasks', () => {
    const after = flat(1000, (tasks) => tasks.map((t) => (t.id === 't500' ? { ...t, status: 'completed', completedAt: '2026-01-01T10:05:00.000Z' } : t)));
    assert.deepEqual(refreshed([flat(1000)], [after]), [id('t500')]);
  });

  it('redraws the task that got a note, with its rows under it', () => {
    const after = flat(10, (tasks) => tasks.map((t) => (t.id === 't3' ? { ...t, notes: ['Found the cause'] } : t)));
    assert.deepEqual(refreshed([flat(10)], [after]), [id('t3')]);
  });

  it('redraws the task whose content changed and the one that waits for it', () => {
    const before = flat(10, (tasks) => tasks.map((t) => (t.id === 't7' ? { ...t, blockedBy: ['t4'], waiting: true } : t)));
    const after = flat(10, (tasks) =>
      tasks.map((t) => (t.id === 't7' ? { ...t, blockedBy: ['t4'], waiting: true } : t.id === 't4' ? { ...t, content: 'Run the whole build' } : t)),
    );
    assert.deepEqual(refreshed([before], [after]), [id('t4'), id('t7')]);
  });

  it('redraws the parent of a subtask that changed (its count of subtasks), with the subtask under it', () => {
    const nest = (done: boolean) => (tasks: Task[]) =>
      tasks.map((t) => (t.id === 't3' ? { ...t, parent: 't2', status: done ? ('completed' as const) : t.status } : t));
    assert.deepEqual(refreshed([flat(10, nest(false))], [flat(10, nest(true))]), [id('t2')]);
  });

  it('redraws the whole tree when a task is added at the top of a lone session (no row above it)', () => {
    const after = flat(10, (tasks) => [...tasks, task('t11', 'One more')]);
    assert.equal(refreshed([flat(10)], [after]), true);
  });

  it('redraws only the phase whose count changed, with its tasks, when a plan has phases', () => {
    const plan = (status: Task['status']) =>
      state('default', [phase('Build', task('a1', 'Write the parser', status), task('a2', 'Run the build')), phase('Ship', task('b1', 'Tag the release'), task('b2', 'Publish'))]);
    assert.deepEqual(refreshed([plan('pending')], [plan('completed')]), [phaseNodeId('default', 'Build')]);
  });

  it('redraws only the session row that changed when several sessions are shown', () => {
    const other = state('reviewer', [phase('Todos', task('r1', 'Review the diff'))]);
    const after = flat(5, (tasks) => tasks.map((t) => (t.id === 't2' ? { ...t, status: 'completed' } : t)));
    assert.deepEqual(refreshed([flat(5), other], [after, other]), [sessionNodeId('default')]);
  });

  it('redraws the whole tree when a second session appears (the top rows change)', () => {
    const other = state('reviewer', [phase('Todos', task('r1', 'Review the diff'))]);
    assert.equal(refreshed([flat(5)], [flat(5), other]), true);
  });

  it('redraws the whole tree when most rows change (one redraw costs less than each)', () => {
    const after = flat(10, (tasks) => tasks.map((t) => ({ ...t, owner: 'alice' })).map((t, i) => (i === 0 ? { ...t, owner: 'bob' } : t)));
    assert.equal(refreshed([flat(10)], [after]), true);
  });

  // VS Code refreshes each fired row on its own, at once (its treeView.ts doRefresh:
  // Promise.all of updateChildren): a row moved from under one fired row to under another
  // is drawn under the new one as soon as that one's children come, while the old one's
  // have not, so the person sees it twice for a moment. The row above both goes instead.
  const many = (name: string, count: number) => Array.from({ length: count }, (_, i) => task(`${name}${i + 1}`, `${name} task ${i + 1}`));

  it('redraws the row above both when a subtask moves from one task to another, never the two apart', () => {
    const plan = (under: string) =>
      state('default', [
        phase('Build', task('a1', 'Write the parser'), task('a2', 'Run the build'), task('s1', 'Handle the edge cases', 'pending', { parent: under }), ...many('c', 10)),
        phase('Ship', ...many('b', 10)),
      ]);
    assert.deepEqual(refreshed([plan('a1')], [plan('a2')]), [phaseNodeId('default', 'Build')]);
  });

  it('redraws the whole tree when a task moves from one phase to another at the top (no row above both)', () => {
    const plan = (moved: boolean) =>
      state('default', [
        phase('Build', ...many('a', 10), ...(moved ? [] : [task('m1', 'Tag the release')])),
        phase('Ship', ...many('b', 10), ...(moved ? [task('m1', 'Tag the release')] : [])),
        phase('Later', ...many('c', 30)),
      ]);
    assert.equal(refreshed([plan(false)], [plan(true)]), true);
  });
});
