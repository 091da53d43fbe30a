/**
 * What the Plan view shows of a plan: the Hide Finished toggle and the filter a person typed
 * (text, `owner:`, `priority:`, `status:`). Pure: no `vscode` import, unit-tested as it is.
 * A filter only hides rows; every command still acts on the plan the server holds.
 */
import { isFinished, type Priority, type Task, type TaskStatus } from './protocol';

export interface TaskFilter {
  /** Words each shown task holds (content, running form, description or a note), any case. */
  readonly words: readonly string[];
  readonly owner?: string;
  readonly priority?: Priority;
  readonly status?: TaskStatus;
}

export interface ViewFilter {
  readonly hideFinished: boolean;
  /** Undefined: no filter typed. */
  readonly filter?: TaskFilter;
}

/** The words a person may type for a status, the wire's own names first. */
const STATUS_NAMES: Readonly<Record<string, TaskStatus>> = {
  pending: 'pending',
  in_progress: 'in_progress',
  'in-progress': 'in_progress',
  running: 'in_progress',
  started: 'in_progress',
  completed: 'completed',
  done: 'completed',
  abandoned: 'abandoned',
  dropped: 'abandoned',
  blocked: 'blocked',
};

const PRIORITIES: readonly Priority[] = ['high', 'medium', 'low'];

export type ParsedFilter = { readonly filter: TaskFilter | undefined } | { readonly error: string };

/**
 * Reads what the person typed: `owner:NAME`, `priority:high|medium|low`, `status:WORD`, and
 * any other words as text that a task must hold. Empty text: no filter.
 */
export function parseFilter(text: string): ParsedFilter {
  const words: string[] = [];
  let owner: string | undefined;
  let priority: Priority | undefined;
  let status: TaskStatus | undefined;
  for (const token of text.trim().split(/\s+/).filter((part) => part !== '')) {
    const match = /^(owner|priority|status):(.*)$/i.exec(token);
    if (match === null) {
      words.push(token.toLowerCase());
      continue;
    }
    const key = (match[1] ?? '').toLowerCase();
    const value = (match[2] ?? '').trim();
    if (value === '') {
      return { error: `Say which ${key}: ${key}:…` };
    }
    if (key === 'owner') {
      owner = value.replace(/^@/, '');
    } else if (key === 'priority') {
      const found = PRIORITIES.find((level) => level === value.toLowerCase());
      if (found === undefined) {
        return { error: `A priority is high, medium or low, not "${value}"` };
      }
      priority = found;
    } else {
      const found = STATUS_NAMES[value.toLowerCase()];
      if (found === undefined) {
        return { error: `A status is pending, in_progress, completed, abandoned or blocked, not "${value}"` };
      }
      status = found;
    }
  }
  if (words.length === 0 && owner === undefined && priority === undefined && status === undefined) {
    return { filter: undefined };
  }
  return { filter: { words, ...(owner === undefined ? {} : { owner }), ...(priority === undefined ? {} : { priority }), ...(status === undefined ? {} : { status }) } };
}

/** The filter as the person would type it again (the input box's value, the view's message). */
export function filterText(filter: TaskFilter): string {
  const parts = [...filter.words];
  if (filter.owner !== undefined) {
    parts.push(`owner:${filter.owner}`);
  }
  if (filter.priority !== undefined) {
    parts.push(`priority:${filter.priority}`);
  }
  if (filter.status !== undefined) {
    parts.push(`status:${filter.status}`);
  }
  return parts.join(' ');
}

/** Whether a task shows on its own (a parent also shows for a subtask that does). */
export function taskShown(task: Task, view: ViewFilter): boolean {
  if (view.hideFinished && isFinished(task.status)) {
    return false;
  }
  const filter = view.filter;
  if (filter === undefined) {
    return true;
  }
  if (filter.owner !== undefined && (task.owner ?? '').toLowerCase() !== filter.owner.toLowerCase()) {
    return false;
  }
  if (filter.priority !== undefined && task.priority !== filter.priority) {
    return false;
  }
  if (filter.status !== undefined && task.status !== filter.status) {
    return false;
  }
  const haystack = [task.content, task.activeForm, task.description, ...task.notes].join('\n').toLowerCase();
  return filter.words.every((word) => haystack.includes(word));
}

/** Whether the view hides anything at all. */
export function filtering(view: ViewFilter): boolean {
  return view.hideFinished || view.filter !== undefined;
}

/**
 * The view's message while it hides rows: what hides them and how many tasks show, so a
 * person never takes a filtered plan for the whole one. Undefined when nothing is hidden.
 */
export function filterMessage(view: ViewFilter, shown: number, total: number): string | undefined {
  // No task at all (the server still starting, every plan cleared): nothing is hidden.
  if (!filtering(view) || total === 0) {
    return undefined;
  }
  const what = [view.filter === undefined ? undefined : `Filter: ${filterText(view.filter)}`, view.hideFinished ? 'finished tasks hidden' : undefined]
    .filter((part) => part !== undefined)
    .join(' · ');
  return `${what} — ${shown} of ${total} ${total === 1 ? 'task' : 'tasks'} shown`;
}
