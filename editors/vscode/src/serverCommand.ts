/**
 * Which process runs `plansight serve`: the `plansight.server.command` executable when it
 * is found, else `<plansight.server.python> -m plansight serve`. Pure apart from the
 * injected file check, so the unit tests cover every branch.
 */
import * as path from 'node:path';

export interface ServerSettings {
  /** `plansight.server.command`: a bare name looked up on PATH, or a path. */
  readonly command: string;
  /** `plansight.server.python`: an interpreter with the plansight package, or empty. */
  readonly python: string;
  /** `plansight.store.path`: passed as `PLANSIGHT_DB` when not empty (never on the command
   * line, which every user of the machine sees in `ps`: a team store's URL holds a password). */
  readonly storePath: string;
}

export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the extension host's environment for the server. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Lookup {
  /** The PATH to search, as the environment holds it. */
  readonly pathVariable: string | undefined;
  /** Where relative paths in the settings start: the workspace folder. */
  readonly cwd: string | undefined;
  readonly isExecutable: (file: string) => boolean;
  readonly delimiter?: string;
}

export type Resolution = { readonly ok: true; readonly server: ServerCommand } | { readonly ok: false; readonly reason: string };

export function resolveServerCommand(settings: ServerSettings, lookup: Lookup): Resolution {
  const store = settings.storePath.trim();
  const serveArgs = ['serve'];
  const env = store === '' ? {} : { env: { PLANSIGHT_DB: expandHome(store) } };
  const command = settings.command.trim();
  if (command !== '') {
    const found = findExecutable(command, lookup);
    if (found !== undefined) {
      return { ok: true, server: { command: found, args: serveArgs, ...env } };
    }
  }
  const python = settings.python.trim();
  if (python !== '') {
    const found = findExecutable(python, lookup);
    if (found !== undefined) {
      return { ok: true, server: { command: found, args: ['-m', 'plansight', ...serveArgs], ...env } };
    }
    return { ok: false, reason: `the Python interpreter "${python}" (plansight.server.python) was not found` };
  }
  const what = command === '' ? 'plansight.server.command is empty' : `"${command}" was not found${isBareName(command) ? ' on PATH' : ''}`;
  return { ok: false, reason: `${what} and plansight.server.python is not set` };
}

function isBareName(command: string): boolean {
  return !command.includes('/') && !command.includes('\\');
}

/** An absolute path to run, or undefined: a bare name is searched on PATH, a path is checked. */
export function findExecutable(command: string, lookup: Lookup): string | undefined {
  if (!isBareName(command)) {
    const file = path.resolve(lookup.cwd ?? '.', expandHome(command));
    return lookup.isExecutable(file) ? file : undefined;
  }
  const dirs = (lookup.pathVariable ?? '').split(lookup.delimiter ?? path.delimiter).filter((dir) => dir !== '');
  for (const dir of dirs) {
    const file = path.join(dir, command);
    if (lookup.isExecutable(file)) {
      return file;
    }
  }
  return undefined;
}

function expandHome(file: string): string {
  const home = process.env.HOME;
  return home !== undefined && (file === '~' || file.startsWith('~/')) ? path.join(home, file.slice(1)) : file;
}
