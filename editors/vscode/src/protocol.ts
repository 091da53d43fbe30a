/**
 * Domain names for the wire types. The shapes and method names themselves are generated
 * from `plansight schema` into `protocol.generated.ts`; nothing here restates them.
 */
import { FINISHED_STATUSES } from './protocol.generated';
import type {
  ApplyParams,
  CheckoutModel,
  Notifications,
  PhaseModel,
  ProgressModel,
  Requests,
  TaskModel,
} from './protocol.generated';

export * from './protocol.generated';

export type Task = TaskModel;
/** (v4) Where a session's agent works: its worktree and branch (`plansight/sessions`). */
export type Checkout = CheckoutModel;
export type Phase = PhaseModel;
export type Progress = ProgressModel;
export type TaskStatus = Task['status'];
export type Priority = NonNullable<Task['priority']>;
export type HistoryEvent = ResultOf<'plansight/history'>['events'][number];
export type Origin = NonNullable<ApplyParams['origin']>;
export type Op = ApplyParams['ops'][number];

export type RequestMethod = keyof Requests;
export type ParamsOf<M extends RequestMethod> = Requests[M]['params'];
export type ResultOf<M extends RequestMethod> = Requests[M]['result'];

export const DID_CHANGE: keyof Notifications = 'plansight/didChange';

export const DID_PRUNE: keyof Notifications = 'plansight/didPrune';

/** The JSON-RPC error codes of the contract that a client reacts to. */
export const ErrorCodes = {
  invalidParams: -32602,
  contentModified: -32801,
} as const;

/** Whether a task's status is one it ends in (the server's `finishedStatuses`). */
export function isFinished(status: string | null): boolean {
  return (FINISHED_STATUSES as readonly string[]).includes(status ?? '');
}

/** Tasks not finished: the total less the server's count of each finished status. */
export function remainingOf(progress: Progress): number {
  return Math.max(0, FINISHED_STATUSES.reduce((left, status) => left - progress[status], progress.total));
}
