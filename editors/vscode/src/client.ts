/**
 * The one connection to `plansight serve`: starts it over stdio with vscode-languageclient,
 * hands on its `plansight/didChange` notifications, and sends the contract's requests.
 * When the server cannot start, the person gets one message, not a stack of popups.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  ResponseError,
  RevealOutputChannelOn,
  State,
  type CloseHandlerResult,
  type ErrorHandler,
  type ErrorHandlerResult,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  DID_CHANGE,
  DID_PRUNE,
  ErrorCodes,
  PROTOCOL_VERSION,
  type DidChangeParams,
  type DidPruneParams,
  type ParamsOf,
  type RequestMethod,
  type ResultOf,
} from './protocol';
import { resolveServerCommand, type ServerCommand } from './serverCommand';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

const CRASH_WINDOW_MS = 3 * 60 * 1000;
const MAX_CRASHES = 3;

/** Settings that change which process runs: a change restarts the server. */
const PROCESS_SETTINGS = ['plansight.server.command', 'plansight.server.python', 'plansight.store.path'];

/** vscode-languageclient pops up a message for some errors; this client reports them itself. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

export class PlansightClient implements vscode.Disposable {
  private client: QuietLanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private stateValue: ServerState = 'stopped';
  private stderrTail = '';
  /** How the last server process ended, when it did: the clearest reason a start failed. */
  private lastExit: string | undefined;
  /** Settles when the last server process has ended and its output is read. */
  private processClosed: Promise<void> = Promise.resolve();
  private crashes: number[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<DidChangeParams>();
  private readonly pruneEmitter = new vscode.EventEmitter<readonly string[]>();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly readyEmitter = new vscode.EventEmitter<void>();

  /** Every committed change of any session, from this window or any other process. */
  readonly onDidChange = this.changeEmitter.event;
  /** Sessions pruned from the store (by any process): drop them. */
  readonly onDidPrune = this.pruneEmitter.event;
  readonly onDidChangeState = this.stateEmitter.event;
  /** The server answered `initialize`: at the first start and after every restart. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(private readonly output: vscode.OutputChannel) {
    this.disposables.push(
      this.changeEmitter,
      this.pruneEmitter,
      this.stateEmitter,
      this.readyEmitter,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (PROCESS_SETTINGS.some((section) => event.affectsConfiguration(section))) {
          void this.restart();
        }
      }),
    );
  }

  get state(): ServerState {
    return this.stateValue;
  }

  /** Starts the server; resolves once it answered `initialize`, or after reporting why not. */
  start(): Promise<void> {
    if (this.starting === undefined) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.setState('stopped');
    if (client !== undefined) {
      try {
        await client.stop(2000);
      } catch (error) {
        this.output.appendLine(`Stopping the server failed: ${describeError(error)}`);
      }
    }
  }

  async restart(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  logError(message: string, error: unknown): void {
    this.output.appendLine(`${message}: ${describeError(error)}`);
  }

  showLog(): void {
    this.output.show(true);
  }

  /** Sends one request of the contract; waits for a server that is still starting. */
  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.starting !== undefined) {
      await this.starting;
    }
    const client = this.client;
    if (client === undefined || this.stateValue !== 'running') {
      throw new Error('The Plansight server is not running. Run "Plansight: Restart Server" or see "Plansight: Show Server Log".');
    }
    return client.sendRequest<ResultOf<M>>(method, params);
  }

  dispose(): void {
    void this.stop();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private async doStart(): Promise<void> {
    const config = vscode.workspace.getConfiguration('plansight');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const resolution = resolveServerCommand(
      {
        command: config.get<string>('server.command', 'plansight'),
        python: config.get<string>('server.python', ''),
        storePath: config.get<string>('store.path', ''),
      },
      { pathVariable: process.env.PATH, cwd: folder, isExecutable },
    );
    if (!resolution.ok) {
      this.fail(resolution.reason);
      return;
    }
    const { server } = resolution;
    this.output.appendLine(`Starting ${[server.command, ...server.args].join(' ')}${folder === undefined ? '' : ` in ${folder}`}`);
    this.stderrTail = '';
    this.lastExit = undefined;
    this.setState('starting');

    const client = new QuietLanguageClient('plansight', 'Plansight', this.serverOptions(server, folder), this.clientOptions());
    this.client = client;
    client.onNotification(DID_CHANGE, (params: DidChangeParams) => this.changeEmitter.fire(params));
    client.onNotification(DID_PRUNE, (params: DidPruneParams) => {
      if (Array.isArray(params.sessions)) {
        this.pruneEmitter.fire(params.sessions.filter((session) => typeof session === 'string'));
      }
    });
    client.onDidChangeState((event) => {
      // After a crash languageclient restarts the server itself: notifications may be lost.
      if (event.newState === State.Running && this.client === client && this.stateValue === 'running') {
        this.readyEmitter.fire();
      }
    });
    let failure: unknown;
    try {
      await client.start();
    } catch (error) {
      failure = error ?? new Error('the start failed');
    }
    if (this.client !== client) {
      return; // stopped or restarted while starting
    }
    // languageclient's start() can resolve although the server died while starting (when
    // the close arrives before the failed initialize): ask it whether it runs.
    if (failure !== undefined || !client.isRunning()) {
      this.client = undefined;
      // The write that failed often comes before the exit and the last words on stderr:
      // wait for them (briefly) so the message says why, not "write EPIPE".
      await Promise.race([this.processClosed, new Promise((resolve) => setTimeout(resolve, 2000))]);
      this.fail(this.withStderr(this.exitReason() ?? (failure === undefined ? 'it stopped while starting' : describeError(failure))));
      return;
    }
    const advertised = (client.initializeResult?.capabilities.experimental as { plansight?: { protocolVersion?: unknown } } | undefined)
      ?.plansight?.protocolVersion;
    if (advertised !== PROTOCOL_VERSION) {
      this.output.appendLine(`Warning: the server speaks Plansight protocol ${String(advertised)}, this extension ${PROTOCOL_VERSION}.`);
      void vscode.window.showWarningMessage(
        `Plansight: the server speaks protocol version ${String(advertised)}, this extension expects ${PROTOCOL_VERSION}. Update one of them.`,
      );
    }
    this.setState('running');
    this.readyEmitter.fire();
  }

  private serverOptions(server: ServerCommand, cwd: string | undefined): ServerOptions {
    return () =>
      new Promise<ChildProcess>((resolve, reject) => {
        // cwd is the workspace folder: the server's default store depends on it.
        // The store setting goes in the environment, which only this user can read.
        const child = spawn(server.command, [...server.args], { cwd, env: { ...process.env, ...server.env }, stdio: 'pipe' });
        // languageclient copies stderr into the output channel; keep the end for the error message.
        child.stderr.on('data', (chunk: Buffer) => {
          this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
        });
        this.processClosed = new Promise((closed) => {
          child.once('close', (code, signal) => {
            this.lastExit = signal === null ? `it exited with code ${String(code)}` : `it was stopped by ${signal}`;
            closed();
          });
        });
        child.once('spawn', () => resolve(child));
        child.once('error', (error) => reject(new Error(`could not run ${server.command}: ${error.message}`)));
      });
  }

  private clientOptions(): LanguageClientOptions {
    const errorHandler: ErrorHandler = {
      error: (_error, _message, count): ErrorHandlerResult => ({
        action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
        handled: true,
      }),
      closed: (): CloseHandlerResult => this.onClosed(),
    };
    return {
      documentSelector: [],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => ({ plansight: settingsForServer() }),
      synchronize: { configurationSection: 'plansight' },
      initializationFailedHandler: () => false,
      errorHandler,
    };
  }

  private onClosed(): CloseHandlerResult {
    if (this.stateValue !== 'running') {
      // Never got going: start() rejects and reports it once.
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < CRASH_WINDOW_MS), now];
    if (this.crashes.length <= MAX_CRASHES) {
      this.output.appendLine('The server stopped; restarting it.');
      return { action: CloseAction.Restart, handled: true };
    }
    this.client = undefined;
    this.fail(this.withStderr(`it stopped ${this.crashes.length} times in 3 minutes`));
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Read through a method: the exit handler sets it behind the compiler's back. */
  private exitReason(): string | undefined {
    return this.lastExit;
  }

  private withStderr(reason: string): string {
    const lastLine = this.stderrTail.trim().split(/\r?\n/).pop();
    return lastLine === undefined || lastLine === '' ? reason : `${reason} (${lastLine.trim()})`;
  }

  private fail(reason: string): void {
    this.output.appendLine(`The Plansight server could not start: ${reason}`);
    const alreadyFailed = this.stateValue === 'failed';
    this.setState('failed');
    if (alreadyFailed) {
      return; // one message, not one per attempt
    }
    void vscode.window
      .showErrorMessage(`Plansight: the server could not start: ${reason}.`, 'Open Settings', 'Show Log')
      .then((choice) => {
        if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'plansight.server');
        } else if (choice === 'Show Log') {
          this.showLog();
        }
      });
  }

  private setState(state: ServerState): void {
    if (state === this.stateValue) {
      return;
    }
    this.stateValue = state;
    void vscode.commands.executeCommand('setContext', 'plansight.serverState', state);
    this.stateEmitter.fire(state);
  }
}

/** The `plansight` settings as plain JSON: the server reads its keys and ignores the rest. */
export function settingsForServer(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(vscode.workspace.getConfiguration('plansight'))) as Record<string, unknown>;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A readable one-line account of a failed request, with the server's per-field errors. */
export function describeError(error: unknown): string {
  if (error instanceof ResponseError) {
    const data = error.data as { errors?: { path?: string; message?: string }[]; currentVersion?: number } | undefined;
    if (error.code === ErrorCodes.invalidParams && Array.isArray(data?.errors) && data.errors.length > 0) {
      const details = data.errors.map((e) => (e.path ? `${e.path}: ${e.message ?? ''}` : (e.message ?? '')));
      return `${error.message}: ${details.join('; ')}`;
    }
    if (error.code === ErrorCodes.contentModified) {
      return `The plan changed meanwhile (now version ${String(data?.currentVersion)}). Try again.`;
    }
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
