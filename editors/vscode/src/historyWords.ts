/**
 * A plan's history in a person's words (Show History, Undo Last Change): what each change
 * did as the server says it, and which kind of change it was, never an internal method name.
 * No `vscode` import: unit-tested as it is.
 */
import type { HistoryEvent, RequestMethod } from './protocol';

/** Each request that changes a plan, as a person would name what happened. */
export const CHANGE_WORDS: Partial<Record<RequestMethod, string>> = {
  'plansight/apply': 'edit',
  'plansight/write': 'whole list written',
  'plansight/ingest': 'plan sent by the agent',
  'plansight/clear': 'list cleared',
  'plansight/import': 'edited as markdown',
  'plansight/restore': 'earlier version restored',
  'plansight/undo': 'undo',
};

/** The kind of change, in words; a method this version does not know, without its prefix. */
export function kindOfChange(method: string): string {
  return CHANGE_WORDS[method as RequestMethod] ?? method.replace(/^plansight\//, '');
}

/** What an event changed, in the server's words (its kind when it has none). */
export function changesText(event: HistoryEvent): string {
  return event.changes.length === 0 ? kindOfChange(event.method) : event.changes.join('; ');
}

export interface HistoryEntry {
  readonly label: string;
  readonly description: string;
  readonly detail: string;
}

/** One row of Show History: what changed, then the version, who and what kind, then when. */
export function historyEntry(event: HistoryEvent, current: boolean, when: string): HistoryEntry {
  const who = event.origin === 'user' ? 'you' : 'the agent';
  return {
    label: `${current ? '$(check)' : '$(history)'} ${changesText(event)}`,
    description: `v${event.version} · ${who} · ${kindOfChange(event.method)}`,
    detail: `${when}${current ? ' · the plan as it is now' : ''}`,
  };
}

/**
 * What Undo Last Change says once it stepped back, as a sentence: what the undo itself did,
 * in the server's words (`Undid the last change: added "Tag the release".`).
 */
export function undoMessage(undo: HistoryEvent | undefined): string {
  if (undo === undefined || undo.changes.length === 0) {
    return 'Undid the last change.';
  }
  return `Undid the last change: ${undo.changes.join('; ')}.`;
}
