/**
 * The places to look for `plansight` that only the editor can tell: the Python extension's
 * selected interpreter's folder (where `pip install` put it) and the login shell's PATH (an
 * editor started from a desktop menu does not have what ~/.profile or ~/.bashrc add).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

const SHELL_SECONDS = 10; // a guard against a shell start that hangs, never a speed check
const MARK = '__PLANSIGHT_PATH__';

export interface MorePlaces {
  /** The selected interpreter's folder, when the Python extension has one. */
  readonly python: string | undefined;
  /** The login shell's PATH, split. */
  readonly shell: readonly string[];
}

/** The folders to search after PATH and the install places. */
export async function moreServerPlaces(folder: string | undefined): Promise<MorePlaces> {
  const [python, shell] = await Promise.all([pythonInterpreterFolder(folder), loginShellPath()]);
  return { python, shell };
}

interface PythonExtensionApi {
  readonly environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { readonly path: string } | undefined;
  };
}

/** The bin folder of the interpreter the Python extension (ms-python.python) has selected. */
async function pythonInterpreterFolder(folder: string | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const interpreter = api.environments?.getActiveEnvironmentPath(folder === undefined ? undefined : vscode.Uri.file(folder))?.path;
    // A bare "python" (no interpreter chosen) names no folder.
    return interpreter !== undefined && path.isAbsolute(interpreter) ? path.dirname(interpreter) : undefined;
  } catch {
    return undefined; // an API of another shape: not a place to look
  }
}

/** PATH as the person's interactive login shell sets it. */
function loginShellPath(): Promise<string[]> {
  const shell = process.env.SHELL;
  if (shell === undefined || shell === '' || process.platform === 'win32') {
    return Promise.resolve([]);
  }
  return new Promise((resolve) => {
    // The marks fence PATH off from whatever the shell's start-up files print.
    execFile(
      shell,
      ['-l', '-i', '-c', `printf '${MARK}%s${MARK}' "$PATH"`],
      { timeout: SHELL_SECONDS * 1000, encoding: 'utf8' },
      (_error, stdout) => {
        const found = new RegExp(`${MARK}(.*)${MARK}`).exec(stdout)?.[1];
        resolve(found === undefined ? [] : found.split(path.delimiter).filter((dir) => dir !== ''));
      },
    );
  });
}

/**
 * The folder of the `plansight` that ran `plansight setup vscode`, as setup recorded it in
 * `$XDG_STATE_HOME/plansight/vscode.json` (server/plansight/setup/editor_command.py): a
 * virtualenv's bin folder that code-server's extension host, with the login shell's PATH,
 * does not have. Undefined without a readable record.
 */
export function recordedServerFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.XDG_STATE_HOME;
  const stateHome = configured !== undefined && path.isAbsolute(configured) ? configured : path.join(env.HOME ?? os.homedir(), '.local', 'state');
  try {
    const record = JSON.parse(fs.readFileSync(path.join(stateHome, 'plansight', 'vscode.json'), 'utf8')) as { command?: unknown };
    return typeof record.command === 'string' && path.isAbsolute(record.command) ? path.dirname(record.command) : undefined;
  } catch {
    return undefined; // no record (setup not run, or run by python -m plansight)
  }
}
