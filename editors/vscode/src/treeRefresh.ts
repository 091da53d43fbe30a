/**
 * Which rows a change of the Plan view's tree redraws (issue 34, item 4): the rows that look
 * different or whose children changed, instead of the whole tree. Pure: no `vscode` import,
 * so the unit tests say which change redraws which rows; `planView.ts` fires these rows.
 *
 * VS Code redraws a fired row and fetches its children again (and theirs): a row under a
 * fired one is never listed. The rows at the top have no row above them, so a change of
 * which rows are at the top (a task added to a lone session's lone phase, a second session)
 * redraws the whole tree, as does a change that touches most rows (one redraw then costs
 * less than a redraw of each).
 */
import { viewOf, type PlanNode, type PlanTree } from './planTree';

export type TreeRefresh =
  /** Redraw everything: the top rows changed, or most rows did. */
  | { readonly whole: true }
  /** Redraw these rows (ids, top-most first; empty: nothing to redraw). */
  | { readonly whole: false; readonly ids: readonly string[] };

/** What a row looks like, as one string to compare (cached: a tree is compared twice). */
const looks = new WeakMap<PlanNode, string>();

function looksOf(node: PlanNode): string {
  let seen = looks.get(node);
  if (seen === undefined) {
    const view = viewOf(node);
    // How a row starts (open or folded) is VS Code's to keep once drawn; whether it has
    // children at all is part of how it looks.
    seen = JSON.stringify({ ...view, collapsible: view.collapsible !== 'none' });
    looks.set(node, seen);
  }
  return seen;
}

function sameIds(a: readonly PlanNode[], b: readonly PlanNode[]): boolean {
  return a.length === b.length && a.every((node, index) => node.id === b[index]?.id);
}

/** The rows to redraw to go from `before` to `after`. */
export function treeRefresh(before: PlanTree, after: PlanTree): TreeRefresh {
  if (!sameIds(before.roots, after.roots)) {
    return { whole: true };
  }
  const ids: string[] = [];
  const walk = (nodes: readonly PlanNode[]): void => {
    for (const node of nodes) {
      const was = before.getNode(node.id);
      const children = after.childrenOf(node);
      if (was === undefined || looksOf(was) !== looksOf(node) || !sameIds(before.childrenOf(was), children)) {
        ids.push(node.id); // its children come again with it
      } else {
        walk(children);
      }
    }
  };
  walk(after.roots);
  if (ids.length > 0 && ids.length * 2 > after.size) {
    return { whole: true };
  }
  return { whole: false, ids };
}
