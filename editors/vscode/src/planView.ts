/**
 * The Plan view: a TreeDataProvider that draws the PlanTree, plus the view's badge (tasks
 * remaining), title and description (`3/8 · 37%`), the decorations of task rows (priority,
 * finished rows dimmed) and the reveal of the task in progress. It holds the tree it draws
 * and which session rows the person expanded or collapsed, nothing else.
 */
import { KEPT_KEYS } from './lastSeenMemento';
import * as vscode from 'vscode';
import { filterMessage, type TaskFilter, type ViewFilter } from './planFilter';
import type { PlanState } from './planState';
import type { PlanSync, PlanUpdate } from './planSync';
import { iconPath, LAST_SEEN_MESSAGE, planTreeItem, planViewTree, startsAs } from './planRows';
import type { EarlyTreeView, GivenEarly } from './earlyTreeView';
import { treeRefresh } from './treeRefresh';
import { PlanTree, remainingTasks, sessionRowIcon, TASK_DECORATION_SCHEME, taskDecoration, viewHeader, viewOf, type PlanNode } from './planTree';

export const PLAN_VIEW_ID = 'plansight.plan';

/** How the Plan view's TreeView is made (earlyTreeView.ts makes it, before activate()). */
export const PLAN_VIEW_OPTIONS = {
  showCollapseAll: true,
  canSelectMany: true,
  // A task's checkbox is its own: checking a parent is the server's business (v4).
  manageCheckboxStateManually: true,
} as const;

/** Workspace state: what the view hides, the rows opened and closed, the sessions' order. */
const HIDE_FINISHED_KEY = KEPT_KEYS.hideFinished;
const OPEN_ROWS_KEY = KEPT_KEYS.openRows;
const CLOSED_ROWS_KEY = KEPT_KEYS.closedRows;
const ORDER_KEY = KEPT_KEYS.order;
/** Rows remembered at most, the most recently touched kept. */
const MAX_REMEMBERED_ROWS = 500;

export class PlanView implements vscode.TreeDataProvider<PlanNode>, vscode.Disposable {
  private tree = PlanTree.build([]);
  private readonly changeEmitter = new vscode.EventEmitter<PlanNode | PlanNode[] | undefined>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  readonly treeView: vscode.TreeView<PlanNode>;
  /**
   * The rows as VS Code got them, by id: VS Code knows a row by the object it was given, so
   * a redraw of a row, a reveal and a parent must name that object, not a newer one.
   */
  private drawn = new Map<string, PlanNode>();
  /** What the view shows besides the rows, as last set: set again only when it changes. */
  private shown: { badge?: string; title?: string; description?: string; message?: string; hasPlan?: boolean } = {};
  /**
   * The ids of rows the person opened or closed: a row drawn anew (a task that moved under
   * a session row when a second session appeared) starts as they left it.
   */
  readonly openRows: Set<string>;
  readonly closedRows: Set<string>;
  /** What the view hides: Hide Finished is remembered per workspace, a typed filter is not. */
  private hideFinishedValue: boolean;
  private filterValue: TaskFilter | undefined;
  /** The doctor's finding (AgentsWelcome), shown under the filter's line. */
  private doctorMessage: string | undefined;
  /** Settles when VS Code first got rows for the top of the view (the start's timings). */
  readonly firstRows: Promise<void>;
  private gaveFirstRows: (() => void) | undefined;
  /**
   * Settles when VS Code also got the rows under each row that starts open: all the view
   * draws at once. Each is a round trip of its own between the workbench and the extension
   * host, which must be free to answer it (the server's start waits for this).
   */
  readonly firstScreen: Promise<void>;
  private gaveFirstScreen: (() => void) | undefined;
  /** The rows that start open whose rows VS Code has not asked for yet (after the first rows). */
  private readonly openNotFetched = new Set<string>();

  readonly onDidChangeTreeData = this.changeEmitter.event;

