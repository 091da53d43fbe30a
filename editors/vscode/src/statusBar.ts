/**
 * The status bar item: the current task's activeForm and the progress, or "disconnected"
 * with the cause once the server gave up (never a spinner of a plan that no longer moves);
 * its tooltip names the store. A click shows the panel.
 */
import * as vscode from 'vscode';
import type { PlansightClient } from './client';
import type { PlanSync } from './planSync';
import { statusBarView } from './planTree';
import { PLAN_VIEW_ID } from './planView';
import type { StoreInfo } from './storeInfo';

export class PlanStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[];
  /** What the item shows, as last set: a change elsewhere that leaves it alone sets nothing. */
  private drawn: string | undefined;

  constructor(
    private readonly sync: PlanSync,
    private readonly client: PlansightClient,
    private readonly store: StoreInfo,
  ) {
    this.item = vscode.window.createStatusBarItem('plansight.status', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'Plansight';
    // Every view gets a `<id>.focus` command: it opens the Plansight panel on the plan.
    this.item.command = `${PLAN_VIEW_ID}.focus`;
    this.disposables = [
      this.item,
      sync.onDidUpdate(() => this.update()),
      client.onDidChangeState(() => this.update()),
      store.onDidChange(() => this.update()),
    ];
    this.update();
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private update(): void {
    const shown = this.shown();
    const key = JSON.stringify(shown ?? null);
    if (key === this.drawn) {
      return;
    }
    this.drawn = key;
    if (shown === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.backgroundColor = shown.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  /** What the item shows now (undefined: hidden). */
  private shown(): { text: string; tooltip: string; error: boolean } | undefined {
    const failure = this.client.failure;
    if (failure !== undefined) {
      const help = failure.kind === 'notFound' ? 'Locate plansight… and Install plansight… are there' : 'Restart Server is there';
      return {
        text: '$(debug-disconnect) Plansight: disconnected',
        tooltip: `The Plansight server ${failure.kind === 'notFound' ? 'was not found' : 'stopped'}: ${failure.reason}.\nThe plan is not live. Click to show the panel (${help}).`,
        error: true,
      };
    }
    const view = this.client.state === 'running' ? statusBarView(this.sync.plans.activeState()) : undefined;
    if (view === undefined) {
      return undefined;
    }
    const store = this.store.describe();
    return { text: view.text, tooltip: store === undefined ? view.tooltip : `${view.tooltip}\n\n${store}`, error: false };
  }
}
