/**
 * The "Plansight" commands of the palette, the view title and the item menus. Each one asks
 * the person what is needed and sends one request of the contract with origin "user", so
 * the agent hears about it through `plansight/context`; the server decides the rest.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import { changesText, historyEntry, undoMessage } from './historyWords';
import type { PlanDocuments } from './planDocument';
import type { PlanSync } from './planSync';
import { PRIORITY_ICONS, TASK_ICONS, progressText, type NoteNode, type PlanNode } from './planTree';
import type { PlanView } from './planView';
import type { ApplyResult, Op, Priority, Task, TodoState } from './protocol';
import { sessionTitle } from './sessionTitles';
import { openTaskFile, openTaskFileDiff } from './taskFiles';
import { shownLabel, taskPicks, type PickPurpose } from './taskPicks';

interface TaskTarget {
  readonly session: string;
  readonly task: Task;
}

interface SessionItem extends vscode.QuickPickItem {
  readonly session: string | undefined;
}

interface TaskAction {
  readonly command: string;
  readonly verb: string;
  readonly op: 'start' | 'done' | 'drop';
  /** Which tasks the picker offers, and in which order (taskPicks.ts). */
  readonly purpose: PickPurpose;
}

export const TASK_ACTIONS: readonly TaskAction[] = [
  { command: 'plansight.startTask', verb: 'start', op: 'start', purpose: 'start' },
  { command: 'plansight.completeTask', verb: 'complete', op: 'done', purpose: 'done' },
  { command: 'plansight.dropTask', verb: 'drop', op: 'drop', purpose: 'drop' },
];

type Handler = (node?: PlanNode) => Promise<unknown>;

const PRIORITIES: readonly Priority[] = ['high', 'medium', 'low'];

