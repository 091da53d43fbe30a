import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlanTree, type PlanNode, type TaskNode } from '../../src/planTree';
import type { Task } from '../../src/protocol';
import { dropOps, keyMove, likelyPlace, movable } from '../../src/treeMoves';
import { phase, state, task } from './fixtures';

/** (v4) A task with a parent, as a protocol 4 server sends it. */
function sub(id: string, content: string, parent: string): Task {
  return task(id, content, 'pending', { parent });
}

describe('moves (issue 32, VS Code; issue 33, item 7)', () => {
  const tree = PlanTree.build([
    state('default', [
      phase('Build', task('t1', 'Ship it'), sub('t2', 'Write', 't1'), sub('t3', 'Test', 't1'), task('t4', 'Tag')),
      phase('Ship', task('t5', 'Announce')),
    ]),
  ]);
  const node = (id: string): TaskNode => tree.taskNode('default', id) as TaskNode;

  it('Move Up / Move Down / Indent / Outdent: a move beside, under or out of the neighbour drawn', () => {
    assert.deepEqual(keyMove(tree, node('t4'), 'up'), { op: 'move', id: 't4', before: 't1' });
    assert.deepEqual(keyMove(tree, node('t2'), 'down'), { op: 'move', id: 't2', after: 't3' });
    assert.deepEqual(keyMove(tree, node('t3'), 'indent'), { op: 'move', id: 't3', parent: 't2' });
    assert.deepEqual(keyMove(tree, node('t3'), 'outdent'), { op: 'move', id: 't3', after: 't1' });
    assert.equal(keyMove(tree, node('t1'), 'up'), '"Ship it" is already first');
    assert.equal(keyMove(tree, node('t3'), 'down'), '"Test" is already last');
    assert.equal(keyMove(tree, node('t2'), 'indent'), '"Write" has no task above it to go under');
    assert.equal(keyMove(tree, node('t4'), 'outdent'), '"Tag" is already at the top level');
  });

  it('a drop: before, after or under a task, in the order drawn; on a phase, to its end', () => {
    const ship = tree.roots[1] as PlanNode;
    assert.deepEqual(dropOps(tree, [node('t4'), node('t2')], node('t5'), 'before'), [
      { op: 'move', id: 't2', before: 't5' },
      { op: 'move', id: 't4', before: 't5' },
    ]);
    // After: the last first, so they end in their order.
    assert.deepEqual(dropOps(tree, [node('t2'), node('t3')], node('t4'), 'after'), [
      { op: 'move', id: 't3', after: 't4' },
      { op: 'move', id: 't2', after: 't4' },
    ]);
    assert.deepEqual(dropOps(tree, [node('t5')], node('t4'), 'under'), [{ op: 'move', id: 't5', parent: 't4' }]);
    assert.deepEqual(dropOps(tree, [node('t4')], ship, 'after'), [{ op: 'move', id: 't4', phase: 'Ship' }]);
    assert.equal(likelyPlace(tree, [node('t2')], node('t4')), 'after', 'dragged down');
    assert.equal(likelyPlace(tree, [node('t4')], node('t2')), 'before', 'dragged up');
    // A task never goes under itself; a subtask dragged with its parent moves with it.
    assert.deepEqual(movable(tree, [node('t1')], node('t3')).map((n) => n.task.id), []);
    assert.deepEqual(movable(tree, [node('t1'), node('t2'), node('t4')], node('t5')).map((n) => n.task.id), ['t1', 't4']);
  });
});
