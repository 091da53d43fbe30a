/**
 * (v4) The `move` ops of the Plan view's Move Up / Move Down / Indent / Outdent keys and of
 * a drag and drop, worked out from the rows a person sees. Pure: no `vscode` import. The
 * server does the moving (and skips a move under itself or past `maxDepth`); this only
 * says where to.
 */
import type { PlanNode, PlanTree, TaskNode } from './planTree';

import type { MoveOp } from './protocol.generated';

/** (v4) The `move` op of PROTOCOL.md, as this view sends it: by id, one place named. */
export type { MoveOp };

export type MoveKey = 'up' | 'down' | 'indent' | 'outdent';

/** The task rows beside a task: its parent's task children, as drawn. */
function siblings(tree: PlanTree, node: TaskNode): TaskNode[] {
  return tree.childrenOf(tree.parentOf(node)).filter((child): child is TaskNode => child.kind === 'task');
}

/**
 * The op of a move key on a task, or a sentence saying why there is none (the first task
 * cannot go up, a top-level task cannot go out).
 */
export function keyMove(tree: PlanTree, node: TaskNode, key: MoveKey): MoveOp | string {
  const around = siblings(tree, node);
  const index = around.findIndex((sibling) => sibling.id === node.id);
  const id = node.task.id;
  const name = `"${node.task.content}"`;
  switch (key) {
    case 'up': {
      const above = around[index - 1];
      return above === undefined ? `${name} is already first` : { op: 'move', id, before: above.task.id };
    }
    case 'down': {
      const below = around[index + 1];
      return below === undefined ? `${name} is already last` : { op: 'move', id, after: below.task.id };
    }
    case 'indent': {
      const above = around[index - 1];
      return above === undefined ? `${name} has no task above it to go under` : { op: 'move', id, parent: above.task.id };
    }
    case 'outdent': {
      const parent = tree.parentOf(node);
      return parent?.kind === 'task' ? { op: 'move', id, after: parent.task.id } : `${name} is already at the top level`;
    }
  }
}

/** Where a drop on a task puts the dragged tasks. */
export type DropPlace = 'before' | 'after' | 'under';

/** Every row of the tree in the order drawn, depth first. */
function drawnOrder(tree: PlanTree): Map<string, number> {
  const order = new Map<string, number>();
  const walk = (nodes: readonly PlanNode[]): void => {
    for (const node of nodes) {
      order.set(node.id, order.size);
      walk(tree.childrenOf(node));
    }
  };
  walk(tree.roots);
  return order;
}

/** Whether `node` is `ancestor` or under it. */
function within(tree: PlanTree, node: PlanNode, ancestor: PlanNode): boolean {
  for (let at: PlanNode | undefined = node; at !== undefined; at = tree.parentOf(at)) {
    if (at.id === ancestor.id) {
      return true;
    }
  }
  return false;
}

/**
 * The dragged tasks that can move to the target: tasks of the target's session, neither the
 * target nor above it, and not under another dragged task (it moves with that one).
 */
export function movable(tree: PlanTree, dragged: readonly PlanNode[], target: PlanNode): TaskNode[] {
  const tasks = dragged.filter((node): node is TaskNode => node.kind === 'task' && node.session === target.session && !within(tree, target, node));
  return tasks.filter((node) => !tasks.some((other) => other.id !== node.id && within(tree, node, other)));
}

/** The place a drop on a task offers first: after it when the tasks were dragged down. */
export function likelyPlace(tree: PlanTree, dragged: readonly TaskNode[], target: TaskNode): DropPlace {
  const order = drawnOrder(tree);
  const at = order.get(target.id) ?? 0;
  return dragged.every((node) => (order.get(node.id) ?? 0) < at) ? 'after' : 'before';
}

/**
 * The ops that put the dragged tasks, in the order drawn, at the place: before or after
 * the target task or under it (its last subtasks), or at the end of a phase dropped on.
 */
export function dropOps(tree: PlanTree, dragged: readonly TaskNode[], target: PlanNode, place: DropPlace): MoveOp[] {
  const order = drawnOrder(tree);
  const tasks = [...dragged].sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  if (target.kind === 'phase') {
    return tasks.map((node) => ({ op: 'move', id: node.task.id, phase: target.name }));
  }
  if (target.kind !== 'task') {
    return [];
  }
  const to = target.task.id;
  switch (place) {
    case 'before':
      // Each right before the target: they keep their order, ahead of it.
      return tasks.map((node) => ({ op: 'move', id: node.task.id, before: to }));
    case 'after':
      // Each right after the target, the last first: they end in their order after it.
      return [...tasks].reverse().map((node) => ({ op: 'move', id: node.task.id, after: to }));
    case 'under':
      return tasks.map((node) => ({ op: 'move', id: node.task.id, parent: to }));
  }
}
