/**
 * What a person does on the Plan view's rows as in VS Code's own trees: a task's checkbox
 * completes and reopens it, F2 renames it, Delete removes it (Undo Last Change brings it
 * back), Space toggles done, Enter shows its details; Hide Finished and a filter change
 * what the view shows. Each change is one `plansight/apply` with origin "user": the agent is
 * told, the server decides the rest. A key acts on the selected rows; the palette, on them
 * or on a task picked.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import { filterText, parseFilter } from './planFilter';
import type { PlanSync } from './planSync';
import type { PlanNode, TaskNode } from './planTree';
import type { PlanView } from './planView';
import type { ApplyResult, Op } from './protocol';
import { taskDetails } from './taskDetails';
import { taskPicks, type PickPurpose } from './taskPicks';

type Handler = (nodes: readonly PlanNode[]) => Promise<unknown>;

export class TreeCommands {
  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
    private readonly view: PlanView,
  ) {}

  register(): vscode.Disposable[] {
    const commands: [string, Handler][] = [
      ['plansight.toggleDone', (nodes) => this.toggleDone(nodes)],
      ['plansight.renameTask', (nodes) => this.rename(nodes)],
      ['plansight.deleteTask', (nodes) => this.deleteTasks(nodes)],
      ['plansight.showTaskDetails', (nodes) => this.showDetails(nodes)],
      ['plansight.hideFinished', () => this.view.setHideFinished(true)],
      ['plansight.showFinished', () => this.view.setHideFinished(false)],
      ['plansight.filterTasks', () => this.filter()],
      ['plansight.clearFilter', () => this.view.setFilter(undefined)],
    ];
    return [
      ...commands.map(([id, handler]) =>
        // A menu passes the row and the selected rows; a key or the palette passes nothing.
        vscode.commands.registerCommand(id, async (node?: unknown, selected?: unknown) => {
          try {
            await handler(this.targets(node, selected));
          } catch (error) {
            void vscode.window.showErrorMessage(`Plansight: ${describeError(error)}`);
          }
        }),
      ),
      this.view.treeView.onDidChangeCheckboxState((event) => {
        this.checkboxes(event.items).catch((error: unknown) => void vscode.window.showErrorMessage(`Plansight: ${describeError(error)}`));
      }),
    ];
  }

  /** The rows a command acts on: the menu's, else the view's selection, freshest first. */
  private targets(node: unknown, selected: unknown): PlanNode[] {
    const rows = Array.isArray(selected) && selected.length > 0 ? (selected as unknown[]) : node === undefined ? [...this.view.treeView.selection] : [node];
    return rows.filter(isPlanNode).map((row) => this.view.planTree.getNode(row.id) ?? row);
  }

  /** The selected task rows, else one picked from the followed session's tasks. */
  private async tasksOf(nodes: readonly PlanNode[], purpose: PickPurpose, placeHolder: string): Promise<TaskNode[]> {
    const tasks = nodes.filter((node): node is TaskNode => node.kind === 'task');
    if (tasks.length > 0 || nodes.length > 0) {
      return tasks;
    }
    const session = this.sync.plans.activeSession();
    const items = taskPicks(this.sync.plans.get(session), purpose);
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Plansight: no task for this; pick a task in the Plan view.');
      return [];
    }
    const picked = await vscode.window.showQuickPick(items, { title: 'Plansight', placeHolder, matchOnDescription: true });
    const node = picked === undefined ? undefined : this.view.planTree.taskNode(session, picked.task.id);
    return node === undefined ? [] : [node];
  }

  private async apply(session: string, ops: Op[]): Promise<ApplyResult> {
    const result = await this.client.request('plansight/apply', { session, ops, origin: 'user' });
    this.sync.accept(result);
    if (result.isError) {
      void vscode.window.showWarningMessage(`Plansight: ${result.errors.join('; ')}`);
    }
    return result;
  }

  /** One request per session, the ops in the order of the rows. */
  private async applyEach(tasks: readonly TaskNode[], op: (task: TaskNode) => Op): Promise<ApplyResult[]> {
    const bySession = new Map<string, Op[]>();
    for (const task of tasks) {
      bySession.set(task.session, [...(bySession.get(task.session) ?? []), op(task)]);
    }
    const results: ApplyResult[] = [];
    for (const [session, ops] of bySession) {
      results.push(await this.apply(session, ops));
    }
    return results;
  }

  /** Completed reopens (pending), anything else completes: what a checkbox does. */
  private static toggleOp(task: TaskNode, done: boolean): Op {
    return done ? { op: 'done', id: task.task.id } : { op: 'update', id: task.task.id, status: 'pending' };
  }

  private async toggleDone(nodes: readonly PlanNode[]): Promise<void> {
    if (nodes.length > 0 && !nodes.some((node) => node.kind === 'task')) {
      // Space on a session or phase row opens or closes it, as in any tree.
      await vscode.commands.executeCommand('list.toggleExpand');
      return;
    }
    const tasks = await this.tasksOf(nodes, 'done', 'The task to complete or reopen');
    // Several rows: all complete, unless all are completed already (then all reopen).
    const done = !tasks.every((node) => node.task.status === 'completed');
    await this.applyEach(tasks, (task) => TreeCommands.toggleOp(task, done));
  }

  private async checkboxes(items: readonly (readonly [PlanNode, vscode.TreeItemCheckboxState])[]): Promise<void> {
    const changed = items
      .map(([node, state]) => [this.view.planTree.getNode(node.id), state === vscode.TreeItemCheckboxState.Checked] as const)
      .filter((entry): entry is readonly [TaskNode, boolean] => entry[0]?.kind === 'task' && (entry[0].task.status === 'completed') !== entry[1]);
    try {
      const results = await Promise.all(
        changed.map(([task, done]) => this.apply(task.session, [TreeCommands.toggleOp(task, done)])),
      );
      if (results.some((result) => !result.changed)) {
        this.view.redraw(); // the box shows what the server holds, not the click it refused
      }
    } catch (error) {
      this.view.redraw();
      throw error;
    }
  }

  /** One box, filled with the task's content; the task keeps its id, notes and files. */
  private async rename(nodes: readonly PlanNode[]): Promise<void> {
    const [node] = await this.tasksOf(nodes.slice(0, 1), 'any', 'The task to rename');
    if (node === undefined) {
      return;
    }
    const { task } = node;
    const content = await vscode.window.showInputBox({
      title: 'Plansight: Rename Task',
      prompt: `The new name of "${task.content}", in the imperative: "Run the build"`,
      value: task.content,
      validateInput: (value) => (value.trim() === '' ? 'Say what is to be done' : undefined),
    });
    if (content !== undefined && content.trim() !== task.content) {
      await this.apply(node.session, [{ op: 'update', id: task.id, content: content.trim() }]);
    }
  }

  /** Removes the rows' tasks, asking first when work would go out of sight. */
  private async deleteTasks(nodes: readonly PlanNode[]): Promise<void> {
    const tasks = await this.tasksOf(nodes, 'any', 'The task to delete');
    if (tasks.length === 0) {
      return;
    }
    const weighty = tasks.filter(({ task }) => task.status === 'in_progress' || task.notes.length > 0);
    if (weighty.length > 0) {
      const what = tasks.length === 1 ? `"${tasks[0]?.task.content ?? ''}"` : `${tasks.length} tasks`;
      const why = weighty.map(({ task }) => `"${task.content}" ${task.status === 'in_progress' ? 'is in progress' : 'has notes'}`).join('; ');
      const remove = 'Delete';
      const answer = await vscode.window.showWarningMessage(
        `Delete ${what}? ${why}.`,
        { modal: true, detail: 'Plansight: Undo Last Change brings it back.' },
        remove,
      );
      if (answer !== remove) {
        return;
      }
    }
    const results = await this.applyEach(tasks, ({ task }) => ({ op: 'rm', id: task.id }));
    if (results.some((result) => result.changed)) {
      const what = tasks.length === 1 ? `"${tasks[0]?.task.content ?? ''}"` : `${tasks.length} tasks`;
      vscode.window.setStatusBarMessage(`$(trash) Plansight: deleted ${what}; Undo Last Change brings it back`, 8000);
    }
  }

  /** A task's details in a dialog; Enter on another row does what Enter does in a tree. */
  private async showDetails(nodes: readonly PlanNode[]): Promise<void> {
    const [first] = nodes;
    if (first?.kind === 'file') {
      await vscode.commands.executeCommand('plansight.openFile', first);
      return;
    }
    if (first !== undefined && first.kind !== 'task' && first.kind !== 'note') {
      await vscode.commands.executeCommand('list.toggleExpand');
      return;
    }
    const row = first?.kind === 'note' ? this.view.planTree.taskNode(first.session, first.task.id) : first;
    const [node] = await this.tasksOf(row === undefined ? [] : [row], 'any', 'The task to show');
    if (node === undefined) {
      return;
    }
    const { title, detail } = taskDetails(node, (iso) => new Date(iso).toLocaleString());
    await vscode.window.showInformationMessage(title, { modal: true, detail });
  }

  /** Text, `owner:`, `priority:`, `status:`: the tasks that match all of it stay in sight. */
  private async filter(): Promise<void> {
    const current = this.view.filter;
    const typed = await vscode.window.showInputBox({
      title: 'Plansight: Filter Tasks',
      prompt: 'Words a task holds, and any of owner:NAME priority:high|medium|low status:pending|in_progress|completed|abandoned|blocked (empty: show all)',
      value: current === undefined ? '' : filterText(current),
      validateInput: (value) => {
        const parsed = parseFilter(value);
        return 'error' in parsed ? parsed.error : undefined;
      },
    });
    if (typed === undefined) {
      return;
    }
    const parsed = parseFilter(typed);
    if (!('error' in parsed)) {
      await this.view.setFilter(parsed.filter);
    }
  }
}

function isPlanNode(value: unknown): value is PlanNode {
  return typeof value === 'object' && value !== null && 'kind' in value && 'session' in value && 'id' in value;
}
