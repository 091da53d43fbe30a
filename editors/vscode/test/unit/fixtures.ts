/** Builders of wire-shaped states for the unit tests. */
import * as path from 'node:path';
import type { Phase, Task, TaskStatus, TodoState } from '../../src/protocol';

/** editors/vscode, from out/tsc/test/unit. */
export const EXTENSION_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

export function task(id: string, content: string, status: TaskStatus = 'pending', extra: Partial<Task> = {}): Task {
  const started = status === 'pending' ? null : '2026-01-01T10:00:00.000Z';
  const finished = status === 'completed' || status === 'abandoned' ? '2026-01-01T10:03:12.000Z' : null;
  return {
    id,
    content,
    activeForm: `Working on ${content}`,
    status,
    notes: [],
    description: '',
    priority: null,
    blockedBy: [],
    waiting: false,
    owner: null,
    files: [],
    externalId: null,
    createdAt: '2026-01-01T09:59:00.000Z',
    updatedAt: '2026-01-01T10:00:00.000Z',
    startedAt: started,
    completedAt: finished,
    createdBy: 'agent',
    parent: null,
    ...extra,
  };
}

export function phase(name: string, ...tasks: Task[]): Phase {
  return { name, tasks, progress: progressOf(tasks) };
}

function progressOf(tasks: Task[]): TodoState['progress'] {
  const completed = tasks.filter((t) => t.status === 'completed').length;
  const abandoned = tasks.filter((t) => t.status === 'abandoned').length;
  const blocked = tasks.filter((t) => t.status === 'blocked').length;
  const total = tasks.length;
  return { completed, abandoned, blocked, total, percent: total === 0 ? 0 : Math.floor((100 * completed) / total) };
}

export function state(session: string, phases: Phase[], options: { version?: number; updatedAt?: string | null; title?: string } = {}): TodoState {
  const tasks = phases.flatMap((p) => p.tasks);
  return {
    session,
    title: options.title ?? null,
    version: options.version ?? 1,
    phases,
    progress: progressOf(tasks),
    current: tasks.find((t) => t.status === 'in_progress') ?? null,
    updatedAt: options.updatedAt === undefined ? '2026-01-01T10:00:00.000Z' : options.updatedAt,
  };
}
