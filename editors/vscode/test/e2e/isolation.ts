/** The run's own home and folders for every process an end-to-end test starts. */

import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A home of the run's own for every process it starts (the CLI, code-server, the server):
 * HOME, the XDG folders (the hook log and default stores live there) and XDG_RUNTIME_DIR
 * (the warm hook process the CLI's calls start listens there). Nothing reaches the
 * person's own home or state: their store settings (and `alsoLeaveOut`) are not inherited.
 */
export function isolatedEnv(dir: string, alsoLeaveOut: readonly string[] = []): Record<string, string> {
  const home = path.join(dir, 'home');
  const folders = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
  };
  for (const folder of Object.values(folders)) {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  }
  const personal = new Set(['PLANSIGHT_DB', 'PLANSIGHT_WORKSPACE', 'PLANSIGHT_SESSION', ...alsoLeaveOut]);
  const inherited = Object.entries(process.env).filter((entry): entry is [string, string] => !personal.has(entry[0]) && entry[1] !== undefined);
  return { ...Object.fromEntries(inherited), ...folders };
}
