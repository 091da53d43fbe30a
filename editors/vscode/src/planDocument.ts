/**
 * "Edit Plan as Markdown": a session's plan as a markdown file of the `plansight:` scheme.
 * Reading it sends `plansight/export`; a person's explicit save (Ctrl+S, File > Save) sends
 * `plansight/import` (origin "user") with the version the document shows and `merge: true`,
 * so a save of a copy opened before someone else's change merges with it rather than
 * reverting it; what cannot be merged is shown in a modal (planConflict.ts). A change of the
 * plan from anywhere reloads an open, unmodified document.
 *
 * Typing is never lost (issue 33, item 1): the document's language (`plansight-plan`) has
 * auto-save off by default, an auto-save or focus-change save that still comes imports
 * nothing (the text is kept as a draft), and a save the import refuses keeps the person's
 * text in the document with the refused lines marked, redraws or not, until a save imports.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
import { askAboutRefusal, compareWithCurrent, CURRENT_PLAN_SCHEME, CurrentPlanDocuments, refusalOf } from './planConflict';
import type { PlanSync } from './planSync';
import { planUri, sessionOfUri } from './planUris';
import type { ApplyResult } from './protocol';
import { sessionTitle } from './sessionTitles';

export const PLAN_SCHEME = 'plansight';

/** The language of plan documents: markdown's colours, and its own auto-save default (off). */
export const PLAN_LANGUAGE = 'plansight-plan';

/** `plansight:/<session>/<title>.md`: the tab says whose plan it is, by its title. */
export function planDocumentUri(session: string, title?: string | null): vscode.Uri {
  return planUri(PLAN_SCHEME, session, title);
}

/** The import's refusals as marks on the lines they name (`Line 5: ...`), the others on line 1. */
export function refusalDiagnostics(errors: readonly string[], lines: readonly string[]): vscode.Diagnostic[] {
  return errors.map((error) => {
    const match = /^Line (\d+): (.*)$/s.exec(error);
    const line = match === null ? 0 : Math.min(Math.max(Number(match[1]) - 1, 0), Math.max(lines.length - 1, 0));
    const range = new vscode.Range(line, 0, line, lines[line]?.length ?? 0);
    const diagnostic = new vscode.Diagnostic(range, `${match === null ? error : match[2]} (not imported: fix it and save again)`, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'Plansight';
    return diagnostic;
  });
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

  /**
   * Per session, the person's text the server does not hold: saved by an auto-save (never
   * imported) or refused by the import. The document reads it instead of the server's plan
   * until a save imports, so no redraw throws it away.
   */
  private readonly drafts = new Map<string, string>();

  /** Per document, why its pending save happens (onWillSaveTextDocument comes before writeFile). */
  private readonly saveReasons = new Map<string, vscode.TextDocumentSaveReason>();

  private readonly refusals = vscode.languages.createDiagnosticCollection('plansight-plan');

  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
  ) {
    this.disposables.push(
      this.refusals,
      vscode.workspace.registerTextDocumentContentProvider(CURRENT_PLAN_SCHEME, new CurrentPlanDocuments((session) => this.exportText(session))),
      sync.onDidUpdate(({ session }) => {
        this.changed(vscode.workspace.textDocuments.filter((doc) => doc.uri.scheme === PLAN_SCHEME && (session === undefined || sessionOfUri(doc.uri) === session)));
      }),
      vscode.workspace.onWillSaveTextDocument((event) => {
        if (event.document.uri.scheme === PLAN_SCHEME) {
          this.saveReasons.set(event.document.uri.toString(), event.reason);
        }
      }),
      // The server normalizes what it imports (statuses, blank lines, auto-start): once the
      // save is through, the editor reloads the plan as the server now holds it.
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.scheme === PLAN_SCHEME) {
          this.changed([doc]);
        }
      }),
      vscode.workspace.onDidOpenTextDocument((doc) => void this.adopt(doc)),
    );
    for (const doc of vscode.workspace.textDocuments) {
      void this.adopt(doc);
    }
  }

  /** Opens a session's plan in an editor, named by its title. */
  async open(session: string): Promise<void> {
    const document = await this.adopt(await vscode.workspace.openTextDocument(planDocumentUri(session, this.sync.plans.get(session)?.title)));
    await vscode.window.showTextDocument(document, { preview: false });
  }

  /** A plan document gets the plan language (markdown colours, auto-save off), restored tabs too. */
  private async adopt(doc: vscode.TextDocument): Promise<vscode.TextDocument> {
    if (doc.uri.scheme !== PLAN_SCHEME || doc.languageId === PLAN_LANGUAGE) {
      return doc;
    }
    try {
      return await vscode.languages.setTextDocumentLanguage(doc, PLAN_LANGUAGE);
    } catch (error) {
      this.client.logError('Setting the plan language failed', error);
      return doc;
    }
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined); // changes come from onDidUpdate
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const session = sessionOfUri(uri);
    const text = this.drafts.get(session) ?? (await this.exportText(session));
    const mtime = this.stamps.get(session) ?? this.touch(session);
    return { type: vscode.FileType.File, ctime: 0, mtime, size: Buffer.byteLength(text) };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const session = sessionOfUri(uri);
    const draft = this.drafts.get(session);
    if (draft !== undefined) {
      return Buffer.from(draft);
    }
    const { version } = await this.client.request('plansight/get', { session });
    const text = await this.exportText(session);
    this.versions.set(session, version);
    return Buffer.from(text);
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const session = sessionOfUri(uri);
    const markdown = new TextDecoder().decode(content);
    const reason = this.saveReasons.get(uri.toString());
    this.saveReasons.delete(uri.toString());
    if (reason === vscode.TextDocumentSaveReason.AfterDelay || reason === vscode.TextDocumentSaveReason.FocusOut) {
      // Not the person's save: a half-typed line would become a task and the agent be told.
      this.drafts.set(session, markdown);
      return;
    }
    const name = sessionTitle(session, this.sync.plans.get(session)?.title);
    const baseVersion = this.versions.get(session);
    let result: ApplyResult;
    try {
      result = await this.importPlan(session, markdown, baseVersion);
    } catch (error) {
      const refusal = baseVersion === undefined ? undefined : refusalOf(error);
      if (refusal === undefined) {
        throw vscode.FileSystemError.Unavailable(`Plansight could not import the plan: ${describeError(error)}`);
      }
      const choice = await askAboutRefusal(name, refusal);
      if (choice !== 'overwrite') {
        if (choice === 'compare') {
          await compareWithCurrent(session, name, uri);
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
    this.markRefusals(uri, session, markdown, result.isError ? result.errors : []);
  }

  /**
   * The import takes a document whole or not at all: refused, the person's text stays (a
   * draft) with each refused line marked; imported, the marks and the draft go.
   */
  private markRefusals(uri: vscode.Uri, session: string, markdown: string, errors: readonly string[]): void {
    if (errors.length === 0) {
      this.drafts.delete(session);
      this.refusals.delete(uri);
      return;
    }
    this.drafts.set(session, markdown);
    this.refusals.set(uri, refusalDiagnostics(errors, markdown.split(/\r?\n/)));
    void vscode.window.showWarningMessage(`Plansight: the plan was not imported: ${errors.join('; ')}. Your text stays in the document, the lines marked; fix them and save again.`);
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
    // A draft (auto-saved or refused) is the person's text: a redraw would throw it away.
    const docs = all.filter((doc) => !doc.isDirty && !this.drafts.has(sessionOfUri(doc.uri)));
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