export class PlanCommands {
  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
    private readonly view: PlanView,
    private readonly documents: PlanDocuments,
  ) {}

  register(): vscode.Disposable[] {
    const commands: [string, Handler][] = [
      ['plansight.addTodo', (node) => this.addTodo(node)],
      ['plansight.clearTodos', (node) => this.clearTodos(node)],
      ['plansight.closeSession', (node) => this.closeSession(node)],
      ['plansight.addNote', (node) => this.addNote(node)],
      ['plansight.editNote', (node) => this.editNote(node)],
      ['plansight.deleteNote', (node) => this.deleteNote(node)],
      ['plansight.removeTask', (node) => this.removeTask(node)],
      ['plansight.blockTask', (node) => this.blockTask(node)],
      ['plansight.setPriority', (node) => this.setPriority(node)],
      ['plansight.editTask', (node) => this.editTask(node)],
      ['plansight.dependsOn', (node) => this.dependsOn(node)],
      ['plansight.showHistory', (node) => this.showHistory(node)],
      ['plansight.undo', (node) => this.undo(node)],
      ['plansight.openFile', (node) => (node?.kind === 'file' ? openTaskFile(node.path, node.worktree) : Promise.resolve())],
      ['plansight.openFileDiff', (node) => (node?.kind === 'file' ? openTaskFileDiff(node.path, node.worktree) : Promise.resolve())],
      ['plansight.editPlan', (node) => this.editPlan(node)],
      ['plansight.exportPlan', (node) => this.exportPlan(node)],
      ['plansight.switchSession', (node) => this.switchSession(node)],
      ['plansight.refresh', () => this.sync.refresh()],
      ['plansight.restartServer', () => this.client.restart()],
      ['plansight.showServerLog', () => {
        this.client.showLog();
        return Promise.resolve();
      }],
      ['plansight.openSettings', async () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:plansight.plansight')],
      ...TASK_ACTIONS.map((action): [string, Handler] => [
        action.command,
        (node) => this.taskAction(action, node),
      ]),
    ];
    return commands.map(([id, handler]) =>
      vscode.commands.registerCommand(id, async (node?: unknown) => {
        try {
          await handler(isPlanNode(node) ? node : undefined);
        } catch (error) {
          void vscode.window.showErrorMessage(`Plansight: ${describeError(error)}`);
        }
      }),
    );
  }

  private sessionOf(node: PlanNode | undefined): string {
    return node?.session ?? this.sync.plans.activeSession();
  }

  private async apply(session: string, ops: Op[]): Promise<ApplyResult> {
    return this.report(await this.client.request('plansight/apply', { session, ops, origin: 'user' }));
  }

  private report(result: ApplyResult): ApplyResult {
    this.sync.accept(result);
    if (result.isError) {
      void vscode.window.showWarningMessage(`Plansight: ${result.errors.join('; ')}`);
    }
    return result;
  }

  private async addTodo(node: PlanNode | undefined): Promise<void> {
    // Asked while disconnected, the text would be typed for nothing (issue 33, item 5).
    if (!this.connected('add a todo')) {
      return;
    }
    const session = this.sessionOf(node);
    const content = await vscode.window.showInputBox({
      title: 'Plansight: Add Todo',
      prompt: `A new task for ${this.displayName(session)}, in the imperative: "Run the build"`,
      validateInput: (value) => (value.trim() === '' ? 'Say what is to be done' : undefined),
    });
    if (content === undefined) {
      return;
    }
    const phase = node?.kind === 'phase' ? node.name : node?.kind === 'task' ? node.phase : await this.pickPhase(session);
    if (phase === null) {
      return;
    }
    // Without a phase the server puts it where the work is (its one answer for every face).
    const op: Op = phase === undefined ? { op: 'append', items: [content.trim()] } : { op: 'append', phase, items: [content.trim()] };
    await this.apply(session, [op]);
  }

  /**
   * With several phases, the person picks one (or a new one); with fewer there is nothing
   * to ask and undefined lets the server place the task. Null: the person cancelled.
   */
  private async pickPhase(session: string): Promise<string | undefined | null> {
    const phases = (this.sync.plans.get(session)?.phases ?? []).map((phase) => phase.name);
    if (phases.length < 2) {
      return undefined;
    }
    const newPhase = '$(add) New phase…';
    const choice = await vscode.window.showQuickPick([...phases, newPhase], {
      title: 'Plansight: Add Todo',
      placeHolder: 'The phase to add the task to',
    });
    if (choice === undefined) {
      return null;
    }
    if (choice !== newPhase) {
      return choice;
    }
    const name = await vscode.window.showInputBox({
      title: 'Plansight: New Phase',
      prompt: 'The name of the new phase',
      validateInput: (value) => (value.trim() === '' ? 'Name the phase' : undefined),
    });
    return name === undefined ? null : name.trim();
  }

  private async clearTodos(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const total = this.sync.plans.get(session)?.progress.total ?? 0;
    const clear = 'Clear';
    const answer = await vscode.window.showWarningMessage(
      total === 1 ? `Clear the todo of ${this.displayName(session)}?` : `Clear all ${total} todos of ${this.displayName(session)}?`,
      { modal: true, detail: 'The agent is told that you cleared its list.' },
      clear,
    );
    if (answer === clear) {
      // Kept in sight, emptied, so Undo Last Change is at hand until the person leaves it.
      this.sync.plans.keep(session);
      try {
        this.report(await this.client.request('plansight/clear', { session, origin: 'user' }));
      } finally {
        this.sync.keep(session);
      }
    }
  }

  /** A cleared session's Close: it leaves the panel (the store keeps it, Switch Session finds it). */
  private async closeSession(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    if (this.sync.plans.chosenSession === session) {
      await this.sync.choose(undefined);
    }
    this.sync.release(session);
  }

  private async taskAction(action: TaskAction, node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, action.purpose, `The task to ${action.verb}`);
    if (target !== undefined) {
      await this.apply(target.session, [{ op: action.op, id: target.task.id }]);
    }
  }

  /** Asks first when work would be lost from sight: a task in progress or with notes. */
  private async removeTask(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, 'any', 'The task to remove');
    if (target === undefined) {
      return;
    }
    const { task } = target;
    if (task.status === 'in_progress' || task.notes.length > 0) {
      const why = [task.status === 'in_progress' ? 'it is in progress' : undefined, notesCount(task)].filter((part) => part !== undefined).join(' and ');
      const remove = 'Remove';
      const answer = await vscode.window.showWarningMessage(
        `Remove "${task.content}"? ${capitalizeFirst(why)}.`,
        { modal: true, detail: 'Plansight: Undo Last Change or Show History brings it back.' },
        remove,
      );
      if (answer !== remove) {
        return;
      }
    }
    await this.apply(target.session, [{ op: 'rm', id: task.id }]);
  }

  private async blockTask(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, 'block', 'The task to block');
    if (target === undefined) {
      return;
    }
    const reason = await vscode.window.showInputBox({
      title: 'Plansight: Block',
      prompt: `Why "${target.task.content}" cannot go on (optional, kept as a note)`,
    });
    if (reason === undefined) {
      return;
    }
    const op: Op = reason.trim() === '' ? { op: 'block', id: target.task.id } : { op: 'block', id: target.task.id, reason: reason.trim() };
    await this.apply(target.session, [op]);
  }

  private async setPriority(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, 'any', 'The task to set the priority of');
    if (target === undefined) {
      return;
    }
    const current = target.task.priority;
    // Each level once, with the icon; the current one says so.
    const items = [
      ...PRIORITIES.map((priority) => ({ label: `$(${PRIORITY_ICONS[priority]}) ${capitalizeFirst(priority)}`, description: current === priority ? 'current' : undefined, priority })),
      { label: '$(blank) None', description: current === null ? 'current' : undefined, priority: null },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'Plansight: Set Priority', placeHolder: `The priority of "${shownLabel(target.task)}"` });
    if (picked !== undefined && picked.priority !== current) {
      await this.apply(target.session, [{ op: 'update', id: target.task.id, priority: picked.priority }]);
    }
  }

  private async editTask(node: PlanNode | undefined): Promise<void> {
    if (!this.connected('edit a task')) {
      return;
    }
    const target = await this.targetTask(node, 'any', 'The task to edit');
    if (target === undefined) {
      return;
    }
    const { task } = target;
    // The server keeps an activeForm equal to the content in step with it, and derives no
    // "-ing" form: a task with its own activeForm (the row's label while it runs) is asked
    // for it too, or its old label would stay.
    const ownForm = task.activeForm !== task.content;
    const steps = ownForm ? 3 : 2;
    const content = await vscode.window.showInputBox({
      title: `Plansight: Edit Task (1/${steps})`,
      prompt: 'What is to be done, in the imperative: "Run the build"',
      value: task.content,
      validateInput: (value) => (value.trim() === '' ? 'Say what is to be done' : undefined),
    });
    if (content === undefined) {
      return;
    }
    // Escape or a click elsewhere at step 2 or 3 ends the edit but keeps what was entered
    // before it: the new name is not thrown away (issue 33, item 4).
    const typedForm = ownForm
      ? await vscode.window.showInputBox({
          title: `Plansight: Edit Task (2/${steps})`,
          prompt: `What the panel shows while it runs: "Running the build" (empty: the same as "${content.trim()}")`,
          value: task.activeForm,
        })
      : undefined;
    const activeForm = typedForm === undefined ? task.activeForm : typedForm.trim() === '' ? content.trim() : typedForm.trim();
    const description =
      ownForm && typedForm === undefined
        ? undefined
        : await vscode.window.showInputBox({
            title: `Plansight: Edit Task (${steps}/${steps})`,
            prompt: `A longer explanation of "${content.trim()}" (empty for none)`,
            value: task.description,
          });
    const op: Op & { op: 'update' } = { op: 'update', id: task.id };
    if (content.trim() !== task.content) {
      op.content = content.trim();
    }
    if (ownForm && activeForm !== task.activeForm) {
      op.activeForm = activeForm;
    }
    if (description !== undefined && description.trim() !== task.description) {
      op.description = description.trim();
    }
    if (op.content !== undefined || op.activeForm !== undefined || op.description !== undefined) {
      await this.apply(target.session, [op]);
    }
  }

  /** A pick of the session's other tasks; the ones checked are what it waits for. */
  private async dependsOn(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, 'any', 'The task that waits');
    if (target === undefined) {
      return;
    }
    const { task } = target;
    const state = this.sync.plans.get(target.session);
    const items = tasksOf(state)
      .filter(({ task: other }) => other.id !== task.id)
      .map(({ phase, task: other }) => ({
        label: `$(${TASK_ICONS[other.status].id}) ${other.content}`,
        description: (state?.phases.length ?? 0) > 1 ? phase : undefined,
        picked: task.blockedBy.includes(other.id),
        id: other.id,
      }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`Plansight: "${task.content}" is the only task of its session.`);
      return;
    }
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Plansight: Depends On',
      placeHolder: `The tasks "${task.content}" waits for`,
      canPickMany: true,
      matchOnDescription: true,
    });
    if (picked === undefined) {
      return;
    }
    const blockedBy = picked.map((item) => item.id);
    if (blockedBy.length !== task.blockedBy.length || blockedBy.some((id) => !task.blockedBy.includes(id))) {
      await this.apply(target.session, [{ op: 'update', id: task.id, blockedBy }]);
    }
  }

  /** The session's changes, newest first; picking one restores the plan as it was after it. */
  private async showHistory(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const { events } = await this.client.request('plansight/history', { session });
    if (events.length === 0) {
      void vscode.window.showInformationMessage(`Plansight: ${this.displayName(session)} has no history yet.`);
      return;
    }
    const version = this.sync.plans.get(session)?.version;
    const picked = await vscode.window.showQuickPick(
      events.map((event) => ({ ...historyEntry(event, event.version === (version ?? events[0]?.version), new Date(event.at).toLocaleString()), event })),
      { title: `Plansight: History of ${this.displayName(session)}`, placeHolder: 'The version to restore the plan to', matchOnDetail: true },
    );
    if (picked === undefined) {
      return;
    }
    const restore = 'Restore';
    const answer = await vscode.window.showWarningMessage(
      `Restore the plan to version ${picked.event.version}?`,
      { modal: true, detail: `The plan becomes what it was right after: ${changesText(picked.event)}. This is a new change: Undo Last Change brings back the plan as it is now.` },
      restore,
    );
    if (answer === restore) {
      this.report(await this.client.request('plansight/restore', { session, version: picked.event.version, origin: 'user' }));
    }
  }

  /**
   * One step back (`plansight/undo`): again steps back one more change, as an editor's
   * undo does; the server keeps the undo point.
   */
  private async undo(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const result = await this.client.request('plansight/undo', { session, origin: 'user' });
    if (!result.changed) {
      this.sync.accept(result);
      const why = result.errors.length > 0 ? result.errors.join('; ') : 'Nothing to undo';
      void vscode.window.showInformationMessage(`Plansight: ${why} in ${this.displayName(session)}.`);
      return;
    }
    this.report(result);
    const { events } = await this.client.request('plansight/history', { session, limit: 1 });
    const undo = events.find((event) => event.version === result.version);
    vscode.window.setStatusBarMessage(`$(discard) Plansight: ${undoMessage(undo)}`, 8000);
  }

  /** A session in the person's words, quoted: its title or a short readable name, never a raw id. */
  private displayName(session: string): string {
    return `"${sessionTitle(session, this.sync.plans.get(session)?.title)}"`;
  }

  /**
   * Whether the server can take a change now; if not, the person is told before typing
   * anything, with the way back (Restart Server, the log).
   */
  private connected(action: string): boolean {
    const state = this.client.state;
    if (state === 'running') {
      return true;
    }
    const why = state === 'starting' ? 'the server is still starting; try again in a moment' : 'the server is not running';
    const restart = 'Restart Server';
    const log = 'Show Server Log';
    void vscode.window.showWarningMessage(`Plansight is disconnected: ${why}, so it cannot ${action} now.`, restart, log).then((choice) => {
      if (choice === restart) {
        void this.client.restart();
      } else if (choice === log) {
        this.client.showLog();
      }
    });
    return false;
  }

  private async addNote(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, 'any', 'The task to add a note to');
    if (target === undefined) {
      return;
    }
    const text = await vscode.window.showInputBox({
      title: 'Plansight: Add Note',
      prompt: `A note on "${target.task.content}"`,
      validateInput: (value) => (value.trim() === '' ? 'Write the note' : undefined),
    });
    if (text !== undefined) {
      await this.apply(target.session, [{ op: 'note', id: target.task.id, text }]);
    }
  }

  /**
   * A note row's note, edited in place: the task's notes with that one replaced (`update`
   * with `notes`). A line break is typed as `\n`.
   */
  private async editNote(node: PlanNode | undefined): Promise<void> {
    const note = this.noteOf(node);
    if (note === undefined) {
      return;
    }
    const lines = note.text.includes('\n');
    const edited = await vscode.window.showInputBox({
      title: 'Plansight: Edit Note',
      prompt: `The note on "${note.task.content}"${lines ? ' (\\n for a line break)' : ''}`,
      value: lines ? note.text.replace(/\n/g, '\\n') : note.text,
      validateInput: (value) => (value.trim() === '' ? 'Write the note (Delete Note removes it)' : undefined),
    });
    if (edited === undefined) {
      return;
    }
    const text = lines ? edited.replace(/\\n/g, '\n') : edited;
    if (text !== note.text) {
      await this.sendNotes(note, (notes, index) => notes.map((old, i) => (i === index ? text : old)));
    }
  }

  /** A note row's note removed (Undo Last Change brings it back). */
  private async deleteNote(node: PlanNode | undefined): Promise<void> {
    const note = this.noteOf(node);
    if (note === undefined) {
      return;
    }
    const result = await this.sendNotes(note, (notes, index) => notes.filter((_, i) => i !== index));
    if (result?.changed === true) {
      vscode.window.setStatusBarMessage('$(trash) Plansight: deleted the note; Undo Last Change brings it back', 8000);
    }
  }

  /** The note a row shows, if the task still has it. */
  private noteOf(node: PlanNode | undefined): NoteNode | undefined {
    if (node?.kind !== 'note') {
      void vscode.window.showInformationMessage('Plansight: pick a note in the Plan view (right-click it) to edit or delete it.');
      return undefined;
    }
    if (this.notesNow(node) === undefined) {
      this.noteGone(node);
      return undefined;
    }
    return node;
  }

  /**
   * Sends the task's notes as `change` makes them, read from the plan as it is when sent and
   * with its version as `baseVersion`: a note the agent added meanwhile is never lost (a plan
   * that changed under it is refused, and said).
   */
  private async sendNotes(note: NoteNode, change: (notes: readonly string[], index: number) => string[]): Promise<ApplyResult | undefined> {
    const now = this.notesNow(note);
    if (now === undefined) {
      this.noteGone(note);
      return undefined;
    }
    const ops: Op[] = [{ op: 'update', id: note.task.id, notes: change(now.notes, now.index) }];
    return this.report(await this.client.request('plansight/apply', { session: note.session, ops, origin: 'user', baseVersion: now.version }));
  }

  /** The task's notes in the plan as it is now, where the row's note is among them, and the plan's version. */
  private notesNow(note: NoteNode): { notes: readonly string[]; index: number; version: number } | undefined {
    const state = this.sync.plans.get(note.session);
    const task = tasksOf(state).find(({ task: t }) => t.id === note.task.id)?.task;
    const index = task === undefined ? undefined : noteIndex(task.notes, note);
    return state === undefined || task === undefined || index === undefined ? undefined : { notes: task.notes, index, version: state.version };
  }

  private noteGone(note: NoteNode): void {
    void vscode.window.showInformationMessage(`Plansight: that note of "${note.task.content}" changed meanwhile; nothing was done.`);
    return undefined;
  }

  /**
   * The task of a clicked item, or else one picked from the active session's tasks: the
   * ones the purpose offers, labelled as their rows are (taskPicks.ts).
   */
  private async targetTask(node: PlanNode | undefined, purpose: PickPurpose, placeHolder: string): Promise<TaskTarget | undefined> {
    if (node?.kind === 'task' || node?.kind === 'note' || node?.kind === 'file') {
      return { session: node.session, task: node.task };
    }
    const session = this.sessionOf(node);
    const items = taskPicks(this.sync.plans.get(session), purpose);
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`Plansight: no task of ${this.displayName(session)} for this.`);
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(items, { title: `Plansight: ${sessionTitle(session, this.sync.plans.get(session)?.title)}`, placeHolder, matchOnDescription: true });
    return picked === undefined ? undefined : { session, task: picked.task };
  }

  private async editPlan(node: PlanNode | undefined): Promise<void> {
    await this.documents.open(this.sessionOf(node));
  }

  /**
   * The plan as an untitled Markdown document: nothing lands in the repository unless the
   * person saves it, where they choose (Save As asks).
   */
  private async exportPlan(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const { text } = await this.client.request('plansight/export', { session, format: 'markdown' });
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
    await vscode.window.showTextDocument(document, { preview: false });
  }

  private async switchSession(node: PlanNode | undefined): Promise<void> {
    if (node?.kind === 'session') {
      await this.sync.choose(node.session);
      await this.view.revealSession(node.session);
      return;
    }
    const { sessions } = await this.client.request('plansight/sessions', {});
    const active = this.sync.plans.activeSession();
    const follow: SessionItem = {
      label: this.sync.plans.followLatest ? '$(history) Follow the most recently changed session' : '$(history) Follow the session in use (the most recently changed)',
      session: undefined,
    };
    const create: SessionItem = { label: '$(add) New session…', session: undefined };
    const items: SessionItem[] = [
      ...sessions.map((info) => ({
        label: `${info.session === active ? '$(check)' : '$(blank)'} ${sessionTitle(info.session, info.title)}`,
        description: [info.title === null ? undefined : sessionTitle(info.session), progressText({ ...info, phases: [] }) ?? 'empty'].filter((part) => part !== undefined).join(' · '),
        detail: info.current === null ? undefined : info.current.activeForm,
        // Its agent's logo, as on its row in the Plan view.
        iconPath: this.view.sessionIconPath(info.session),
        session: info.session,
      })),
      follow,
      create,
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Plansight: Switch Session',
      placeHolder: 'The session that commands, the badge and the status bar follow',
      // A titled session's name is its description: typing the name an agent gave it finds it.
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked === undefined) {
      return;
    }
    let session = picked.session;
    if (picked === create) {
      session = (
        await vscode.window.showInputBox({
          title: 'Plansight: New Session',
          prompt: 'The name of the session',
          validateInput: (value) => (value.trim() === '' ? 'Name the session' : undefined),
        })
      )?.trim();
      if (session === undefined) {
        return;
      }
    }
    await this.sync.choose(session);
    if (session !== undefined) {
      await this.view.revealSession(session).catch(() => undefined);
    }
  }
}

function tasksOf(state: TodoState | undefined): { phase: string; task: Task }[] {
  return (state?.phases ?? []).flatMap((phase) => phase.tasks.map((task) => ({ phase: phase.name, task })));
}

function notesCount(task: Task): string | undefined {
  const count = task.notes.length;
  return count === 0 ? undefined : count === 1 ? 'it has a note' : `it has ${count} notes`;
}

function capitalizeFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Where a row's note is among the task's notes now: its index if unchanged, else the same text. */
function noteIndex(notes: readonly string[], node: NoteNode): number | undefined {
  if (notes[node.index] === node.text) {
    return node.index;
  }
  const found = notes.indexOf(node.text);
  return found === -1 ? undefined : found;
}

function isPlanNode(value: unknown): value is PlanNode {
  return typeof value === 'object' && value !== null && 'kind' in value && 'session' in value && 'id' in value;
}
