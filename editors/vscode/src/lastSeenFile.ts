/**
 * The plans a window of a workspace folder last drew, with the rows' open and closed state
 * and the sessions' order, kept in a file on the machine the extension host runs on (issue
 * 33, item 12). workspaceState holds them too, but the extension host fetches it from the
 * workbench only before activate(), 0.3 to 1 s after the bundle is evaluated; this file is
 * read as the bundle is evaluated, so the Plan view has rows to give VS Code at once.
 *
 * A person's plan text: kept with the same trust as the store itself, in their own cache
 * folder, the file readable by them alone (0600, its folder 0700). Read with care: a file
 * too big, damaged, of another format, another folder's or another user's is not read (no
 * plan rather than a wrong one), and nothing here throws. Written whole to a file of its own
 * then renamed over the old one, so a reader (another window of the folder) never sees half.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The file's layout: a file of another layout (an older or newer extension's) is not read. */
export const LAST_SEEN_FORMAT = 1;
/** Bigger is not written nor read: it is read synchronously as the window starts. */
export const MAX_LAST_SEEN_BYTES = 2_000_000;

/** The values kept, by their workspaceState key. */
export type KeptValues = Readonly<Record<string, unknown>>;

interface LastSeenDocument {
  readonly format: number;
  /** The workspace the values are of (the file's name is a hash of it: checked on reading). */
  readonly folder: string;
  readonly values: KeptValues;
}

/** The user's cache folder: XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = os.homedir()): string {
  if (platform === 'win32') {
    return env.LOCALAPPDATA !== undefined && path.win32.isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : path.join(home, 'AppData', 'Local');
  }
  if (platform === 'darwin') {
    return path.join(home, 'Library', 'Caches');
  }
  // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
  const xdg = env.XDG_CACHE_HOME;
  return xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
}

/** The file of a workspace (`folder`: its folders' URIs, or its .code-workspace file's). */
export function lastSeenFile(folder: string, cacheDir: string = userCacheDir()): string {
  const name = createHash('sha256').update(folder).digest('hex').slice(0, 32);
  return path.join(cacheDir, 'plansight', 'vscode-last-seen', `${name}.json`);
}

/**
 * The values kept for `folder` in `file`, or undefined when there are none this extension
 * can trust: missing, too big, not a regular file of this user, damaged, of another format
 * or of another folder.
 */
export function readLastSeen(file: string, folder: string): KeptValues | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const stat = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!stat.isFile() || stat.size > MAX_LAST_SEEN_BYTES || (uid !== undefined && stat.uid !== uid)) {
      return undefined;
    }
    const document: unknown = JSON.parse(fs.readFileSync(fd, 'utf8'));
    return isDocument(document) && document.format === LAST_SEEN_FORMAT && document.folder === folder ? document.values : undefined;
  } catch {
    return undefined; // none yet, unreadable or not JSON: drawn from the server instead
  } finally {
    if (fd !== undefined) {
      fs.closeSync(fd);
    }
  }
}

/**
 * Keeps `values` for `folder` in `file`, whole or not at all. Too big: the file is removed
 * (an older plan is not left to be drawn as the last seen). Throws on a failed write, after
 * removing what it began.
 */
export function writeLastSeen(file: string, folder: string, values: KeptValues): 'written' | 'too big' {
  const document: LastSeenDocument = { format: LAST_SEEN_FORMAT, folder, values };
  const text = JSON.stringify(document);
  if (Buffer.byteLength(text, 'utf8') > MAX_LAST_SEEN_BYTES) {
    fs.rmSync(file, { force: true });
    return 'too big';
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return 'written';
}

function isDocument(value: unknown): value is LastSeenDocument {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const { format, folder, values } = value as Record<string, unknown>;
  return typeof format === 'number' && typeof folder === 'string' && typeof values === 'object' && values !== null && !Array.isArray(values);
}
