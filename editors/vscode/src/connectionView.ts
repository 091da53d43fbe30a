/**
 * What the panel shows of the connection: the context keys its welcome content depends on
 * (`plansight.serverState`, `plansight.failure`), "disconnected" and the cause in the view's
 * description once the server gave up, and the commands of a first run that found no
 * `plansight`: Locate plansight…, Install plansight…, and the setting itself.
 */
import * as vscode from 'vscode';
import type { PlansightClient, ServerState } from './client';
import type { PlanView } from './planView';
import { isExecutable } from './serverCommand';

/** The install commands offered, in the order tried: pipx keeps the tool in its own venv. */
export const INSTALL_COMMANDS = ['pipx install plansight', 'uv tool install plansight', 'python3 -m pip install --user plansight'] as const;

export class ConnectionView implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: PlansightClient,
    private readonly view: PlanView,
  ) {
    this.disposables.push(
      client.onDidChangeState((state) => this.show(state)),
      vscode.commands.registerCommand('plansight.locateServer', () => this.locate()),
      vscode.commands.registerCommand('plansight.installServer', () => this.install()),
      // A machine setting: in a remote window (SSH, WSL, code-server) it lives in the
      // Remote tab, where the User tab would say "No Settings Found".
      vscode.commands.registerCommand('plansight.openServerSettings', () =>
        vscode.commands.executeCommand(vscode.env.remoteName === undefined ? 'workbench.action.openSettings' : 'workbench.action.openRemoteSettings', {
          query: '@id:plansight.server.command',
        }),
      ),
    );
    this.show(client.state);
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private show(state: ServerState): void {
    const failure = this.client.failure;
    void vscode.commands.executeCommand('setContext', 'plansight.serverState', state);
    void vscode.commands.executeCommand('setContext', 'plansight.failure', failure?.kind ?? '');
    if (failure !== undefined) {
      // PlanSync emptied the tree first (on the same state change): the welcome content
      // for this failure shows, and the description says why in a few words.
      // The title shows even when the view is alone in its container (the description
      // does not then): "PLANSIGHT: DISCONNECTED".
      const cause = failure.kind === 'notFound' ? 'plansight not found' : (failure.exit ?? failure.reason).replace(/^it (was )?/, '');
      this.view.treeView.title = 'Disconnected';
      this.view.treeView.description = cause;
    } else if (state === 'starting') {
      this.view.treeView.description = 'starting…';
    } else if (state === 'running' && this.view.treeView.title === 'Disconnected') {
      this.view.treeView.title = 'Plan'; // the listing that follows sets title and description
      this.view.treeView.description = undefined;
    } else if (this.view.treeView.description === 'starting…') {
      this.view.treeView.description = undefined;
    }
  }

  /** A file picker for the `plansight` executable; the choice goes into the user setting. */
  private async locate(): Promise<void> {
    const picked = await vscode.window.showOpenDialog({
      title: 'Locate the plansight command',
      openLabel: 'Use this plansight',
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
    });
    const file = picked?.[0]?.fsPath;
    if (file === undefined) {
      return;
    }
    if (!isExecutable(file)) {
      void vscode.window.showErrorMessage(`Plansight: ${file} is not an executable file. Choose the plansight command (in a bin folder).`);
      return;
    }
    // The setting's change restarts the server (client.ts: PROCESS_SETTINGS).
    await vscode.workspace.getConfiguration('plansight').update('server.command', file, vscode.ConfigurationTarget.Global);
    if (this.client.state !== 'running' && this.client.state !== 'starting') {
      await this.client.restart();
    }
  }

  /** Runs the install command the person picks in a terminal, to watch and to answer. */
  private async install(): Promise<void> {
    const command = await vscode.window.showQuickPick(
      INSTALL_COMMANDS.map((label) => ({ label })),
      { title: 'Install plansight', placeHolder: 'The command to run in a terminal (then Restart Server)' },
    );
    if (command === undefined) {
      return;
    }
    const terminal = vscode.window.createTerminal({ name: 'Plansight: install' });
    terminal.show();
    terminal.sendText(command.label);
  }
}
