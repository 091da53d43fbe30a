/**
 * The files a task touched, as the person sees them: open one, or its diff against `HEAD`.
 * Paths on the wire are relative to the session's checkout (v4, `checkoutRoot.ts`); the
 * diff's left side is a `git:` URI served by VS Code's built-in Git extension (also in
 * code-server), made by its own API when it is there.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkoutFolder } from './checkoutRoot';

/** The subset of the Git extension's API (`vscode.git`, `getAPI(1)`) used here. */
interface GitApi {
  toGitUri(uri: vscode.Uri, ref: string): vscode.Uri;
}

interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

/**
 * The file of a path in the first folder (the one the server's store is keyed to), for the
 * row's icon; `worktree`: the session's checkout (see `checkoutFolder`), taken as is here.
 */
export function workspaceFile(relative: string, worktree: string | null = null): vscode.Uri | undefined {
  if (worktree !== null && path.isAbsolute(worktree)) {
    return vscode.Uri.file(path.join(worktree, ...relative.split('/')));
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const inside = worktree === null ? [] : worktree.split('/');
  return folder === undefined ? undefined : vscode.Uri.joinPath(folder.uri, ...inside, ...relative.split('/'));
}

/** The task's file where it is: in the checkout it was changed in, from any folder's window. */
async function existing(relative: string, worktree: string | null): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  for (const folder of folders) {
    const root = folder.uri.scheme === 'file' ? await checkoutFolder(folder.uri.fsPath, worktree) : undefined;
    const uri =
      root === undefined ? vscode.Uri.joinPath(folder.uri, ...relative.split('/')) : vscode.Uri.file(path.join(root, ...relative.split('/')));
    try {
      await vscode.workspace.fs.stat(uri);
      return uri;
    } catch {
      // Not in this folder: try the next.
    }
  }
  return undefined;
}

export async function openTaskFile(relative: string, worktree: string | null = null): Promise<void> {
  const uri = await existing(relative, worktree);
  if (uri === undefined) {
    void vscode.window.showWarningMessage(`Plansight: ${relative} is not in this workspace (any more).`);
    return;
  }
  await vscode.commands.executeCommand('vscode.open', uri);
}

export async function openTaskFileDiff(relative: string, worktree: string | null = null): Promise<void> {
  const uri = await existing(relative, worktree);
  if (uri === undefined) {
    void vscode.window.showWarningMessage(`Plansight: ${relative} is not in this workspace (any more).`);
    return;
  }
  const git = await gitApi();
  if (git === undefined) {
    void vscode.window.showWarningMessage('Plansight: the diff against HEAD needs the built-in Git extension, which is disabled or missing.');
    return;
  }
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  await vscode.commands.executeCommand('vscode.diff', git.toGitUri(uri, 'HEAD'), uri, `${name} (HEAD ↔ Working Tree)`);
}

async function gitApi(): Promise<GitApi | undefined> {
  const extension = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (extension === undefined) {
    return undefined;
  }
  const exports = extension.isActive ? extension.exports : await extension.activate();
  return exports.enabled ? exports.getAPI(1) : undefined;
}
