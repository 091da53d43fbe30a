/**
 * The `plansight` process as the extension runs it, in pure functions the unit tests cover:
 * the settings it reads, the command line of a subcommand of its install, the cause in its
 * stderr, and the line that points another `plansight` command at its store.
 */
import type { ServerCommand } from './serverCommand';

/**
 * The settings the server reads (`Settings` in server/plansight/core/settings.py, checked
 * against it by a unit test), and only those: the server logs every key it ignores.
 */
export const SERVER_SETTINGS = [
  'maxTasks',
  'maxPhases',
  'maxContentLength',
  'maxNoteLength',
  'maxNotesPerTask',
  'maxDescriptionLength',
  'maxFilesPerTask',
  'maxTitleLength',
  'maxDepth',
  'autoStart',
  'reminderAfterRounds',
] as const;

/** The arguments before a subcommand: none for `plansight`, `-m plansight` for a Python. */
export function cliPrefix(server: ServerCommand): string[] {
  const serve = server.args.lastIndexOf('serve');
  return server.args.slice(0, serve < 0 ? server.args.length : serve);
}

/**
 * The last line of a process's stderr that tells what went wrong: a Python error, the
 * server's own ERROR/CRITICAL line, anything but its WARNING/INFO/DEBUG notes (a warning
 * such as "setting X is ignored" is never the cause of a stop).
 */
export function lastErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^plansight (WARNING|INFO|DEBUG) /.test(line));
  return lines.pop();
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command line that makes a `plansight` command anywhere read the panel's store. */
export function cliHint(location: string): string {
  if (/^postgres(ql)?:\/\//.test(location) || location.includes('****')) {
    return 'A plansight command reads it with PLANSIGHT_DB=<this URL with its password> (or --db).';
  }
  return `A plansight command reads it with PLANSIGHT_DB=${shellQuote(location)} plansight show (or --db ${shellQuote(location)}).`;
}
