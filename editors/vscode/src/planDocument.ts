/**
 * "Edit Plan as Markdown": a session's plan as a markdown file of the `plansight:` scheme.
 * Reading it sends `plansight/export`, saving it sends `plansight/import` (origin "user"),
 * and a change of the plan from anywhere reloads an open, unmodified document.
 */
import * as vscode from 'vscode';
import { describeError, type PlansightClient } from './client';
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

  constructor(
    private readonly client: PlansightClient,
    private readonly sync: PlanSync,
  ) {
    this.disposables.push(
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
    return Buffer.from(await this.exportText(sessionOfUri(uri)));
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const session = sessionOfUri(uri);
    let result: ApplyResult;
    try {
      result = await this.client.request('plansight/import', {
        session,
        markdown: new TextDecoder().decode(content),
        origin: 'user',
      });
    } catch (error) {
      throw vscode.FileSystemError.Unavailable(`Plansight could not import the plan: ${describeError(error)}`);
    }
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

  /** Tells the editor these documents changed; an unmodified one reloads, a modified one will ask before saving over. */
  private changed(docs: readonly vscode.TextDocument[]): void {
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

  private async exportText(session: string): Promise<string> {
    const { text } = await this.client.request('plansight/export', { session, format: 'markdown' });
    return text;
  }
}
