import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkoutFolder, mainWorkingTree } from '../../src/checkoutRoot';
import { PlanTree, viewHeader, viewOf, type PlanNode } from '../../src/planTree';
import type { Checkout } from '../../src/protocol';
import { phase, state, task } from './fixtures';

function tree(checkouts: Record<string, Checkout | null>): PlanTree {
  const states = Object.keys(checkouts).map((session) =>
    state(session, [phase('Todos', task('t1', 'Fix it', 'in_progress', { files: ['src/app.py'] }))]),
  );
  return PlanTree.build(states, { checkouts: new Map(Object.entries(checkouts)), expanded: () => true });
}

describe('a session row shows its checkout (v4)', () => {
  const drawn = tree({
    feature: { worktree: 'trees/feature', branch: 'feature' },
    main: { worktree: null, branch: 'main' },
    detached: { worktree: '/work/elsewhere/wt', branch: null },
    unknown: null,
  });
  const rows = new Map(drawn.roots.map((node) => [node.session, viewOf(node)]));

  it('puts the branch beside the progress, the worktree in the tooltip', () => {
    assert.equal(rows.get('feature')?.description, '0/1 · ⎇ feature');
    assert.match(rows.get('feature')?.tooltip ?? '', /Checkout: branch feature, in worktree trees\/feature/);
    assert.equal(rows.get('main')?.description, '0/1 · ⎇ main');
    assert.match(rows.get('main')?.tooltip ?? '', /in the main working tree/);
  });

  it("names a detached worktree by its folder, and says nothing of a checkout it doesn't know", () => {
    assert.equal(rows.get('detached')?.description, '0/1 · ⎇ wt (detached)');
    assert.equal(rows.get('unknown')?.description, '0/1');
    assert.doesNotMatch(rows.get('unknown')?.tooltip ?? '', /Checkout/);
  });

  it("puts a lone session's checkout in the view's header (it has no row)", () => {
    const lone = state('s', [phase('Todos', task('t1', 'Fix it'))], { title: 'Fix the login' });
    assert.equal(viewHeader(lone, false, { worktree: 'trees/feature', branch: 'feature' }).description, '0/1 · 0% · Fix the login · ⎇ feature');
    assert.equal(viewHeader(lone, false).description, '0/1 · 0% · Fix the login');
  });

  it("gives a task's files the worktree they are relative to", () => {
    const feature = drawn.roots.find((node) => node.session === 'feature') as PlanNode;
    const files = drawn.childrenOf(drawn.childrenOf(feature)[0]).filter((node) => node.kind === 'file');
    assert.deepEqual(
      files.map((node) => [viewOf(node).file, viewOf(node).worktree]),
      [['src/app.py', 'trees/feature']],
    );
  });
});

describe("the folder a session's files open in", () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'plansight-checkouts-')));
  after(() => rmSync(root, { recursive: true, force: true }));
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'ignore' });
  };
  const main = path.join(root, 'repo');
  mkdirSync(main);
  git(main, 'init', '-q');
  writeFileSync(path.join(main, 'README'), 'hello\n');
  git(main, 'add', 'README');
  git(main, 'commit', '-q', '-m', 'first');
  git(main, 'worktree', 'add', '-q', '-b', 'feature', path.join(main, 'trees', 'feature'));
  git(main, 'worktree', 'add', '-q', '-b', 'other', path.join(main, 'trees', 'other'));
  const feature = path.join(main, 'trees', 'feature');
  const other = path.join(main, 'trees', 'other');

  it('finds the main working tree from a linked worktree, and none from the main one', async () => {
    assert.equal(await mainWorkingTree(feature), main);
    assert.equal(await mainWorkingTree(main), undefined);
  });

  it('is the session\'s worktree from a window open on any worktree of the repository', async () => {
    for (const window of [main, feature, other]) {
      assert.equal(await checkoutFolder(window, 'trees/feature'), feature);
      assert.equal(await checkoutFolder(window, null), main);
    }
    assert.equal(await checkoutFolder(other, '/elsewhere/wt'), '/elsewhere/wt');
  });

  it('keeps the folder itself for a broken `.git` file', async () => {
    const odd = path.join(root, 'odd');
    mkdirSync(odd);
    writeFileSync(path.join(odd, '.git'), 'gitdir: /nowhere/.git/worktrees/x\n');
    assert.equal(await checkoutFolder(odd, null), odd);
  });
});
