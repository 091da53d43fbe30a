/** Wires the pieces together; every disposable goes into context.subscriptions. */
import * as vscode from 'vscode';
import { AgentsWelcome } from './agentsWelcome';
import { createApi, type PlansightApi } from './api';
import { PlansightClient } from './client';
import { PlanCommands } from './commands';
import { ConnectionView } from './connectionView';
import { registerLanguageModelTools } from './lmTools';
import { PLAN_SCHEME, PlanDocuments } from './planDocument';
import { PlanSync } from './planSync';
import { PlanView } from './planView';
import { PlanStatusBar } from './statusBar';
import { StoreInfo } from './storeInfo';
import { TreeCommands } from './treeCommands';
import { TreeMoves } from './treeMoveCommands';

let activeClient: PlansightClient | undefined;

export function activate(context: vscode.ExtensionContext): PlansightApi {
  const output = vscode.window.createOutputChannel('Plansight');
  const client = new PlansightClient(output);
  const sync = new PlanSync(client, context.workspaceState);
  const moves = new TreeMoves(client, sync);
  const view = new PlanView(sync, context.workspaceState, moves);
  moves.attach(view);
  const documents = new PlanDocuments(client, sync);
  const store = new StoreInfo(client, output, sync.onDidList);
  context.subscriptions.push(
    output,
    client,
    sync,
    view,
    store,
    new ConnectionView(client, view),
    new AgentsWelcome(client, vscode.Uri.joinPath(context.extensionUri, 'README.md'), (message) => view.setDoctorMessage(message), sync.onDidList),
    new PlanStatusBar(sync, client, store),
    documents,
    vscode.workspace.registerFileSystemProvider(PLAN_SCHEME, documents, { isCaseSensitive: true }),
    ...new PlanCommands(client, sync, view, documents).register(),
    ...new TreeCommands(client, sync, view).register(),
    ...moves.register(),
    ...registerLanguageModelTools(client, sync),
  );
  activeClient = client;
  // The plans this window's workspace showed last, at once, until the server lists them.
  sync.drawLastSeen();
  void client.start();
  return createApi(client, sync);
}

/** Lets the server shut down cleanly: VS Code waits for this promise, not for dispose(). */
export async function deactivate(): Promise<void> {
  await activeClient?.stop();
  activeClient = undefined;
}
