/** Wires the pieces together; every disposable goes into context.subscriptions. */
import * as vscode from 'vscode';
import { AgentsWelcome } from './agentsWelcome';
import { createApi, type PlansightApi } from './api';
import { PlansightClient } from './client';
import { PlanCommands } from './commands';
import { ConnectionView } from './connectionView';
import { registerLanguageModelTools } from './lmTools';
import { PLAN_SCHEME, PlanDocuments } from './planDocument';
import { followLatest, PlanSync } from './planSync';
import { lastSeenAtStart } from './lastSeenRows';
import { LastSeenMemento } from './lastSeenMemento';
import { LAST_SEEN_MESSAGE } from './planRows';
import { PLAN_VIEW_ID, PLAN_VIEW_OPTIONS, PlanView } from './planView';
import type { PlanNode } from './planTree';
import { EarlyTreeView } from './earlyTreeView';
import { PlanStatusBar } from './statusBar';
import { StoreInfo } from './storeInfo';
import { TreeCommands } from './treeCommands';
import { TREE_MIME, TreeMoves } from './treeMoveCommands';

let activeClient: PlansightClient | undefined;

/**
 * The Plan view, made as the host evaluates the bundle: the workbench asks for its rows
 * while the host is still fetching the context activate() needs (earlyTreeView.ts).
 */
const lastSeen = lastSeenAtStart(followLatest());
const earlyView = new EarlyTreeView<PlanNode>(PLAN_VIEW_ID, { ...PLAN_VIEW_OPTIONS, dragMimeTypes: [TREE_MIME], dropMimeTypes: [TREE_MIME] }, lastSeen.rows);
if (lastSeen.rows !== undefined) {
  // The rows the workbench gets before activate() are the last seen: said with them.
  earlyView.treeView.message = LAST_SEEN_MESSAGE;
}

/** When the extension host had evaluated this bundle (the start's timings, issue 33 item 12). */
const bundleEvaluated = Date.now();

/**
 * How long the server's start waits for the Plan view to get the plans last seen (the rows
 * it draws at once, those under the open rows too: each a round trip of its own): its
 * Python process takes seconds of the machine's cores, which the extension host and the
 * workbench need meanwhile to draw those rows (issue 33, item 12). A view that is not open
 * asks for no rows: the server starts after this.
 */
const SERVER_START_AFTER_ROWS_MS = 1000;

export function activate(context: vscode.ExtensionContext): PlansightApi {
  const began = Date.now();
  const output = vscode.window.createOutputChannel('Plansight');
  const client = new PlansightClient(output);
  // workspaceState, with what the view draws first also in the workspace's last seen file
  // (read from it this time when the rows before activate() came from it).
  const memento = new LastSeenMemento(context.workspaceState, lastSeen.place, lastSeen.taken, (message, error) => client.logError(message, error));
  const sync = new PlanSync(client, memento);
  // The plans this window's workspace showed last, until the server lists them: held before
  // the view is made, so that VS Code's first fetch of its rows has them, in the order the
  // view last drew them.
  PlanView.restoreOrder(sync.plans, memento);
  const drewLastSeen = sync.takeLastSeen();
  const moves = new TreeMoves(client, sync);
  const view = new PlanView(sync, earlyView, memento, moves, context.extensionUri);
  const givenEarly = earlyView.handOver();
  view.adopt(givenEarly, lastSeen.rows?.tree);
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
    memento, // last: what the others kept at their disposal is written to the file
  );
  activeClient = client;
  // The status bar and the rest draw them too; the server starts once the view has all it
  // draws at once, the rows under the open ones included (or at once: nothing to draw before it).
  const start = (): void => void client.start();
  if (drewLastSeen) {
    sync.redraw();
    void Promise.race([view.firstScreen.then(() => workbenchTook()), new Promise((resolve) => setTimeout(resolve, SERVER_START_AFTER_ROWS_MS))]).then(start);
  } else {
    start();
  }
  // The start's own account, for docs/performance.md (the e2e reads it from the log).
  client.log(`Activated in ${Date.now() - began} ms (activate() began at ${new Date(began).toISOString()}, ${began - bundleEvaluated} ms after the bundle was evaluated)`);
  if (drewLastSeen) {
    client.log(`The plans last seen were drawn from ${lastSeen.taken === undefined ? 'workspaceState' : 'their file (read as the bundle was evaluated)'}`);
  }
  if (givenEarly.topGivenAt !== undefined) {
    client.log(`The Plan view got its first rows ${givenEarly.topGivenAt - began} ms after activate() began`);
  } else {
    void view.firstRows.then(() => client.log(`The Plan view got its first rows ${Date.now() - began} ms after activate() began`));
  }
  // Whether the workbench asked before activate() (the rows from the last seen file could go
  // at once) or after (issue 33, item 12: docs/performance.md).
  void view.firstRows.then(() => client.log(`The workbench first asked for the Plan view's rows ${(earlyView.firstAskedAt ?? Date.now()) - began} ms after activate() began`));
  void view.firstScreen.then(() => client.log(`The Plan view got the rows under its open rows ${Date.now() - began} ms after activate() began`));
  return createApi(client, sync);
}

/**
 * Resolves once the workbench has taken what the extension host sent it so far (the rows
 * given to the view among them): it handles the host's messages in order, so the answer
 * to one sent now comes after it took them.
 */
async function workbenchTook(): Promise<void> {
  await vscode.commands.executeCommand('setContext', 'plansight.rowsGiven', true);
}

/** Lets the server shut down cleanly: VS Code waits for this promise, not for dispose(). */
export async function deactivate(): Promise<void> {
  await activeClient?.stop();
  activeClient = undefined;
}
