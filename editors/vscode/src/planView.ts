/**
 * The Plan view: a TreeDataProvider that draws the PlanTree, plus the view's badge (tasks
 * remaining), description (`3/8 · 37%`) and the reveal of the task in progress. It holds
 * the tree it draws and nothing else.
 */
import * as vscode from 'vscode';
import type { PlanSync, PlanUpdate } from './planSync';
import { workspaceFile } from './taskFiles';
import { PlanTree, progressText, remainingTasks, sessionName, viewOf, type PlanNode } from './planTree';

export const PLAN_VIEW_ID = 'plansight.plan';

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export class PlanView implements vscode.TreeDataProvider<PlanNode>, vscode.Disposable {
  private tree = PlanTree.build([]);
  private readonly changeEmitter = new vscode.EventEmitter<PlanNode | undefined>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  readonly treeView: vscode.TreeView<PlanNode>;

  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(private readonly sync: PlanSync) {
    this.treeView = vscode.window.createTreeView(PLAN_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView, sync.onDidUpdate((update) => this.render(update)));
    this.render({ currentChanged: false });
  }

  getTreeItem(node: PlanNode): vscode.TreeItem {
    const view = viewOf(node, { formatTime: (iso) => new Date(iso).toLocaleString() });
    const item = new vscode.TreeItem(view.label, COLLAPSIBLE[view.collapsible]);
    item.id = node.id;
    item.description = view.description;
    item.contextValue = view.contextValue;
    item.iconPath = new vscode.ThemeIcon(view.icon.id, view.icon.color === undefined ? undefined : new vscode.ThemeColor(view.icon.color));
    if (view.file !== undefined) {
      const uri = workspaceFile(view.file);
      if (uri !== undefined) {
        // The file icon theme draws it, and a click opens it.
        item.resourceUri = uri;
        item.iconPath = vscode.ThemeIcon.File;
        item.command = { command: 'plansight.openFile', title: 'Open File', arguments: [node] };
      }
    }
    // Agent text: never trusted, no HTML, no command links.
    const tooltip = new vscode.MarkdownString(view.tooltip);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    tooltip.supportThemeIcons = false;
    item.tooltip = tooltip;
    return item;
  }

  getChildren(node?: PlanNode): PlanNode[] {
    return [...this.tree.childrenOf(node === undefined ? undefined : this.tree.getNode(node.id))];
  }

  getParent(node: PlanNode): PlanNode | undefined {
    const known = this.tree.getNode(node.id);
    return known === undefined ? undefined : this.tree.parentOf(known);
  }

  /** Shows a session's node (or its task in progress) in the view. */
  async revealSession(session: string): Promise<void> {
    const state = this.sync.plans.get(session);
    const current = state?.current;
    const node = (current ? this.tree.taskNode(session, current.id) : undefined) ?? this.tree.roots.find((root) => root.session === session);
    if (node !== undefined) {
      await this.treeView.reveal(node, { select: false, focus: false, expand: true });
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private render(update: PlanUpdate): void {
    const { plans } = this.sync;
    this.tree = PlanTree.build(plans.sessions());
    this.changeEmitter.fire(undefined);

    const active = plans.activeState();
    const remaining = remainingTasks(active);
    this.treeView.badge =
      remaining > 0 ? { value: remaining, tooltip: remaining === 1 ? '1 task remaining' : `${remaining} tasks remaining` } : undefined;
    const progress = progressText(active);
    // Beside several sessions the active one is named; alone, only a title it has.
    const several = plans.sessionsWithTasks().length > 1;
    const name = active === undefined ? undefined : several ? sessionName(active) : (active.title ?? undefined);
    this.treeView.description = progress !== undefined && name !== undefined ? `${name} · ${progress}` : progress;
    // Alone in its container the view shows no description: a lone session's title
    // becomes the view's title ("Plansight: Ship version 2"), as session nodes show theirs.
    this.treeView.title = (!several && progress !== undefined ? active?.title : undefined) ?? 'Plan';
    void vscode.commands.executeCommand('setContext', 'plansight.hasPlan', !this.tree.isEmpty);

    if (update.session !== undefined && update.currentChanged) {
      this.revealCurrent(update.session);
    }
  }

  private revealCurrent(session: string): void {
    const autoReveal = vscode.workspace.getConfiguration('plansight').get<boolean>('autoReveal', true);
    const current = this.sync.plans.get(session)?.current;
    // reveal() would open a hidden view: only follow the agent when the person is looking.
    if (!autoReveal || !this.treeView.visible || current === null || current === undefined) {
      return;
    }
    const node = this.tree.taskNode(session, current.id);
    if (node !== undefined) {
      this.treeView.reveal(node, { select: false, focus: false }).then(undefined, () => undefined);
    }
  }
}
