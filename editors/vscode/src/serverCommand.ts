/**
 * Which process runs `plansight serve`: the `plansight.server.command` executable when it
 * is found (on PATH, else where people install it: see `installPlaces`), else
 * `<plansight.server.python> -m plansight serve`. Pure apart from the injected file check,
 * so the unit tests cover every branch.
 */
import * as fs from 'node:fs';
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
  /**
   * Folders searched after PATH for a bare name, in order: where installers put
   * `plansight` (`installPlaces`), the Python extension's interpreter's folder, the login
   * shell's PATH. An editor started from a desktop menu often has none of them on PATH.
   */
  readonly extraDirs?: readonly string[];
}

export type Resolution =
  | { readonly ok: true; readonly server: ServerCommand }
  | { readonly ok: false; readonly reason: string; readonly notFound?: boolean; readonly searched?: readonly string[] };

/** The environment variables that move the install places, and the home folder. */
export interface InstallEnv {
  readonly home: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The folders where `pip install --user`, pipx and `uv tool install` put the `plansight`
 * command, honouring the variables that move them: `~/.local/bin` (their shared bin folder,
 * also `$XDG_BIN_HOME`, `$PIPX_BIN_DIR`, `$UV_TOOL_BIN_DIR`), pipx's own venv (`$PIPX_HOME`,
 * `~/.local/share/pipx` since pipx 1.3, `~/.local/pipx` before), uv's tool venv
 * (`$UV_TOOL_DIR`, `$XDG_DATA_HOME/uv/tools`).
 */
export function installPlaces({ home, env }: InstallEnv): string[] {
  const set = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const under = (...parts: string[]): string | undefined => (home === undefined ? undefined : path.join(home, ...parts));
  const dataHome = set('XDG_DATA_HOME') ?? under('.local', 'share');
  const places = [
    set('PIPX_BIN_DIR'),
    set('UV_TOOL_BIN_DIR'),
    set('XDG_BIN_HOME'),
    under('.local', 'bin'),
    ...(set('PIPX_HOME') !== undefined
      ? [path.join(set('PIPX_HOME') as string, 'venvs', 'plansight', 'bin')]
      : [dataHome && path.join(dataHome, 'pipx', 'venvs', 'plansight', 'bin'), under('.local', 'pipx', 'venvs', 'plansight', 'bin')]),
    set('UV_TOOL_DIR') !== undefined
      ? path.join(set('UV_TOOL_DIR') as string, 'plansight', 'bin')
      : dataHome && path.join(dataHome, 'uv', 'tools', 'plansight', 'bin'),
  ];
  return [...new Set(places.filter((place): place is string => place !== undefined && place !== ''))];
}

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
  const searched = isBareName(command) && command !== '' ? ['PATH', ...(lookup.extraDirs ?? [])] : [];
  const where = searched.length > 1 ? ` on PATH or in ${(lookup.extraDirs ?? []).join(', ')}` : searched.length === 1 ? ' on PATH' : '';
  const what = command === '' ? 'plansight.server.command is empty' : `"${command}" was not found${where}`;
  return { ok: false, reason: `${what} and plansight.server.python is not set`, notFound: true, searched };
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
  for (const dir of [...dirs, ...(lookup.extraDirs ?? [])]) {
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

/** The file check the extension injects: an executable regular file (or a link to one). */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
