/**
 * The "Plansight" commands of the palette, the view title and the item menus. Each one asks
 * the person what is needed and sends one request of the contract with origin "user", so
 * the agent hears about it through `plansight/context`; the server decides the rest.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import { planDocumentUri } from './planDocument';
import type { PlanSync } from './planSync';
import { DEFAULT_PHASE, TASK_ICONS, progressText, type PlanNode } from './planTree';
import type { PlanView } from './planView';
import type { ApplyResult, Op, Task, TaskStatus } from './protocol';

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
  readonly op: 'start' | 'done' | 'drop' | 'rm';
  /** The statuses the action applies to; the menus in package.json say the same. */
  readonly applies: readonly TaskStatus[];
}

const ALL_STATUSES: readonly TaskStatus[] = ['pending', 'in_progress', 'completed', 'abandoned'];

export const TASK_ACTIONS: readonly TaskAction[] = [
  { command: 'plansight.startTask', verb: 'start', op: 'start', applies: ['pending', 'abandoned'] },
  { command: 'plansight.completeTask', verb: 'complete', op: 'done', applies: ['pending', 'in_progress'] },
  { command: 'plansight.dropTask', verb: 'drop', op: 'drop', applies: ['pending', 'in_progress'] },
  { command: 'plansight.removeTask', verb: 'remove', op: 'rm', applies: ALL_STATUSES },
];

export class PlanCommands {
  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
    private readonly view: PlanView,
  ) {}

  register(): vscode.Disposable[] {
    const commands: [string, (node?: PlanNode) => Promise<unknown>][] = [
      ['plansight.addTodo', (node) => this.addTodo(node)],
      ['plansight.clearTodos', (node) => this.clearTodos(node)],
      ['plansight.addNote', (node) => this.addNote(node)],
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
      ...TASK_ACTIONS.map((action): [string, (node?: PlanNode) => Promise<unknown>] => [
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
    const session = this.sessionOf(node);
    const content = await vscode.window.showInputBox({
      title: 'Plansight: Add Todo',
      prompt: `A new task for session "${session}", in the imperative: "Run the build"`,
      validateInput: (value) => (value.trim() === '' ? 'Say what is to be done' : undefined),
    });
    if (content === undefined) {
      return;
    }
    const phase = node?.kind === 'phase' ? node.name : node?.kind === 'task' ? node.phase : await this.pickPhase(session);
    if (phase === undefined) {
      return;
    }
    await this.apply(session, [{ op: 'append', phase, items: [content.trim()] }]);
  }

  /** No question with zero or one phase; with several, a pick of them or a new one. */
  private async pickPhase(session: string): Promise<string | undefined> {
    const phases = (this.sync.plans.get(session)?.phases ?? []).map((phase) => phase.name);
    if (phases.length === 0) {
      return DEFAULT_PHASE;
    }
    if (phases.length === 1) {
      return phases[0];
    }
    const newPhase = '$(add) New phase…';
    const choice = await vscode.window.showQuickPick([...phases, newPhase], {
      title: 'Plansight: Add Todo',
      placeHolder: 'The phase to add the task to',
    });
    if (choice !== newPhase) {
      return choice;
    }
    const name = await vscode.window.showInputBox({
      title: 'Plansight: New Phase',
      prompt: 'The name of the new phase',
      validateInput: (value) => (value.trim() === '' ? 'Name the phase' : undefined),
    });
    return name?.trim();
  }

  private async clearTodos(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const total = this.sync.plans.get(session)?.progress.total ?? 0;
    const clear = 'Clear';
    const answer = await vscode.window.showWarningMessage(
      total === 1 ? `Clear the todo of session "${session}"?` : `Clear all ${total} todos of session "${session}"?`,
      { modal: true, detail: 'The agent is told that you cleared its list.' },
      clear,
    );
    if (answer === clear) {
      this.report(await this.client.request('plansight/clear', { session, origin: 'user' }));
    }
  }

  private async taskAction(action: TaskAction, node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, action.applies, `The task to ${action.verb}`);
    if (target !== undefined) {
      await this.apply(target.session, [{ op: action.op, id: target.task.id }]);
    }
  }

  private async addNote(node: PlanNode | undefined): Promise<void> {
    const target = await this.targetTask(node, ALL_STATUSES, 'The task to add a note to');
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

  /** The task of a clicked item, or else one picked from the active session's tasks. */
  private async targetTask(node: PlanNode | undefined, applies: readonly TaskStatus[], placeHolder: string): Promise<TaskTarget | undefined> {
    if (node?.kind === 'task' || node?.kind === 'note') {
      return { session: node.session, task: node.task };
    }
    const session = this.sessionOf(node);
    const state = this.sync.plans.get(session);
    const candidates = (state?.phases ?? []).flatMap((phase) =>
      phase.tasks.filter((task) => applies.includes(task.status)).map((task) => ({ phase: phase.name, task })),
    );
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`Plansight: no task of session "${session}" for this.`);
      return undefined;
    }
    const several = (state?.phases.length ?? 0) > 1;
    const picked = await vscode.window.showQuickPick(
      candidates.map(({ phase, task }) => ({
        label: `$(${TASK_ICONS[task.status].id}) ${task.content}`,
        description: several ? phase : undefined,
        task,
      })),
      { title: `Plansight: session ${session}`, placeHolder, matchOnDescription: true },
    );
    return picked === undefined ? undefined : { session, task: picked.task };
  }

  private async editPlan(node: PlanNode | undefined): Promise<void> {
    const document = await vscode.workspace.openTextDocument(planDocumentUri(this.sessionOf(node)));
    await vscode.window.showTextDocument(document, { preview: false });
  }

  private async exportPlan(node: PlanNode | undefined): Promise<void> {
    const session = this.sessionOf(node);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = session === 'default' ? 'plan.md' : `plan-${session.replace(/[^\w.-]+/g, '_')}.md`;
    const target = await vscode.window.showSaveDialog({
      title: `Plansight: Export the plan of session "${session}"`,
      defaultUri: folder === undefined ? undefined : vscode.Uri.joinPath(folder, name),
      filters: { Markdown: ['md'] },
      saveLabel: 'Export',
    });
    if (target === undefined) {
      return;
    }
    const { text } = await this.client.request('plansight/export', { session, format: 'markdown' });
    await vscode.workspace.fs.writeFile(target, Buffer.from(text));
    vscode.window.setStatusBarMessage(`$(check) Plansight: exported the plan of session "${session}" to ${path.basename(target.path)}`, 5000);
  }

  private async switchSession(node: PlanNode | undefined): Promise<void> {
    if (node?.kind === 'session') {
      await this.sync.choose(node.session);
      await this.view.revealSession(node.session);
      return;
    }
    const { sessions } = await this.client.request('plansight/sessions', {});
    const active = this.sync.plans.activeSession();
    const follow: SessionItem = { label: '$(history) Follow the most recent session', session: undefined };
    const create: SessionItem = { label: '$(add) New session…', session: undefined };
    const items: SessionItem[] = [
      ...sessions.map((info) => ({
        label: `${info.session === active ? '$(check)' : '$(blank)'} ${info.session}`,
        description: progressText({ ...info, phases: [] }) ?? 'empty',
        detail: info.current === null ? undefined : info.current.activeForm,
        session: info.session,
      })),
      follow,
      create,
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Plansight: Switch Session',
      placeHolder: 'The session that commands, the badge and the status bar follow',
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

function isPlanNode(value: unknown): value is PlanNode {
  return typeof value === 'object' && value !== null && 'kind' in value && 'session' in value && 'id' in value;
}
