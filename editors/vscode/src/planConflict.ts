/**
 * A person's stale "Edit Plan as Markdown" save that the server could not merge: the modal
 * that lists what conflicts and lets the person compare, overwrite or cancel.
 */
import * as vscode from 'vscode';
import { isResponseError } from './languageClientModule';
import { planUri, sessionOfUri } from './planUris';
import { ErrorCodes } from './protocol';

/** One conflict of a refused merge, as the server sends it (`field` "task" is a removal). */
export interface Conflict {
  readonly id: string;
  readonly content: string;
  readonly field: string;
}

export interface Refusal {
  readonly currentVersion: number | undefined;
  /** Empty when the document's version is older than the kept history: nothing to merge from. */
  readonly conflicts: readonly Conflict[];
}

/** The refusal a ContentModified error carries, or undefined for any other error. */
export function refusalOf(error: unknown): Refusal | undefined {
  if (!isResponseError(error) || error.code !== ErrorCodes.contentModified) {
    return undefined;
  }
  const data = error.data as { currentVersion?: number; conflicts?: Conflict[] } | undefined;
  return { currentVersion: data?.currentVersion, conflicts: Array.isArray(data?.conflicts) ? data.conflicts : [] };
}

/** One line per conflict, in the person's words. */
export function describeConflict(conflict: Conflict): string {
  if (conflict.field === 'task') {
    return `"${conflict.content}": removed on one side, changed on the other`;
  }
  return `"${conflict.content}": ${conflict.field} changed on both sides`;
}

export type ConflictChoice = 'compare' | 'overwrite' | 'cancel';

/** The modal: what conflicts, and Compare / Overwrite (Cancel is the modal's own). */
export async function askAboutRefusal(name: string, refusal: Refusal): Promise<ConflictChoice> {
  const detail =
    refusal.conflicts.length > 0
      ? `Both you and someone else changed the same things since you opened it:\n${refusal.conflicts.map(describeConflict).join('\n')}`
      : 'The plan changed since you opened it, and the history no longer holds the version you started from, so your edit cannot be merged.';
  const choice = await vscode.window.showWarningMessage(
    `Plansight: your edit of the plan "${name}" was not saved.`,
    { modal: true, detail },
    'Compare',
    'Overwrite',
  );
  return choice === 'Compare' ? 'compare' : choice === 'Overwrite' ? 'overwrite' : 'cancel';
}

export const CURRENT_PLAN_SCHEME = 'plansight-current';

/**
 * Read-only documents of the plan as the server holds it now (`plansight-current:/<session>/<title>.md`),
 * the left side of Compare; `text` answers `plansight/export`.
 */
export class CurrentPlanDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly text: (session: string) => Promise<string>) {}

  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    return this.text(sessionOfUri(uri));
  }
}

/** Opens the diff: the current plan (read-only) on the left, the person's document on the right. */
export async function compareWithCurrent(session: string, name: string, document: vscode.Uri): Promise<void> {
  // A query that changes per call makes the editor ask the provider again, never a stale copy.
  const current = planUri(CURRENT_PLAN_SCHEME, session, name, String(Date.now()));
  await vscode.commands.executeCommand('vscode.diff', current, document, `Plan "${name}": now ↔ your edit`);
}
