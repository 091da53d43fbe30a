/**
 * Which store the server reads: asked of the same install with `plansight store-path
 * --root <workspace folder>` (the rule `serve` opens its store by, with the same
 * `PLANSIGHT_DB`), written at the head of the server log each time the server is ready, and
 * shown in the status bar's tooltip with the command line that points a CLI at it. Two
 * folders can use different stores (a subfolder of a folder without git is a workspace of
 * its own), and nothing else says which one the panel reads.
 */
import * as vscode from 'vscode';
import type { PlansightClient } from './client';
import { cliHint } from './serverProcess';

export class StoreInfo implements vscode.Disposable {
  private locationValue: string | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly client: PlansightClient,
    private readonly output: vscode.OutputChannel,
    /** When to ask after a (re)start: once the first rows are drawn. */
    ready: vscode.Event<void> = client.onDidBecomeReady,
  ) {
    this.disposables.push(ready(() => void this.ask()));
  }

  /** The store's path, or its URL without the password; undefined until known. */
  get location(): string | undefined {
    return this.locationValue;
  }

  /** Two lines: the store, and how a `plansight` command in a terminal reads it too. */
  describe(): string | undefined {
    const location = this.locationValue;
    return location === undefined ? undefined : `Store: ${location}\n${cliHint(location)}`;
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private async ask(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    try {
      const printed = await this.client.runCli(['store-path', ...(folder === undefined ? [] : ['--root', folder])]);
      this.locationValue = printed.trim();
    } catch (error) {
      this.client.logError('Asking which store the server reads failed', error);
      return;
    }
    this.output.appendLine(`Plan store: ${this.locationValue}`);
    this.output.appendLine(`  ${cliHint(this.locationValue)}`);
    this.changeEmitter.fire();
  }
}
