/**
 * The Plan view: a TreeDataProvider that draws the PlanTree, plus the view's badge (tasks
 * remaining), title and description (`3/8 · 37%`), the decorations of task rows (priority,
 * finished rows dimmed) and the reveal of the task in progress. It holds the tree it draws
 * and which session rows the person expanded or collapsed, nothing else.
 */
import * as vscode from 'vscode';
import type { PlanSync, PlanUpdate } from './planSync';
import { workspaceFile } from './taskFiles';
import { PlanTree, remainingTasks, sessionNodeId, TASK_DECORATION_SCHEME, taskDecoration, viewHeader, viewOf, type PlanNode } from './planTree';

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
  /** The session rows as VS Code got them: a targeted refresh must name the same object. */
  private drawnSessions = new Map<string, PlanNode>();
  /** The root ids last drawn: when they change, the whole tree is redrawn. */
  private drawnRoots: readonly string[] = [];
  /**
   * The ids of rows the person opened or closed: a row drawn anew (a task that moved under
   * a session row when a second session appeared) starts as they left it.
   */
  private readonly openRows = new Set<string>();
  private readonly closedRows = new Set<string>();

  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(private readonly sync: PlanSync) {
    this.treeView = vscode.window.createTreeView(PLAN_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.treeView,
      sync.onDidUpdate((update) => this.render(update)),
      this.treeView.onDidExpandElement(({ element }) => this.remember(element, true)),
      this.treeView.onDidCollapseElement(({ element }) => this.remember(element, false)),
      vscode.window.registerFileDecorationProvider({
        provideFileDecoration: (uri) => {
          const decoration = uri.scheme === TASK_DECORATION_SCHEME ? taskDecoration(uri.query) : undefined;
          if (decoration === undefined) {
            return undefined;
          }
          const drawn = new vscode.FileDecoration(decoration.badge, decoration.tooltip, decoration.color === undefined ? undefined : new vscode.ThemeColor(decoration.color));
          drawn.propagate = false;
          return drawn;
        },
      }),
    );
    this.render({ currentChanged: false });
  }

  getTreeItem(element: PlanNode): vscode.TreeItem {
    // VS Code hands back the object it was given; the tree may hold a newer one by now.
    const node = this.tree.getNode(element.id) ?? element;
    const view = viewOf(node, { formatTime: (iso) => new Date(iso).toLocaleString() });
    const remembered = this.openRows.has(node.id) ? 'expanded' : this.closedRows.has(node.id) ? 'collapsed' : view.collapsible;
    const item = new vscode.TreeItem(view.label, COLLAPSIBLE[view.collapsible === 'none' ? 'none' : remembered]);
    item.id = node.id;
    item.description = view.description;
    item.contextValue = view.contextValue;
    item.iconPath = new vscode.ThemeIcon(view.icon.id, view.icon.color === undefined ? undefined : new vscode.ThemeColor(view.icon.color));
    if (view.decoration !== undefined) {
      item.resourceUri = vscode.Uri.parse(view.decoration);
    }
    if (view.file !== undefined) {
      const uri = workspaceFile(view.file, view.worktree ?? null);
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
    const children = [...this.tree.childrenOf(node === undefined ? undefined : this.tree.getNode(node.id))];
    for (const child of children) {
      if (child.kind === 'session') {
        this.drawnSessions.set(child.id, child);
      }
    }
    return children;
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

  private remember(element: PlanNode, open: boolean): void {
    (open ? this.openRows : this.closedRows).add(element.id);
    (open ? this.closedRows : this.openRows).delete(element.id);
  }

  private render(update: PlanUpdate): void {
    const { plans } = this.sync;
    const previous = this.tree;
    const active = plans.activeSession();
    // A session drawn alone had its tasks in sight: when another appears, its row starts
    // open, as do the followed one and one that appears beside others (news); at the first
    // listing only the followed one. Then rows stay as the person left them.
    const lone = previous.roots.length > 0 && previous.roots.every((root) => root.kind !== 'session') ? previous.roots[0]?.session : undefined;
    const appeared = (session: string): boolean => !previous.isEmpty && !previous.roots.some((root) => root.session === session);
    this.tree = PlanTree.build(plans.sessions(), {
      kept: plans.kept,
      checkouts: plans.checkouts,
      expanded: (session) =>
        !this.closedRows.has(sessionNodeId(session)) && (session === active || session === lone || appeared(session)),
    });
    this.refresh(update.session);

    const state = plans.activeState();
    const remaining = remainingTasks(state);
    this.treeView.badge =
      remaining > 0 ? { value: remaining, tooltip: remaining === 1 ? '1 task remaining' : `${remaining} tasks remaining` } : undefined;
    const checkout = state === undefined ? null : (plans.checkouts.get(state.session) ?? null);
    const header = viewHeader(state, plans.sessionsWithTasks().length > 1, checkout);
    this.treeView.title = header.title;
    this.treeView.description = header.description;
    void vscode.commands.executeCommand('setContext', 'plansight.hasPlan', !this.tree.isEmpty);

    if (update.session !== undefined && update.currentChanged) {
      this.revealCurrent(update.session);
    }
  }

  /**
   * Redraws only the changed session's row and what is under it when the rows at the top
   * stay the same; else the whole tree. Stable ids keep what the person expanded either way.
   */
  private refresh(session: string | undefined): void {
    const roots = this.tree.roots.map((root) => root.id);
    const same = roots.length === this.drawnRoots.length && roots.every((id, index) => id === this.drawnRoots[index]);
    this.drawnRoots = roots;
    const drawn = session === undefined ? undefined : this.drawnSessions.get(sessionNodeId(session));
    if (same && drawn !== undefined && this.tree.getNode(drawn.id) !== undefined) {
      this.changeEmitter.fire(drawn);
      return;
    }
    this.drawnSessions = new Map();
    this.changeEmitter.fire(undefined);
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
