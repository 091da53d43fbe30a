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

/**
 * How long the server's start waits for the Plan view to get the plans last seen: its
 * Python process takes seconds of the machine's cores, which the extension host and the
 * workbench need meanwhile to draw those rows (issue 33, item 12). A view that is not open
 * asks for no rows: the server starts after this.
 */
const SERVER_START_AFTER_ROWS_MS = 1000;

export function activate(context: vscode.ExtensionContext): PlansightApi {
  const began = Date.now();
  const output = vscode.window.createOutputChannel('Plansight');
  const client = new PlansightClient(output);
  const sync = new PlanSync(client, context.workspaceState);
  const moves = new TreeMoves(client, sync);
  const view = new PlanView(sync, context.workspaceState, moves, context.extensionUri);
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
  // The plans this window's workspace showed last, at once, until the server lists them;
  // the server starts once the view has them (or at once: nothing to draw before it).
  const drewLastSeen = sync.drawLastSeen();
  const start = (): void => void client.start();
  if (drewLastSeen) {
    void Promise.race([view.firstRows, new Promise((resolve) => setTimeout(resolve, SERVER_START_AFTER_ROWS_MS))]).then(start);
  } else {
    start();
  }
  // The start's own account, for docs/performance.md (the e2e reads it from the log).
  client.log(`Activated in ${Date.now() - began} ms (activate() began at ${new Date(began).toISOString()})`);
  void view.firstRows.then(() => client.log(`The Plan view got its first rows ${Date.now() - began} ms after activate() began`));
  return createApi(client, sync);
}

/** Lets the server shut down cleanly: VS Code waits for this promise, not for dispose(). */
export async function deactivate(): Promise<void> {
  await activeClient?.stop();
  activeClient = undefined;
}
