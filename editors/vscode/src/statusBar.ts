/** The status bar item: the current task's activeForm and the progress; a click shows the panel. */
import * as vscode from 'vscode';
import type { PlanSync } from './planSync';
import { statusBarView } from './planTree';
import { PLAN_VIEW_ID } from './planView';

export class PlanStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly sync: PlanSync) {
    this.item = vscode.window.createStatusBarItem('plansight.status', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'Plansight';
    // Every view gets a `<id>.focus` command: it opens the Plansight panel on the plan.
    this.item.command = `${PLAN_VIEW_ID}.focus`;
    this.disposables = [this.item, sync.onDidUpdate(() => this.update())];
    this.update();
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private update(): void {
    const view = statusBarView(this.sync.plans.activeState());
    if (view === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.show();
  }
}
