/**
 * (v4) Moving tasks in the Plan view: Move Up / Move Down / Indent / Outdent on the selected
 * task (keys Alt+Up, Alt+Down, Alt+Right, Alt+Left while the view has focus), Add Subtask,
 * and drag and drop of one or several tasks before, after or under another task, or to a
 * phase. Each is one `plansight/apply` of `move` (or `append` with `parent`) ops with
 * origin "user": steering keeps a person's move against an agent's stale list.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import type { PlanSync } from './planSync';
import type { PlanNode, TaskNode } from './planTree';
import type { PlanView } from './planView';
import type { Op } from './protocol';
import { dropOps, keyMove, likelyPlace, movable, type DropPlace, type MoveKey, type MoveOp } from './treeMoves';

export const TREE_MIME = 'application/vnd.code.tree.plansight.plan';

export class TreeMoves implements vscode.TreeDragAndDropController<PlanNode> {
  readonly dragMimeTypes = [TREE_MIME];
  readonly dropMimeTypes = [TREE_MIME];
  private view: PlanView | undefined;

  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
  ) {}

  /** The view is made with this controller, so it comes after. */
  attach(view: PlanView): void {
    this.view = view;
  }

  register(): vscode.Disposable[] {
    const keys: [string, MoveKey][] = [
      ['plansight.moveUp', 'up'],
      ['plansight.moveDown', 'down'],
      ['plansight.indent', 'indent'],
      ['plansight.outdent', 'outdent'],
    ];
    const run = (body: (node: TaskNode | undefined) => Promise<unknown>) => async (node?: unknown) => {
      try {
        await body(this.taskOf(node));
      } catch (error) {
        void vscode.window.showErrorMessage(`Plansight: ${describeError(error)}`);
      }
    };
    return [
      ...keys.map(([id, key]) => vscode.commands.registerCommand(id, run((node) => this.moveByKey(node, key)))),
      vscode.commands.registerCommand('plansight.addSubtask', run((node) => this.addSubtask(node))),
    ];
  }

  handleDrag(source: readonly PlanNode[], dataTransfer: vscode.DataTransfer): void {
    const tasks = source.filter((node) => node.kind === 'task');
    if (tasks.length > 0) {
      dataTransfer.set(TREE_MIME, new vscode.DataTransferItem(tasks.map((node) => node.id)));
    }
  }

  async handleDrop(target: PlanNode | undefined, dataTransfer: vscode.DataTransfer): Promise<void> {
    const tree = this.view?.planTree;
    const item = dataTransfer.get(TREE_MIME);
    if (tree === undefined || target === undefined || item === undefined) {
      return;
    }
    const ids: unknown = typeof item.value === 'string' ? JSON.parse(item.value) : item.value;
    const dragged = (Array.isArray(ids) ? ids : []).map((id) => (typeof id === 'string' ? tree.getNode(id) : undefined)).filter((node) => node !== undefined);
    const on = tree.getNode(target.id) ?? target;
    const tasks = movable(tree, dragged, on);
    if (tasks.length === 0 || (on.kind !== 'task' && on.kind !== 'phase')) {
      return;
    }
    let place: DropPlace = 'after';
    if (on.kind === 'task') {
      // VS Code tells a drop only the row it landed on: the person says where, the likely
      // place first (after it when dragged down, before it when dragged up).
      const picked = await this.pickPlace(tasks, on, likelyPlace(tree, tasks, on));
      if (picked === undefined) {
        return;
      }
      place = picked;
    }
    await this.apply(on.session, dropOps(tree, tasks, on, place));
  }

  private async pickPlace(tasks: readonly TaskNode[], target: TaskNode, likely: DropPlace): Promise<DropPlace | undefined> {
    const name = `"${target.task.content}"`;
    const all: { label: string; place: DropPlace }[] = [
      { label: `$(arrow-up) Before ${name}`, place: 'before' },
      { label: `$(arrow-down) After ${name}`, place: 'after' },
      { label: `$(indent) Under ${name}, as its last subtask`, place: 'under' },
    ];
    const items = [...all.filter((item) => item.place === likely), ...all.filter((item) => item.place !== likely)];
    const what = tasks.length === 1 ? `"${tasks[0]?.task.content ?? ''}"` : `${tasks.length} tasks`;
    const picked = await vscode.window.showQuickPick(items, { title: 'Plansight: Move', placeHolder: `Where to move ${what}` });
    return picked?.place;
  }

  private taskOf(node: unknown): TaskNode | undefined {
    const tree = this.view?.planTree;
    const row = isPlanNode(node) ? node : this.view?.treeView.selection[0];
    const found = row === undefined ? undefined : (tree?.getNode(row.id) ?? row);
    return found?.kind === 'task' ? found : undefined;
  }

  private async moveByKey(node: TaskNode | undefined, key: MoveKey): Promise<void> {
    const tree = this.view?.planTree;
    if (node === undefined || tree === undefined) {
      void vscode.window.showInformationMessage('Plansight: select a task in the Plan view to move it.');
      return;
    }
    const op = keyMove(tree, node, key);
    if (typeof op === 'string') {
      vscode.window.setStatusBarMessage(`Plansight: ${op}`, 5000);
      return;
    }
    await this.apply(node.session, [op]);
    await this.view?.revealTask(node.session, node.task.id).catch(() => undefined);
  }

  private async addSubtask(node: TaskNode | undefined): Promise<void> {
    if (node === undefined) {
      void vscode.window.showInformationMessage('Plansight: pick a task in the Plan view to add a subtask to.');
      return;
    }
    const content = await vscode.window.showInputBox({
      title: 'Plansight: Add Subtask',
      prompt: `A subtask of "${node.task.content}", in the imperative: "Write the test"`,
      validateInput: (value) => (value.trim() === '' ? 'Say what is to be done' : undefined),
    });
    if (content !== undefined) {
      // (v4) `append` with `parent`: the last subtask of that task, in its phase.
      await this.apply(node.session, [{ op: 'append', parent: node.task.id, items: [content.trim()] }]);
      // A row that had no children stays folded in VS Code once it has some: open it.
      const added = (this.sync.plans.get(node.session)?.phases ?? [])
        .flatMap((phase) => phase.tasks)
        .filter((task) => task.parent === node.task.id && task.content === content.trim())
        .pop();
      if (added !== undefined) {
        await this.view?.revealTask(node.session, added.id).catch(() => undefined);
      }
    }
  }

  private async apply(session: string, ops: readonly (MoveOp | Op)[]): Promise<void> {
    if (ops.length === 0) {
      return;
    }
    const result = await this.client.request('plansight/apply', { session, ops: ops as Op[], origin: 'user' });
    this.sync.accept(result);
    if (result.isError) {
      void vscode.window.showWarningMessage(`Plansight: ${result.errors.join('; ')}`);
    }
  }
}

function isPlanNode(value: unknown): value is PlanNode {
  return typeof value === 'object' && value !== null && 'kind' in value && 'session' in value && 'id' in value;
}
