/**
 * The one connection to `plansight serve`: starts it over stdio with vscode-languageclient,
 * hands on its `plansight/didChange` notifications, and sends the contract's requests.
 * When the server cannot start, the person gets one message, not a stack of popups.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type {
  ClientCapabilities,
  CloseHandlerResult,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  StaticFeature,
} from 'vscode-languageclient/node';
import { isDeltaAnswer, resultOf, type AnswerReader, type ChangeAnswer, type ChangePush } from './changeDeltas';
import {
  DID_CHANGE,
  DID_PRUNE,
  ErrorCodes,
  PROTOCOL_VERSION,
  type DidPruneParams,
  type Origin,
  type ParamsOf,
  type RequestMethod,
  type ResultOf,
} from './protocol';
import { installPlaces, isExecutable, resolveServerCommand, type Resolution, type ServerCommand, type ServerSettings } from './serverCommand';
import { isResponseError, loadLanguageClient, type LanguageClientModule } from './languageClientModule';
import { cliPrefix, lastErrorLine, SERVER_SETTINGS, shellQuote } from './serverProcess';
import { moreServerPlaces, recordedServerFolder } from './serverSearch';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

/**
 * Why the server is not running, once it gave up: `notFound` (no `plansight` to run: the
 * first run), `startFailed` (it ran but never answered `initialize`), `crashed` (it stopped
 * again and again, or for good). `reason` is the server's own cause: its exit and its last
 * error line.
 */
export interface ServerFailure {
  readonly kind: 'notFound' | 'startFailed' | 'crashed';
  readonly reason: string;
  /** How the last process ended ("it exited with code 1"), when one ran. */
  readonly exit?: string;
}

const CRASH_WINDOW_MS = 3 * 60 * 1000;
const MAX_CRASHES = 3;

/** The requests that change a plan: held while the panel draws a plan the server has not confirmed. */
const WRITE_METHODS: ReadonlySet<RequestMethod> = new Set(['plansight/apply', 'plansight/write', 'plansight/clear', 'plansight/import', 'plansight/restore', 'plansight/ingest', 'plansight/undo']);

/** Settings that change which process runs: a change restarts the server. */
const PROCESS_SETTINGS = ['plansight.server.command', 'plansight.server.python', 'plansight.store.path'];

/** vscode-languageclient pops up a message for some errors; this client reports them itself. */
/**
 * Asks at `initialize` for pushes that carry the change (docs/protocol.md, "Change
 * deltas"): `capabilities.experimental.plansight.changeDeltas`, and answers that carry it
 * (`changeDeltaAnswers`). A server without the extension ignores them and sends whole
 * states, which are read as before.
 */
const CHANGE_DELTAS: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const plansight = (experimental.plansight ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, plansight: { ...plansight, changeDeltas: true, changeDeltaAnswers: true } };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

/** A LanguageClient that reports its errors in the log only (this client tells the person itself). */
function quietLanguageClient(lc: LanguageClientModule, serverOptions: ServerOptions, clientOptions: LanguageClientOptions): LanguageClient {
  class QuietLanguageClient extends lc.LanguageClient {
    override error(message: string, data?: unknown): void {
      super.error(message, data, false);
    }
  }
  return new QuietLanguageClient('plansight', 'Plansight', serverOptions, clientOptions);
}

