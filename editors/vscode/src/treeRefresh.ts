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
  const fired = withMovedRows(before, after, ids);
  if (fired === undefined || (fired.length > 0 && fired.length * 2 > after.size)) {
    return { whole: true };
  }
  return { whole: false, ids: fired };
}

/**
 * The rows to fire so that no row is drawn twice (undefined: the whole tree). VS Code
 * refreshes each fired row on its own and at once (its treeView.ts: `Promise.all` of
 * `updateChildren`): a row that moved from under one fired row to under another would show
 * under the new one as soon as that one's children came, before the old one's left. So
 * for each moved row the row above both its old and its new place is fired in their stead
 * (none above both, at the top: the whole tree).
 */
function withMovedRows(before: PlanTree, after: PlanTree, ids: readonly string[]): readonly string[] | undefined {
  if (ids.length === 0) {
    return ids;
  }
  const fire = new Set(ids);
  const above = (tree: PlanTree, id: string | undefined): string[] => {
    const chain: string[] = [];
    for (let node = id === undefined ? undefined : tree.getNode(id); node !== undefined; node = tree.parentOf(node)) {
      chain.push(node.id);
    }
    return chain;
  };
  for (const id of ids) {
    const stack = [...after.childrenOf(after.getNode(id))];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      const was = before.getNode(node.id);
      if (was !== undefined && was.parentId !== node.parentId) {
        const old = new Set(above(before, was.parentId));
        const common = above(after, node.parentId).find((candidate) => old.has(candidate));
        if (common === undefined) {
          return undefined;
        }
        fire.add(common);
      }
      stack.push(...after.childrenOf(node));
    }
  }
  if (fire.size === ids.length) {
    return ids;
  }
  // Top-most first, and no row under another fired one (VS Code redraws it with its parent).
  const ordered: string[] = [];
  const walk = (nodes: readonly PlanNode[]): void => {
    for (const node of nodes) {
      if (fire.has(node.id)) {
        ordered.push(node.id);
      } else {
        walk(after.childrenOf(node));
      }
    }
  };
  walk(after.roots);
  return ordered;
}
