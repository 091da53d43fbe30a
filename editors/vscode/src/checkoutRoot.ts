/**
 * (v4) The folder a session's task files are relative to: the root of the checkout they
 * were changed in. A session's `checkout.worktree` is relative to the main working tree's
 * root (absolute when outside it; null: the main working tree), and the window may be
 * open on any worktree of the repository, so the main working tree is found from the
 * window's folder as the server finds it: from git's own files (a linked worktree's `.git`
 * file names `<common git dir>/worktrees/<name>`, whose `commondir` names the common git
 * dir, a `.git` folder whose parent is the main working tree). Pure Node: unit-tested.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Git's files are a line or two; anything longer is not one of them. */
const MOST_BYTES = 64 * 1024;

async function smallText(file: string): Promise<string | undefined> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(MOST_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return bytesRead > MOST_BYTES ? undefined : buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return (text.split('\n', 1)[0] ?? '').replace(/\r$/, '').trim();
}

/** The main working tree's root when `folder` is a linked worktree's root, else undefined. */
export async function mainWorkingTree(folder: string): Promise<string | undefined> {
  const dotgit = await smallText(path.join(folder, '.git'));
  const line = dotgit === undefined ? '' : firstLine(dotgit);
  if (!line.startsWith('gitdir:')) {
    return undefined; // a `.git` folder (read as nothing), or no checkout here
  }
  const gitdir = path.resolve(folder, line.slice('gitdir:'.length).trim());
  if (path.basename(path.dirname(gitdir)) !== 'worktrees') {
    return undefined; // a submodule's `.git` file
  }
  const common = await smallText(path.join(gitdir, 'commondir'));
  if (common === undefined || firstLine(common) === '') {
    return undefined;
  }
  const commonDir = path.resolve(gitdir, firstLine(common));
  if (path.basename(commonDir) !== '.git' || path.dirname(path.dirname(gitdir)) !== commonDir) {
    return undefined; // a bare repository's worktree keeps its own root
  }
  const config = (await smallText(path.join(commonDir, 'config'))) ?? '';
  if (/^\s*bare\s*=\s*true\s*$/im.test(config)) {
    return undefined;
  }
  return path.dirname(commonDir);
}

/** The folder a session's files are relative to, for a window open on `folder`. */
export async function checkoutFolder(folder: string, worktree: string | null): Promise<string> {
  if (worktree !== null && path.isAbsolute(worktree)) {
    return worktree;
  }
  const main = (await mainWorkingTree(folder)) ?? folder;
  return worktree === null ? main : path.join(main, ...worktree.split('/'));
}
