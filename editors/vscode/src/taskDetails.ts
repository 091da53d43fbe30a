/**
 * A task's details as plain text, for the dialog Enter opens on its row: what the tooltip
 * says, readable without hovering (a keyboard or screen reader user never sees a tooltip).
 * Pure: no `vscode` import.
 */
import { waitsForText, type TaskNode } from './planTree';
import { duration } from './planTree';

const STATUS_WORDS: Readonly<Record<string, string>> = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
  abandoned: 'Dropped',
  blocked: 'Blocked',
};

export interface TaskDetails {
  /** The dialog's message: the task's content. */
  readonly title: string;
  /** The rest, one fact a line. */
  readonly detail: string;
}

export function taskDetails(node: TaskNode, formatTime: (iso: string) => string = (iso) => iso): TaskDetails {
  const { task } = node;
  const lines: string[] = [];
  if (task.activeForm !== task.content) {
    lines.push(`While it runs: ${task.activeForm}`);
  }
  const place = node.position === undefined ? `${node.subtasks.completed} of ${node.subtasks.total} subtasks completed` : `Task ${node.position} of ${node.leaves}`;
  lines.push([STATUS_WORDS[task.status] ?? task.status, place, `phase ${node.phase}`].join(' · '));
  const who = [task.priority === null ? undefined : `${task.priority} priority`, task.owner === null ? undefined : `owner ${task.owner}`].filter((part) => part !== undefined);
  if (who.length > 0) {
    lines.push(who.join(' · '));
  }
  if (task.description !== '') {
    lines.push('', task.description);
  }
  if (node.waitsFor.length > 0) {
    lines.push('', waitsForText(node.waitsFor).replace(/^w/, 'W'));
  }
  if (task.notes.length > 0) {
    lines.push('', 'Notes:', ...task.notes.map((note) => `• ${note}`));
  }
  if (task.files.length > 0) {
    lines.push('', 'Files changed:', ...task.files.map((file) => `• ${file}`));
  }
  const times = [`${task.createdBy === 'user' ? 'Added by you' : 'Created'} ${formatTime(task.createdAt)}`];
  if (task.startedAt !== null) {
    times.push(`started ${formatTime(task.startedAt)}`);
  }
  if (task.completedAt !== null) {
    times.push(`${task.status === 'abandoned' ? 'dropped' : 'finished'} ${formatTime(task.completedAt)}`);
  }
  const took = duration(task);
  if (took !== undefined) {
    times.push(`took ${took}`);
  }
  lines.push('', times.join(' · '), `id ${task.id}`);
  return { title: task.content, detail: lines.join('\n') };
}