  constructor(
    private readonly sync: PlanSync,
    /** The view's TreeView, made as the bundle was evaluated (earlyTreeView.ts). */
    early: EarlyTreeView<PlanNode>,
    private readonly memento?: vscode.Memento,
    dragAndDropController?: vscode.TreeDragAndDropController<PlanNode>,
    /** The extension's folder: the agents' logos are in its out/media/agents. */
    private readonly extensionUri?: vscode.Uri,
  ) {
    this.firstRows = new Promise((resolve) => {
      this.gaveFirstRows = resolve;
    });
    this.firstScreen = new Promise((resolve) => {
      this.gaveFirstScreen = resolve;
    });
    this.openRows = new Set(memento?.get<string[]>(OPEN_ROWS_KEY) ?? []);
    this.closedRows = new Set(memento?.get<string[]>(CLOSED_ROWS_KEY) ?? []);
    this.hideFinishedValue = memento?.get<boolean>(HIDE_FINISHED_KEY) ?? false;
    // The plans already held (the last seen, drawn before the server answers) are in the
    // tree before VS Code gets the provider: its first fetch has them, and no refresh
    // follows to fetch and draw them a second time in the window's busiest second.
    this.tree = this.build(this.tree);
    this.treeView = early.treeView;
    // The message the view was given before activate() (the plans last seen, from their file).
    this.shown.message = early.treeView.message;
    void vscode.commands.executeCommand('setContext', 'plansight.hidingFinished', this.hideFinishedValue);
    this.disposables.push(
      early.provide(this, dragAndDropController),
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
    this.present({ currentChanged: false });
  }

  /**
   * Puts back the sessions' order the view last drew (or the window before a reload): before
   * any session is taken, the plans last seen included, so each goes back to its place.
   */
  static restoreOrder(plans: PlanState, memento: vscode.Memento): void {
    plans.rememberOrder(memento.get<string[]>(ORDER_KEY) ?? []);
  }

  private startsAs(node: PlanNode, collapsible: 'none' | 'collapsed' | 'expanded'): 'none' | 'collapsed' | 'expanded' {
    return startsAs(node, collapsible, this);
  }

  /** A session's icon where a picker lists it: its agent's logo, else the row's codicon. */
  sessionIconPath(session: string): vscode.ThemeIcon | { light: vscode.Uri; dark: vscode.Uri } {
    return iconPath(sessionRowIcon(session), this.extensionUri);
  }

  getTreeItem(element: PlanNode): vscode.TreeItem {
    // VS Code hands back the object it was given; the tree may hold a newer one by now.
    return planTreeItem(this.tree.getNode(element.id) ?? element, this, this.extensionUri);
  }

  getChildren(node?: PlanNode): PlanNode[] {
    const children = [...this.tree.childrenOf(node === undefined ? undefined : this.tree.getNode(node.id))];
    for (const child of children) {
      this.drawn.set(child.id, child);
    }
    if (node === undefined && children.length > 0 && this.gaveFirstRows !== undefined) {
      this.gaveFirstRows();
      this.gaveFirstRows = undefined;
      this.awaitOpen(children);
    } else if (node !== undefined && this.openNotFetched.delete(node.id)) {
      this.awaitOpen(children);
    }
    return children;
  }

  /**
   * Takes over the rows given before activate() (the plans last seen, from their file:
   * `early`, drawn as `earlyTree`): VS Code knows them by those objects, and has asked for
   * the rows under some. The same rows as this view's (the same values drawn the same way):
   * kept as given. Others (never expected): VS Code is told to ask again, of this view.
   */
  adopt(early: GivenEarly<PlanNode>, earlyTree: PlanTree | undefined): void {
    if (early.asked.length === 0) {
      return;
    }
    const change = earlyTree === undefined ? undefined : treeRefresh(earlyTree, this.tree);
    if (change === undefined || change.whole || change.ids.length > 0) {
      this.redraw();
      return;
    }
    for (const node of early.asked) {
      this.getChildren(node); // as if asked here: the first rows and the open rows' rows known
    }
    for (const node of early.given) {
      if (this.drawn.has(node.id)) {
        this.drawn.set(node.id, node);
      }
    }
  }

  /** Waits for VS Code to ask for the rows under those of `rows` that start open. */
  private awaitOpen(rows: readonly PlanNode[]): void {
    for (const row of rows) {
      if (this.startsAs(row, viewOf(row).collapsible) === 'expanded') {
        this.openNotFetched.add(row.id);
      }
    }
    if (this.openNotFetched.size === 0 && this.gaveFirstScreen !== undefined) {
      this.gaveFirstScreen();
      this.gaveFirstScreen = undefined;
    }
  }

  getParent(node: PlanNode): PlanNode | undefined {
    const known = this.tree.getNode(node.id);
    const parent = known === undefined ? undefined : this.tree.parentOf(known);
    return parent === undefined ? undefined : this.drawnNode(parent);
  }

  /** The object VS Code knows a row by, else the tree's (a row it has not fetched yet). */
  private drawnNode<T extends PlanNode>(node: T): T {
    return (this.drawn.get(node.id) as T | undefined) ?? node;
  }

  /** Shows a task's row, its parents opened (a task just moved under another, or added as a subtask). */
  async revealTask(session: string, taskId: string): Promise<void> {
    const node = this.tree.taskNode(session, taskId);
    if (node !== undefined) {
      await this.treeView.reveal(this.drawnNode(node), { select: true, focus: false });
    }
  }

  /** Shows a session's node (or its task in progress) in the view. */
  async revealSession(session: string): Promise<void> {
    const state = this.sync.plans.get(session);
    const current = state?.current;
    const node = (current ? this.tree.taskNode(session, current.id) : undefined) ?? this.tree.roots.find((root) => root.session === session);
    if (node !== undefined) {
      await this.treeView.reveal(this.drawnNode(node), { select: false, focus: false, expand: true });
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  /** The tree as drawn now (the commands read the rows the person acts on from it). */
  get planTree(): PlanTree {
    return this.tree;
  }

  get hideFinished(): boolean {
    return this.hideFinishedValue;
  }

  /** Hides or shows the completed and dropped tasks; remembered for the workspace. */
  async setHideFinished(hide: boolean): Promise<void> {
    this.hideFinishedValue = hide;
    await vscode.commands.executeCommand('setContext', 'plansight.hidingFinished', hide);
    await this.memento?.update(HIDE_FINISHED_KEY, hide);
    this.render({ currentChanged: false });
  }

  get filter(): TaskFilter | undefined {
    return this.filterValue;
  }

  /** Shows only the tasks that match (undefined: all). */
  async setFilter(filter: TaskFilter | undefined): Promise<void> {
    this.filterValue = filter;
    await vscode.commands.executeCommand('setContext', 'plansight.filtering', filter !== undefined);
    this.render({ currentChanged: false });
  }

  /** Draws every row again (a checkbox the server did not follow goes back). */
  redraw(): void {
    this.drawn = new Map();
    this.changeEmitter.fire(undefined);
  }

  /** The doctor's finding for the view's message (undefined: none). */
  setDoctorMessage(message: string | undefined): void {
    this.doctorMessage = message;
    this.showMessage();
  }

  private get viewFilter(): ViewFilter {
    return this.filterValue === undefined ? { hideFinished: this.hideFinishedValue } : { hideFinished: this.hideFinishedValue, filter: this.filterValue };
  }

  private showMessage(): void {
    const { shown, total } = this.tree.counts;
    // The plans last seen here, drawn before the server answers (issue 33, item 12).
    const lastSeen = this.sync.lastSeen ? LAST_SEEN_MESSAGE : undefined;
    const lines = [lastSeen, filterMessage(this.viewFilter, shown, total), this.doctorMessage].filter((line) => line !== undefined);
    const message = lines.length === 0 ? undefined : lines.join('\n\n');
    if (message !== this.shown.message) {
      this.shown.message = message;
      this.treeView.message = message;
    }
  }

  private remember(element: PlanNode, open: boolean): void {
    (open ? this.openRows : this.closedRows).add(element.id);
    (open ? this.closedRows : this.openRows).delete(element.id);
    // Kept for the workspace: a restart or a reload draws the rows as the person left them.
    void this.memento?.update(OPEN_ROWS_KEY, [...this.openRows].slice(-MAX_REMEMBERED_ROWS));
    void this.memento?.update(CLOSED_ROWS_KEY, [...this.closedRows].slice(-MAX_REMEMBERED_ROWS));
  }

  /**
   * A session row the view opened by itself (it appeared, or it is followed) is open as the
   * person saw it: kept with the rows they opened, so a restart or a reload draws it open
   * again instead of folding what they were looking at.
   */
  private keepDrawnOpen(tree: PlanTree): void {
    let added = false;
    for (const root of tree.roots) {
      if (root.kind === 'session' && root.expanded && !this.openRows.has(root.id) && !this.closedRows.has(root.id)) {
        this.openRows.add(root.id);
        added = true;
      }
    }
    if (added) {
      void this.memento?.update(OPEN_ROWS_KEY, [...this.openRows].slice(-MAX_REMEMBERED_ROWS));
    }
  }

  private render(update: PlanUpdate): void {
    const previous = this.tree;
    this.tree = this.build(previous);
    this.refresh(previous);
    this.present(update);
  }

  /** The tree of the plans held, its rows opened as `previous` and the person had them. */
  private build(previous: PlanTree): PlanTree {
    const tree = planViewTree(this.sync.plans, previous, this, this.viewFilter);
    this.keepDrawnOpen(tree);
    return tree;
  }

  /** What the view shows besides the rows: its message, badge, title; the order kept. */
  private present(update: PlanUpdate): void {
    const { plans } = this.sync;
    this.showMessage();
    const order = plans.order();
    if (order.length > 0) {
      plans.rememberOrder(order);
      void this.memento?.update(ORDER_KEY, order);
    }

    const state = plans.activeState();
    const checkout = state === undefined ? null : (plans.checkouts.get(state.session) ?? null);
    this.showHeader(remainingTasks(state), viewHeader(state, plans.sessionsWithTasks().length > 1, checkout));

    if (update.session !== undefined && update.currentChanged) {
      this.revealCurrent(update.session);
    }
  }

  /**
   * Redraws the rows that changed since `previous` (`treeRefresh`), by the objects VS Code
   * holds; the whole tree when the top rows changed. Stable ids keep what the person
   * opened, selected and checked either way.
   */
  private refresh(previous: PlanTree): void {
    const change = treeRefresh(previous, this.tree);
    if (change.whole) {
      this.drawn = new Map();
      this.changeEmitter.fire(undefined);
      return;
    }
    const rows: PlanNode[] = [];
    for (const id of change.ids) {
      const row = this.drawn.get(id);
      if (row !== undefined) {
        rows.push(row); // a row VS Code has not fetched is drawn new when it is
      }
      // VS Code fetches the rows under it again: it will know them by the new objects.
      const was = previous.getNode(id);
      const under = was === undefined ? [] : [...previous.childrenOf(was)];
      for (let child = under.pop(); child !== undefined; child = under.pop()) {
        this.drawn.delete(child.id);
        under.push(...previous.childrenOf(child));
      }
    }
    if (rows.length > 0) {
      this.changeEmitter.fire(rows);
    }
  }

  /** The badge (tasks remaining), title and description, each set only when it changes. */
  private showHeader(remaining: number, header: { title: string; description: string | undefined }): void {
    const badge = remaining > 0 ? String(remaining) : undefined;
    if (badge !== this.shown.badge) {
      this.shown.badge = badge;
      this.treeView.badge = remaining > 0 ? { value: remaining, tooltip: remaining === 1 ? '1 task remaining' : `${remaining} tasks remaining` } : undefined;
    }
    if (header.title !== this.shown.title) {
      this.shown.title = header.title;
      this.treeView.title = header.title;
    }
    if (header.description !== this.shown.description) {
      this.shown.description = header.description;
      this.treeView.description = header.description;
    }
    const hasPlan = !this.tree.isEmpty;
    if (hasPlan !== this.shown.hasPlan) {
      this.shown.hasPlan = hasPlan;
      void vscode.commands.executeCommand('setContext', 'plansight.hasPlan', hasPlan);
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
      // (v4) Under a row the person folded, the fold stays: the outermost folded row is shown.
      let shown: PlanNode = node;
      for (let above = this.tree.parentOf(node); above !== undefined; above = this.tree.parentOf(above)) {
        if (this.closedRows.has(above.id)) {
          shown = above;
        }
      }
      this.treeView.reveal(this.drawnNode(shown), { select: false, focus: false }).then(undefined, () => undefined);
    }
  }
}
