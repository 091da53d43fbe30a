/**
 * How the Plan view draws: the tree of the plans held, each row's TreeItem. Shared by the
 * view (planView.ts) and the rows it gives before activate() from the plans last seen
 * (lastSeenRows.ts), so that both draw the same rows.
 */
import * as vscode from 'vscode';
import type { ViewFilter } from './planFilter';
import type { PlanState } from './planState';
import { workspaceFile } from './taskFiles';
import { logoPaths } from './sessionAgents';
import { PlanTree, sessionNodeId, viewOf, type Icon, type PlanNode } from './planTree';

/** The view's message while the plans drawn are the last seen (issue 33, item 12). */
export const LAST_SEEN_MESSAGE = 'Connecting… the plan as last seen here, not live yet.';

/** The rows the person opened and closed (by id): a row starts as they left it. */
export interface RowsLeft {
  readonly openRows: ReadonlySet<string>;
  readonly closedRows: ReadonlySet<string>;
}

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

/** A row's icon: an agent's own logo, in the grey of VS Code's icons on light and on dark themes; else a codicon. */
export function iconPath(icon: Icon, extensionUri: vscode.Uri | undefined): vscode.ThemeIcon | { light: vscode.Uri; dark: vscode.Uri } {
  if (icon.agent === true && extensionUri !== undefined) {
    const paths = logoPaths(icon.id);
    return { light: vscode.Uri.joinPath(extensionUri, ...paths.light), dark: vscode.Uri.joinPath(extensionUri, ...paths.dark) };
  }
  return new vscode.ThemeIcon(icon.id, icon.color === undefined ? undefined : new vscode.ThemeColor(icon.color));
}

/** How a row starts: as the person left it, else as the tree says. */
export function startsAs(node: PlanNode, collapsible: 'none' | 'collapsed' | 'expanded', rows: RowsLeft): 'none' | 'collapsed' | 'expanded' {
  if (collapsible === 'none') {
    return 'none';
  }
  return rows.openRows.has(node.id) ? 'expanded' : rows.closedRows.has(node.id) ? 'collapsed' : collapsible;
}

/** The tree of the plans held, its rows opened as `previous` and the person had them. */
export function planViewTree(plans: PlanState, previous: PlanTree, rows: RowsLeft, view: ViewFilter): PlanTree {
  const active = plans.activeSession();
  // A session drawn alone had its tasks in sight: when another appears, its row starts
  // open, as do the followed one and one that appears beside others (news); at the first
  // listing only the followed one. Then rows stay as the person left them.
  const lone = previous.roots.length > 0 && previous.roots.every((root) => root.kind !== 'session') ? previous.roots[0]?.session : undefined;
  const appeared = (session: string): boolean => !previous.isEmpty && !previous.roots.some((root) => root.session === session);
  return PlanTree.build(plans.sessions(), {
    kept: plans.kept,
    checkouts: plans.checkouts,
    view,
    expanded: (session) =>
      rows.openRows.has(sessionNodeId(session)) ||
      (!rows.closedRows.has(sessionNodeId(session)) && (session === active || session === lone || appeared(session))),
  });
}

/** A row as VS Code draws it. */
export function planTreeItem(node: PlanNode, rows: RowsLeft, extensionUri: vscode.Uri | undefined): vscode.TreeItem {
  const view = viewOf(node, { formatTime: (iso) => new Date(iso).toLocaleString() });
  const item = new vscode.TreeItem(view.label, COLLAPSIBLE[startsAs(node, view.collapsible, rows)]);
  item.id = node.id;
  item.description = view.description;
  item.contextValue = view.contextValue;
  item.iconPath = iconPath(view.icon, extensionUri);
  if (view.decoration !== undefined) {
    item.resourceUri = vscode.Uri.parse(view.decoration);
  }
  if (view.checked !== undefined) {
    item.checkboxState = {
      state: view.checked ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
      tooltip: view.checked ? 'Completed: uncheck to reopen it' : 'Check to complete it',
    };
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
