/**
 * The empty panel says how to connect an agent: it asks `plansight doctor --json` which
 * agents are on this machine and whether each is set up, and sets one context key per agent
 * (`plansight.agent.<key>`: `setUp`, `found` or empty) for the welcome content in
 * package.json. Its buttons run `plansight setup AGENT` or `plansight doctor` in a terminal,
 * where the person sees what changes, then ask the doctor again. What the report finds that
 * silently stops plans arriving (Codex hooks not trusted yet) is the Plan view's message
 * while it holds.
 */
import * as vscode from 'vscode';
import { AGENTS, agentSetups, doctorMessage, type AgentSetup } from './agents';
import type { PlansightClient } from './client';

export class AgentsWelcome implements vscode.Disposable {
  private checking: Promise<void> | undefined;
  /** An agent was found that is not set up yet (or none was found): worth asking again. */
  private waiting = true;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: PlansightClient,
    private readonly readme: vscode.Uri,
    /** Shows the doctor's message in the Plan view (undefined: none). */
    private readonly showMessage: (message: string | undefined) => void = () => undefined,
    /** When to ask the doctor after a (re)start: once the first rows are drawn. */
    ready: vscode.Event<void> = client.onDidBecomeReady,
  ) {
    this.disposables.push(
      ready(() => void this.check()),
      ...AGENTS.map((agent) => vscode.commands.registerCommand(agent.command, () => this.runInTerminal(['setup', agent.name], `setup ${agent.name}`))),
      vscode.commands.registerCommand('plansight.checkSetup', () => this.runInTerminal(['doctor'], 'doctor')),
      vscode.commands.registerCommand('plansight.showAgentDocs', () => vscode.commands.executeCommand('markdown.showPreview', this.readme)),
      // A setup done in a terminal of its own (or a shell without integration): look again
      // when the person comes back to the window or closes a terminal.
      vscode.window.onDidCloseTerminal(() => void this.check()),
      vscode.window.onDidChangeWindowState((state) => {
        // Only while the welcome has something to change: an agent found and not set up
        // (the doctor may ask Codex and each editor: not on every focus).
        if (state.focused && this.waiting) {
          void this.check();
        }
      }),
    );
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  /** Asks the doctor again; one run at a time. */
  check(): Promise<void> {
    if (this.client.state !== 'running') {
      return Promise.resolve();
    }
    this.checking ??= this.ask().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async ask(): Promise<void> {
    let setups: Map<string, AgentSetup>;
    let message: string | undefined;
    try {
      const report: unknown = JSON.parse(await this.client.runCli(['doctor', '--json']));
      setups = agentSetups(report);
      message = doctorMessage(report);
    } catch (error) {
      this.client.logError('Asking plansight doctor which agents are here failed', error);
      return;
    }
    for (const agent of AGENTS) {
      await vscode.commands.executeCommand('setContext', `plansight.agent.${agent.key}`, setups.get(agent.name) ?? '');
    }
    this.showMessage(message);
    const found = [...setups.values()].filter((setup) => setup !== '').length;
    // Hooks to trust are trusted in Codex: look again when the person comes back.
    this.waiting = found === 0 || [...setups.values()].includes('found') || message !== undefined;
    await vscode.commands.executeCommand('setContext', 'plansight.agentsFound', found);
    await vscode.commands.executeCommand('setContext', 'plansight.agentsChecked', true);
  }

  /** Runs a plansight subcommand of the server's install in a terminal; asks the doctor again after. */
  private async runInTerminal(args: readonly string[], title: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const terminal = vscode.window.createTerminal({ name: `Plansight: ${title}`, cwd: folder, env: { ...this.client.serverEnv } });
    terminal.show();
    const commandLine = this.client.cliCommandLine(args);
    const integration = terminal.shellIntegration ?? (await shellIntegrationOf(terminal));
    const execution = integration?.executeCommand(commandLine);
    if (execution === undefined) {
      terminal.sendText(commandLine);
    }
    // Ask the doctor once the command ends. Typed with sendText, it is still seen ending
    // when the shell's integration came after the wait (a loaded machine): the welcome went
    // on saying "not connected yet" under a terminal that said it was set up.
    const ended = vscode.window.onDidEndTerminalShellExecution((event) => {
      if (execution === undefined ? event.terminal === terminal : event.execution === execution) {
        ended.dispose();
        void this.check();
      }
    });
    const closed = vscode.window.onDidCloseTerminal((gone) => {
      if (gone === terminal) {
        ended.dispose();
        closed.dispose();
      }
    });
    this.disposables.push(ended, closed);
  }
}

/** The terminal's shell integration once it is there (a few seconds at most), else undefined. */
function shellIntegrationOf(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve(undefined);
    }, 5000); // a shell without integration never says so: stop waiting and type the command
    const listener = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal === terminal) {
        clearTimeout(timer);
        listener.dispose();
        resolve(event.shellIntegration);
      }
    });
  });
}
