/**
 * The Plan view's rows before activate(), from the last seen file (issue 33, item 12): read
 * as the bundle is evaluated, drawn the moment the workbench asks, marked not live. The view
 * activate() makes takes them over (PlanView.adopt); its PlanSync holds writes until the
 * server's listing replaces them, as for the plans last seen in workspaceState.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { lastListing } from './lastListing';
import { lastSeenFile } from './lastSeenFile';
import { KEPT_KEYS, readKept, type LastSeenPlace } from './lastSeenMemento';
import { planTreeItem, planViewTree, type RowsLeft } from './planRows';
import { PlanState } from './planState';
import { PlanTree, viewOf, type PlanNode } from './planTree';
import type { KeptValues } from './lastSeenFile';

/** What the bundle found at its evaluation: where the workspace's file is, what it held. */
export interface LastSeenAtStart {
  readonly place: LastSeenPlace | undefined;
  /** The file's values, when they drew rows (PlanSync and PlanView then read them). */
  readonly taken: KeptValues | undefined;
  readonly rows: LastSeenRows | undefined;
}

/**
 * The workspace as VS Code names it to the extension host before any extension runs: its
 * .code-workspace file, else its folders. A window with no folder has no file.
 */
function workspaceName(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  if (file !== undefined && file.scheme !== 'untitled') {
    return file.toString();
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  return folders.length === 0 ? undefined : folders.map((folder) => folder.uri.toString()).join('\n');
}

/** Reads the workspace's last seen file; never throws (a file it cannot draw is not taken). */
export function lastSeenAtStart(followLatest: boolean): LastSeenAtStart {
  try {
    const folder = workspaceName();
    if (folder === undefined) {
      return { place: undefined, taken: undefined, rows: undefined };
    }
    const place = { file: lastSeenFile(folder), folder };
    const taken = readKept(place);
    const rows = taken === undefined ? undefined : LastSeenRows.of(taken, followLatest);
    return { place, taken: rows === undefined ? undefined : taken, rows };
  } catch {
    return { place: undefined, taken: undefined, rows: undefined };
  }
}

export class LastSeenRows implements RowsLeft {
  private constructor(
    readonly tree: PlanTree,
    readonly openRows: ReadonlySet<string>,
    readonly closedRows: ReadonlySet<string>,
  ) {}

  /**
   * The rows of the values kept, as the view will draw them (the same steps as PlanSync's
   * takeLastSeen and PlanView's first build), or undefined when there is no plan in them or
   * they cannot be drawn (damaged): each row is drawn once here, so none fails later.
   */
  static of(values: KeptValues, followLatest: boolean): LastSeenRows | undefined {
    const strings = (key: string): string[] => (values[key] as string[] | undefined) ?? []; // shapes checked by readKept
    const last = lastListing({ get: (key: string): unknown => values[key] } as vscode.Memento);
    if (last === undefined) {
      return undefined;
    }
    try {
      const plans = new PlanState(values[KEPT_KEYS.chosenSession] as string | undefined, followLatest);
      plans.rememberOrder(strings(KEPT_KEYS.order));
      plans.replaceAll(last.states);
      plans.setCheckouts(last.sessions);
      const rows: RowsLeft = {
        openRows: new Set(strings(KEPT_KEYS.openRows)),
        closedRows: new Set(strings(KEPT_KEYS.closedRows)),
      };
      const tree = planViewTree(plans, PlanTree.build([]), rows, { hideFinished: values[KEPT_KEYS.hideFinished] === true });
      const unseen = [...tree.roots];
      for (let node = unseen.pop(); node !== undefined; node = unseen.pop()) {
        viewOf(node);
        unseen.push(...tree.childrenOf(node));
      }
      return tree.isEmpty ? undefined : new LastSeenRows(tree, rows.openRows, rows.closedRows);
    } catch {
      return undefined; // a plan this extension cannot draw: the server's instead
    }
  }

  getChildren(element?: PlanNode): PlanNode[] {
    return [...this.tree.childrenOf(element === undefined ? undefined : this.tree.getNode(element.id))];
  }

  getTreeItem(element: PlanNode): vscode.TreeItem {
    // The extension's folder, as activate() will have it: out/extension.js is in out/.
    return planTreeItem(element, this, vscode.Uri.file(path.join(__dirname, '..')));
  }
}
