/**
 * Change deltas (docs/protocol.md, "Change deltas"; issue 34): a `didChange` that carries
 * what changed since `baseVersion` instead of the whole state. Applying one is mechanical:
 * the server decided every field; here only the listed tasks are put in place of the held
 * ones, the removed ones dropped, and each phase ordered by the ids it lists. A delta is
 * applied only on exactly the version it was made from; on any other (a push lost or
 * late, a restart, a session never held) the session's whole state is asked for.
 */
import type { ApplyResult, ApplyResultDelta, DidChangeDelta, DidChangeParams, Origin, Phase, Task, TodoState } from './protocol';

/** A `didChange` that carries the change since `baseVersion` (generated from `plansight schema`). */
export type ChangeDelta = DidChangeDelta;

/** A push: a whole state, or (to a client that asked for them) a delta. */
export type ChangePush = DidChangeParams | ChangeDelta;

export function isDelta(push: ChangePush): push is ChangeDelta {
  return typeof (push as Partial<ChangeDelta>).baseVersion === 'number';
}

/** A changing request's answer: whole, or (to a client that asked for delta answers) a delta. */
export type ChangeAnswer = ApplyResult | ApplyResultDelta;

export function isDeltaAnswer(answer: ChangeAnswer): answer is ApplyResultDelta {
  return typeof (answer as Partial<ApplyResultDelta>).baseVersion === 'number';
}

/** The ApplyResult of a state (the answer's version or newer) and an answer's members. */
export function resultOf(of: TodoState, answer: ApplyResultDelta): ApplyResult {
  const { session, title, version, phases, progress, current, updatedAt } = of;
  const { summary, errors, isError, completedTasks, removedTasks, changed } = answer;
  return { session, title, version, phases, progress, current, updatedAt, summary, errors, isError, completedTasks, removedTasks, changed };
}

/** A delta answer as the push of the same change would carry it (`origin`: the request's). */
function asPush(answer: ApplyResultDelta, origin: Origin): ChangeDelta {
  const { session, title, version, baseVersion, updatedAt, progress, current, completedTasks, removedTasks, phases, tasks, removedIds } = answer;
  return { session, title, version, baseVersion, updatedAt, progress, current, origin, completedTasks, removedTasks, phases, tasks, removedIds };
}

/**
 * The state a delta makes of the one held; undefined when it cannot be made from it (not
 * the base version, or a phase or task id it names that the held state lacks).
 */
export function applyDelta(held: TodoState, delta: ChangeDelta): DidChangeParams | undefined {
  if (held.version !== delta.baseVersion) {
    return undefined;
  }
  const byId = new Map<string, Task>();
  const heldPhases = new Map<string, Phase[]>();
  for (const phase of held.phases) {
    heldPhases.set(phase.name, [...(heldPhases.get(phase.name) ?? []), phase]);
    phase.tasks.forEach((task) => byId.set(task.id, task));
  }
  delta.removedIds.forEach((id) => byId.delete(id));
  delta.tasks.forEach((task) => byId.set(task.id, task));
  const phases: Phase[] = [];
  for (const phase of delta.phases) {
    // A name held twice keeps its place: the first listed takes the first held.
    const same = heldPhases.get(phase.name);
    const was = same?.shift();
    const ids = phase.taskIds ?? was?.tasks.map((task) => task.id);
    const tasks = ids?.map((id) => byId.get(id));
    if (tasks === undefined || tasks.some((task) => task === undefined)) {
      return undefined;
    }
    phases.push({ name: phase.name, progress: phase.progress, tasks: tasks as Task[] });
  }
  const { session, title, version, progress, current, updatedAt, origin, completedTasks, removedTasks } = delta;
  return { session, title, version, phases, progress, current, updatedAt, origin, completedTasks, removedTasks };
}

/** What the reader needs of the window: the state held, where a state goes, and `plansight/get`. */
export interface DeltaHost {
  held(session: string): TodoState | undefined;
  /** A change as a whole state: every push comes out so, whatever the server sent. */
  accept(change: DidChangeParams): void;
  get(session: string): Promise<TodoState>;
  logError(message: string, error: unknown): void;
}

/** Makes a changing request's answer whole (`ChangeReader.answer`). */
export interface AnswerReader {
  answer(answer: ChangeAnswer, origin: Origin): Promise<ApplyResult>;
}

/** Turns the pushes of `didChange`, deltas or whole, into whole states for the window. */
export class ChangeReader implements AnswerReader {
  /** Each session's `plansight/get` in flight, and the newest delta pushed meanwhile. */
  private readonly asking = new Map<string, { wanted: ChangeDelta }>();

  constructor(private readonly host: DeltaHost) {}

  /** Takes one push; resolves once its state (or the one asked for) was handed on. */
  async receive(push: ChangePush): Promise<void> {
    if (!isDelta(push)) {
      this.host.accept(push);
      return;
    }
    const held = this.host.held(push.session);
    if (held !== undefined && held.version >= push.version) {
      return; // late: the state held is already as new
    }
    const applied = held === undefined || this.asking.has(push.session) ? undefined : applyDelta(held, push);
    if (applied !== undefined) {
      this.host.accept(applied);
      return;
    }
    await this.fetch(push);
  }

  /**
   * Takes a changing request's answer (docs/protocol.md, "Answers that carry the change"):
   * a delta is laid on the state held as its push would be (which then comes as a no-op),
   * and on a gap the whole state is asked for. The caller gets a whole ApplyResult either
   * way: the state of the answer's version (or newer, when one was held already) with its
   * summary, errors and the tasks it completed or removed.
   */
  async answer(answer: ChangeAnswer, origin: Origin): Promise<ApplyResult> {
    if (!isDeltaAnswer(answer)) {
      return answer;
    }
    const push = asPush(answer, origin);
    await this.receive(push);
    const held = this.host.held(answer.session);
    if (held !== undefined && held.version >= answer.version) {
      return resultOf(held, answer);
    }
    // Not held even after asking (pruned meanwhile, or the read failed): the server's word.
    return resultOf(await this.host.get(answer.session), answer);
  }

  /** Asks for a session's whole state (once at a time), again if a newer push came meanwhile. */
  private async fetch(push: ChangeDelta): Promise<void> {
    const { session } = push;
    const asking = this.asking.get(session);
    if (asking !== undefined) {
      asking.wanted = asking.wanted.version >= push.version ? asking.wanted : push;
      return;
    }
    const ask = { wanted: push };
    this.asking.set(session, ask);
    try {
      for (let tries = 0; tries < 3; tries += 1) {
        const state = await this.host.get(session);
        if (state.version === 0) {
          break; // the store no longer holds it: pruned meanwhile (its didPrune says so)
        }
        // The tasks completed and removed are the pushed version's: only that version's
        // answer can say them; an answer past it spans changes never seen one by one.
        const { wanted } = ask;
        const own = state.version === wanted.version;
        this.host.accept({
          ...state,
          origin: wanted.origin,
          completedTasks: own ? wanted.completedTasks : [],
          removedTasks: own ? wanted.removedTasks : [],
        });
        if ((this.host.held(session)?.version ?? 0) >= ask.wanted.version) {
          break;
        }
      }
    } catch (error) {
      this.host.logError(`Reading session ${session} after a missed change failed`, error);
    } finally {
      this.asking.delete(session);
    }
  }
}
