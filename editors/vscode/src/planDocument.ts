/**
 * "Edit Plan as Markdown": a session's plan as a markdown file of the `plansight:` scheme.
 * Reading it sends `plansight/export`, saving it sends `plansight/import` (origin "user")
 * with the version the document shows and `merge: true`, so a save of a copy opened before
 * someone else's change merges with it rather than reverting it; what cannot be merged is
 * shown in a modal (planConflict.ts). A change of the plan from anywhere reloads an open,
 * unmodified document.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import { askAboutRefusal, compareWithCurrent, CURRENT_PLAN_SCHEME, CurrentPlanDocuments, refusalOf } from './planConflict';
import type { PlanSync } from './planSync';
import type { ApplyResult } from './protocol';

export const PLAN_SCHEME = 'plansight';

/** `plansight:/<session>.md`: the file name is the session, so the tab says whose plan it is. */
export function planDocumentUri(session: string): vscode.Uri {
  return vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${session}.md` });
}

export function sessionOfUri(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.md$/, '');
}

export class PlanDocuments implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  readonly onDidChangeFile = this.changeEmitter.event;

  /** Per session, the mtime the editor sees: moved on with every change, so it reloads. */
  private readonly stamps = new Map<string, number>();

  /**
   * Per session, the plan version the document's text was read at (asked for before the
   * text: never newer than it, so the merge of a later save can only keep more, never revert).
   */
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
  ) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(CURRENT_PLAN_SCHEME, new CurrentPlanDocuments((session) => this.exportText(session))),
      sync.onDidUpdate(({ session }) => {
        this.changed(vscode.workspace.textDocuments.filter((doc) => doc.uri.scheme === PLAN_SCHEME && (session === undefined || sessionOfUri(doc.uri) === session)));
      }),
      // The server normalizes what it imports (statuses, blank lines, auto-start): once the
      // save is through, the editor reloads the plan as the server now holds it.
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.scheme === PLAN_SCHEME) {
          this.changed([doc]);
        }
      }),
    );
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined); // changes come from onDidUpdate
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const session = sessionOfUri(uri);
    const text = await this.exportText(session);
    const mtime = this.stamps.get(session) ?? this.touch(session);
    return { type: vscode.FileType.File, ctime: 0, mtime, size: Buffer.byteLength(text) };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const session = sessionOfUri(uri);
    const { version } = await this.client.request('plansight/get', { session });
    const text = await this.exportText(session);
    this.versions.set(session, version);
    return Buffer.from(text);
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const session = sessionOfUri(uri);
    const markdown = new TextDecoder().decode(content);
    const baseVersion = this.versions.get(session);
    let result: ApplyResult;
    try {
      result = await this.importPlan(session, markdown, baseVersion);
    } catch (error) {
      const refusal = baseVersion === undefined ? undefined : refusalOf(error);
      if (refusal === undefined) {
        throw vscode.FileSystemError.Unavailable(`Plansight could not import the plan: ${describeError(error)}`);
      }
      const choice = await askAboutRefusal(session, refusal);
      if (choice !== 'overwrite') {
        if (choice === 'compare') {
          await compareWithCurrent(session, uri);
        }
        // The save fails and the document keeps the person's text, unsaved.
        throw vscode.FileSystemError.Unavailable('Plansight: the plan was not saved, it changed meanwhile (see Compare).');
      }
      try {
        // Overwrite takes the person's side of the conflicts listed, and of nothing else
        // (`merge: "mine"`); with nothing to merge from (a version past the kept history),
        // the person's text as it is.
        const overwrite = refusal.conflicts.length > 0 ? baseVersion : undefined;
        result = await this.importPlan(session, markdown, overwrite, 'mine');
      } catch (again) {
        throw vscode.FileSystemError.Unavailable(`Plansight could not import the plan: ${describeError(again)}`);
      }
    }
    this.versions.set(session, result.version);
    this.sync.accept(result);
    if (result.isError) {
      void vscode.window.showWarningMessage(`Plansight: ${result.errors.join('; ')}`);
    }
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  /**
   * Tells the editor these unmodified documents changed, so they reload. A modified one is
   * left as it is: its save merges with what changed (the version it was read at goes
   * along), and a newer file time would make the editor refuse the save with its own
   * dialog, whose only way on overwrites the other change.
   */
  private changed(all: readonly vscode.TextDocument[]): void {
    const docs = all.filter((doc) => !doc.isDirty);
    if (docs.length === 0) {
      return;
    }
    for (const doc of docs) {
      this.touch(sessionOfUri(doc.uri));
    }
    this.changeEmitter.fire(docs.map((doc) => ({ type: vscode.FileChangeType.Changed, uri: doc.uri })));
  }

  private touch(session: string): number {
    const stamp = Math.max(Date.now(), (this.stamps.get(session) ?? 0) + 1);
    this.stamps.set(session, stamp);
    return stamp;
  }

  /** `baseVersion` undefined: the person's text as it is, whatever changed meanwhile. */
  private importPlan(session: string, markdown: string, baseVersion: number | undefined, merge: true | 'mine' = true): Promise<ApplyResult> {
    return this.client.request('plansight/import', {
      session,
      markdown,
      origin: 'user',
      ...(baseVersion === undefined ? {} : { baseVersion, merge }),
    });
  }

  private async exportText(session: string): Promise<string> {
    const { text } = await this.client.request('plansight/export', { session, format: 'markdown' });
    return text;
  }
}