export class PlansightClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** vscode-languageclient, once the first start loaded it (languageClientModule.ts). */
  private lc: LanguageClientModule | undefined;
  private starting: Promise<void> | undefined;
  private stateValue: ServerState = 'stopped';
  private stderrTail = '';
  /** How the last server process ended, when it did: the clearest reason a start failed. */
  private lastExit: string | undefined;
  /** Settles when the last server process has ended and its output is read. */
  private processClosed: Promise<void> = Promise.resolve();
  /** The process this extension started last: ended when its start fails (issue 33, item 14). */
  private child: ChildProcess | undefined;
  private crashes: number[] = [];
  private failureValue: ServerFailure | undefined;
  /** The command that runs the server, once found: the CLI of the same install. */
  private serverValue: ServerCommand | undefined;
  /** Why writes are refused now (PlanSync draws the last plan seen until the server's listing). */
  private writesHeld: string | undefined;
  /** Makes delta answers whole: `readAnswersWith`; till then the state is read with `get`. */
  private answers: AnswerReader = {
    answer: async (answer) => (isDeltaAnswer(answer) ? resultOf(await this.request('plansight/get', { session: answer.session }), answer) : answer),
  };
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<ChangePush>();
  private readonly pruneEmitter = new vscode.EventEmitter<readonly string[]>();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly readyEmitter = new vscode.EventEmitter<void>();

  /**
   * Every committed change of any session, from this window or any other process: a whole
   * state, or a delta (PlanSync's ChangeReader makes whole states of both).
   */
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
        } else if (SERVER_SETTINGS.some((key) => event.affectsConfiguration(`plansight.${key}`))) {
          this.sendSettings();
        }
      }),
    );
  }

  get state(): ServerState {
    return this.stateValue;
  }

  /** Why the server gave up, while the state is `failed`. */
  get failure(): ServerFailure | undefined {
    return this.stateValue === 'failed' ? this.failureValue : undefined;
  }

  /**
   * Runs a `plansight` subcommand of the install the server runs from (the same command,
   * or `<python> -m plansight`), in the workspace folder, with the server's environment
   * (the store setting): `store-path`, `doctor --json`. Resolves to its stdout; rejects
   * when it cannot run or fails without output.
   */
  runCli(args: readonly string[]): Promise<string> {
    const server = this.serverValue;
    if (server === undefined) {
      return Promise.reject(new Error('the plansight command was not found'));
    }
    return new Promise((resolve, reject) => {
      execFile(
        server.command,
        [...cliPrefix(server), ...args],
        { cwd: workspaceFolder(), env: { ...process.env, ...server.env }, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (stdout.trim() !== '') {
            resolve(stdout); // doctor exits 1 when something is broken, with its report
          } else {
            reject(new Error(lastErrorLine(stderr) ?? error?.message ?? 'no output'));
          }
        },
      );
    });
  }

  /** The shell command line of a `plansight` subcommand of the server's install, for a terminal. */
  cliCommandLine(args: readonly string[]): string {
    const server = this.serverValue;
    const words = server === undefined ? ['plansight', ...args] : [server.command, ...cliPrefix(server), ...args];
    return words.map(shellQuote).join(' ');
  }

  /** The server's environment additions (the store setting), for a terminal. */
  get serverEnv(): Readonly<Record<string, string>> {
    return this.serverValue?.env ?? {};
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

  /** A line in the server log (timings of the start, for docs/performance.md). */
  log(message: string): void {
    this.output.appendLine(message);
  }

  logError(message: string, error: unknown): void {
    this.output.appendLine(`${message}: ${describeError(error)}`);
  }

  showLog(): void {
    this.output.show(true);
  }

  /**
   * Refuses the requests that change a plan, with `reason`, until called with undefined:
   * while the panel draws the plan it saw last (issue 33, item 12), what a person does there
   * was aimed at a state the server has not confirmed.
   */
  holdWrites(reason: string | undefined): void {
    this.writesHeld = reason;
  }

  /** Sends one request of the contract; waits for a server that is still starting. */
  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.writesHeld !== undefined && WRITE_METHODS.has(method)) {
      throw new Error(this.writesHeld);
    }
    if (this.starting !== undefined) {
      await this.starting;
    }
    const client = this.client;
    if (client === undefined || this.stateValue !== 'running') {
      throw new Error('The Plansight server is not running. Run "Plansight: Restart Server" or see "Plansight: Show Server Log".');
    }
    const result = await client.sendRequest<ResultOf<M>>(method, params);
    if (WRITE_METHODS.has(method) && isDeltaAnswer(result as ChangeAnswer)) {
      // Every caller gets a whole ApplyResult: the reader lays the delta on the state held.
      const origin = (params as { origin?: Origin }).origin ?? 'agent';
      return (await this.answers.answer(result as ChangeAnswer, origin));
    }
    return result;
  }

  /**
   * Who makes whole the answers that carry only the change (the window's ChangeReader,
   * which holds the states); until one is set, the answer's state is read with `get`.
   */
  readAnswersWith(reader: AnswerReader): void {
    this.answers = reader;
  }

  dispose(): void {
    void this.stop();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private async doStart(): Promise<void> {
    const folder = workspaceFolder();
    this.setState('starting');
    const began = Date.now();
    const resolution = await findServer(folder);
    const found = Date.now();
    if (!resolution.ok) {
      this.serverValue = undefined;
      if (resolution.searched !== undefined && resolution.searched.length > 0) {
        this.output.appendLine(`Looked for plansight on PATH (${process.env.PATH ?? ''}) and in: ${resolution.searched.slice(1).join(', ')}`);
      }
      this.fail({ kind: resolution.notFound === true ? 'notFound' : 'startFailed', reason: resolution.reason });
      return;
    }
    const { server } = resolution;
    this.serverValue = server;
    this.output.appendLine(`Starting ${[server.command, ...server.args].join(' ')}${folder === undefined ? '' : ` in ${folder}`}`);
    this.stderrTail = '';
    this.lastExit = undefined;

    let lc: LanguageClientModule;
    try {
      lc = loadLanguageClient();
    } catch (error) {
      this.fail({ kind: 'startFailed', reason: `the extension's language client could not load (${describeError(error)}): reinstall the extension` });
      return;
    }
    this.lc = lc;
    const client = quietLanguageClient(lc, this.serverOptions(server, folder), this.clientOptions(lc));
    this.client = client;
    client.registerFeature(CHANGE_DELTAS);
    client.onNotification(DID_CHANGE, (params: ChangePush) => this.changeEmitter.fire(params));
    client.onNotification(DID_PRUNE, (params: DidPruneParams) => {
      if (Array.isArray(params.sessions)) {
        this.pruneEmitter.fire(params.sessions.filter((session) => typeof session === 'string'));
      }
    });
    client.onDidChangeState((event) => {
      // After a crash languageclient restarts the server itself: notifications may be lost.
      if (event.newState === lc.State.Running && this.client === client && this.stateValue === 'running') {
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
      if (isResponseError(failure) && !isTransportError(failure)) {
        // The server answered `initialize` with why it cannot serve (a damaged store): its
        // own sentence is the cause; the process it leaves waiting is ended. (A write to a
        // process that died is jsonrpc's own error: the exit and stderr say more then.)
        this.endProcess();
        this.fail({ kind: 'startFailed', reason: failure.message.replace(/\.$/, '') });
        return;
      }
      // The write that failed often comes before the exit and the last words on stderr:
      // wait for them (briefly) so the message says why, not "write EPIPE".
      await Promise.race([this.processClosed, new Promise((resolve) => setTimeout(resolve, 2000))]);
      this.endProcess();
      const exit = this.exitReason();
      this.fail({
        kind: 'startFailed',
        reason: this.withStderr(exit ?? (failure === undefined ? 'it stopped while starting' : describeError(failure))),
        ...(exit === undefined ? {} : { exit }),
      });
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
    const deltas = (client.initializeResult?.capabilities.experimental as { plansight?: { changeDeltas?: unknown } } | undefined)?.plansight?.changeDeltas;
    this.output.appendLine(`The server pushes ${deltas === true ? 'change deltas' : 'whole states'}`);
    this.output.appendLine(`Server ready in ${Date.now() - began} ms (finding plansight ${found - began} ms, starting it and its initialize ${Date.now() - found} ms)`);
    this.setState('running');
    this.readyEmitter.fire();
  }

  /**
   * Sends the server's settings when one changes (in place of languageclient's
   * `synchronize`, which sends the whole `plansight` section, keys the server ignores too).
   */
  private sendSettings(): void {
    const { client, lc } = this;
    if (client === undefined || lc === undefined || this.stateValue !== 'running') {
      return; // the next start sends them in initializationOptions
    }
    client.sendNotification(lc.DidChangeConfigurationNotification.type, { settings: { plansight: settingsForServer() } }).catch((error: unknown) => {
      this.logError('Sending the settings failed', error);
    });
  }

  private serverOptions(server: ServerCommand, cwd: string | undefined): ServerOptions {
    return () =>
      new Promise<ChildProcess>((resolve, reject) => {
        // cwd is the workspace folder: the server's default store depends on it.
        // The store setting goes in the environment, which only this user can read.
        const child = spawn(server.command, [...server.args], { cwd, env: { ...process.env, ...server.env }, stdio: 'pipe' });
        this.child = child;
        // The cause of a stop is in this process's words, not in an earlier one's.
        this.stderrTail = '';
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

  private clientOptions(lc: LanguageClientModule): LanguageClientOptions {
    const errorHandler: ErrorHandler = {
      error: (_error, _message, count): ErrorHandlerResult => ({
        action: count !== undefined && count <= 3 ? lc.ErrorAction.Continue : lc.ErrorAction.Shutdown,
        handled: true,
      }),
      closed: (): CloseHandlerResult => this.onClosed(lc),
    };
    return {
      documentSelector: [],
      outputChannel: this.output,
      revealOutputChannelOn: lc.RevealOutputChannelOn.Never,
      initializationOptions: () => ({ plansight: settingsForServer() }),
      initializationFailedHandler: () => false,
      errorHandler,
    };
  }

  private onClosed(lc: LanguageClientModule): CloseHandlerResult {
    if (this.stateValue !== 'running') {
      // Never got going: start() rejects and reports it once.
      return { action: lc.CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < CRASH_WINDOW_MS), now];
    if (this.crashes.length <= MAX_CRASHES) {
      this.output.appendLine('The server stopped; restarting it.');
      return { action: lc.CloseAction.Restart, handled: true };
    }
    this.client = undefined;
    // The panel stops looking live now; the cause follows once the process's end is read.
    this.failureValue = { kind: 'crashed', reason: `it stopped ${this.crashes.length} times in 3 minutes` };
    this.setState('failed');
    void Promise.race([this.processClosed, new Promise((resolve) => setTimeout(resolve, 2000))]).then(() => {
      if (this.client !== undefined || this.stateValue !== 'failed') {
        return; // restarted meanwhile
      }
      const exit = this.exitReason();
      const times = `it stopped ${this.crashes.length} times in 3 minutes`;
      const reason = this.withStderr(exit === undefined ? times : `${times}; the last time ${exit}`);
      this.fail({ kind: 'crashed', reason, ...(exit === undefined ? {} : { exit }) }, true);
    });
    return { action: lc.CloseAction.DoNotRestart, handled: true };
  }

  /** Ends the process this extension started, if it still runs: no server lives on unseen. */
  private endProcess(): void {
    const child = this.child;
    this.child = undefined;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      this.output.appendLine(`Ending the server process ${String(child.pid)}: it cannot serve.`);
      child.kill('SIGTERM');
    }
  }

  /** Read through a method: the exit handler sets it behind the compiler's back. */
  private exitReason(): string | undefined {
    return this.lastExit;
  }

  /** The reason with the server's own last error line, never one of its warnings or notes. */
  private withStderr(reason: string): string {
    const line = lastErrorLine(this.stderrTail);
    return line === undefined ? reason : `${reason} (${line})`;
  }

  /**
   * Says once why the server is not running, with the buttons that help: Restart, Show Log,
   * Open Settings (`announced`: the state is `failed` already, set by the close handler, and
   * this is its message). A missing command gets no notification (issue 33, item 15): VS
   * Code's API cannot close one, so it would stay after Locate plansight… or setup's record
   * found the server, saying "not found" of a server that runs. The panel's welcome (with
   * Locate, Install and the setting) and the status item say it instead, and both change
   * the moment it is found.
   */
  private fail(failure: ServerFailure, announced = false): void {
    const what = failure.kind === 'crashed' ? 'stopped' : failure.kind === 'notFound' ? 'was not found' : 'could not start';
    this.output.appendLine(`The Plansight server ${what}: ${failure.reason}`);
    const alreadyFailed = this.stateValue === 'failed' && !announced;
    this.failureValue = failure;
    if (this.stateValue === 'failed') {
      this.stateEmitter.fire('failed'); // the cause changed: redraw it
    } else {
      this.setState('failed');
    }
    if (alreadyFailed || failure.kind === 'notFound') {
      return; // one message, not one per attempt; none for a server not found (above)
    }
    void vscode.window.showErrorMessage(`Plansight: the server ${what}: ${failure.reason}.`, 'Restart', 'Show Log', 'Open Settings').then((choice) => {
      if (choice === 'Restart') {
        void this.restart();
      } else if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('plansight.openServerSettings');
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

/** The server's settings as plain JSON, from the `plansight` section. */
export function settingsForServer(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('plansight');
  const settings: Record<string, unknown> = {};
  for (const key of SERVER_SETTINGS) {
    const value = config.get<unknown>(key);
    if (value !== undefined) {
      settings[key] = value;
    }
  }
  return settings;
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/**
 * The server to run: the settings' command on PATH or where installers put it; when not
 * there, also the Python extension's interpreter's folder and the login shell's PATH
 * (asked only then: a shell start costs time).
 */
async function findServer(folder: string | undefined): Promise<Resolution> {
  const config = vscode.workspace.getConfiguration('plansight');
  const settings: ServerSettings = {
    command: config.get<string>('server.command', 'plansight'),
    python: config.get<string>('server.python', ''),
    storePath: config.get<string>('store.path', ''),
  };
  // Where `plansight setup vscode` ran from first: no shell to start, and the one the person chose.
  const recorded = recordedServerFolder();
  const places = [...(recorded === undefined ? [] : [recorded]), ...installPlaces({ home: process.env.HOME ?? os.homedir(), env: process.env })];
  const lookup = { pathVariable: process.env.PATH, cwd: folder, isExecutable };
  const first = resolveServerCommand(settings, { ...lookup, extraDirs: places });
  if (first.ok || first.notFound !== true) {
    return first;
  }
  const more = await moreServerPlaces(folder);
  const extraDirs = [...new Set([...places, ...(more.python === undefined ? [] : [more.python]), ...more.shell])];
  const second = resolveServerCommand(settings, { ...lookup, extraDirs });
  if (second.ok || second.notFound !== true) {
    return second;
  }
  // The login shell's PATH repeats most of PATH: name it as such, not folder by folder.
  const python = more.python === undefined ? [] : [`${more.python} (the Python extension's interpreter)`];
  const where = [...places, ...python, "the login shell's PATH"];
  return { ...second, reason: `"${settings.command.trim()}" was not found on PATH or in ${where.join(', ')}, and plansight.server.python is not set` };
}


/** jsonrpc's own errors (a write or read that failed, a closed connection): -32099 to -32000. */
function isTransportError(error: ResponseError<unknown>): boolean {
  return error.code >= -32099 && error.code <= -32000;
}

/** A readable one-line account of a failed request, with the server's per-field errors. */
export function describeError(error: unknown): string {
  if (isResponseError(error)) {
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
