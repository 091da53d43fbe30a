/**
 * The task pickers of the commands (Start, Complete, Drop, Edit Task, …) as plain data: which
 * tasks each offers, in which order, and the same label the Plan view's row shows, so what
 * a person reads in the panel is what they type. No `vscode` import: unit-tested as it is.
 */
import { TASK_ICONS, WAITING_ICON } from './planTree';
import type { Task, TaskStatus, TodoState } from './protocol';

/** What a picker is for: a status change offers only the tasks it can move, in a useful order. */
export type PickPurpose = 'start' | 'done' | 'drop' | 'block' | 'any';

export interface TaskPick {
  readonly label: string;
  readonly description: string | undefined;
  readonly task: Task;
}

/**
 * The statuses each purpose offers, first to last. Start never offers a finished task (it
 * would reopen it: the row's menu does that on purpose); Drop offers no completed one.
 */
const OFFERED: Readonly<Record<Exclude<PickPurpose, 'any'>, readonly TaskStatus[]>> = {
  start: ['pending', 'blocked', 'abandoned'],
  done: ['in_progress', 'pending', 'blocked', 'abandoned'],
  drop: ['in_progress', 'pending', 'blocked'],
  block: ['in_progress', 'pending', 'abandoned', 'completed'],
};

/** What the Plan view's row says: the activeForm while it runs, else the content. */
export function shownLabel(task: Task): string {
  return task.status === 'in_progress' ? task.activeForm : task.content;
}

/** The picker's items for a session's tasks, with the other form and the phase as description. */
export function taskPicks(state: TodoState | undefined, purpose: PickPurpose): TaskPick[] {
  const phases = state?.phases ?? [];
  const several = phases.length > 1;
  const all = phases.flatMap((phase) => phase.tasks.map((task) => ({ phase: phase.name, task })));
  const order = purpose === 'any' ? undefined : OFFERED[purpose];
  // A pending task that waits for others comes after the ones that can start now.
  const rank = (task: Task): number => (order === undefined ? 0 : order.indexOf(task.status) * 2 + (task.status === 'pending' && task.waiting ? 1 : 0));
  const offered = order === undefined ? all : all.filter(({ task }) => order.includes(task.status));
  // Array.prototype.sort is stable: the plan's order holds within a status.
  return [...offered]
    .sort((a, b) => rank(a.task) - rank(b.task))
    .map(({ phase, task }) => {
      const label = shownLabel(task);
      const other = [task.content, task.activeForm].find((form) => form !== label);
      const icon = task.status === 'pending' && task.waiting ? WAITING_ICON : TASK_ICONS[task.status];
      const parts = [other, several ? phase : undefined].filter((part) => part !== undefined);
      return { label: `$(${icon.id}) ${label}`, description: parts.length > 0 ? parts.join(' · ') : undefined, task };
    });
}
