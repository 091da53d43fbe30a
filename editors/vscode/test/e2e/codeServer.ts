/**
 * A throwaway code-server 4.100.3 (VS Code 1.100.3) with the extension's .vsix installed:
 * its own HOME, user data, extensions folder and port, so a run touches nothing outside
 * its temp folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { until } from './wait';

export interface CodeServerOptions {
  /** code-server's `out/node/entry.js`. */
  readonly entry: string;
  readonly vsix: string;
  readonly workspace: string;
  /** Where code-server keeps everything of this run. */
  readonly dir: string;
  readonly userSettings: Record<string, unknown>;
  /**
   * The remote's (code-server's Machine) settings. A code-server window is a remote window:
   * VS Code applies a `machine` or `machine-overridable` setting from there only. From the
   * User settings it is dropped once the extension's schema says its scope, which after a
   * reload can be before the extension host starts.
   */
  readonly machineSettings?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}

export class CodeServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly userDataDir: string,
    private readonly logFile: string,
  ) {}

  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const home = path.join(options.dir, 'home');
    const userDataDir = path.join(options.dir, 'user-data');
    const extensionsDir = path.join(options.dir, 'extensions');
    for (const dir of [home, path.join(userDataDir, 'User'), extensionsDir]) {
      fs.mkdirSync(dir, { recursive: true });
    }
    fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(options.userSettings, null, 2));
    if (options.machineSettings !== undefined) {
      fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
      fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(options.machineSettings, null, 2));
    }
    const config = path.join(options.dir, 'config.yaml');
    fs.writeFileSync(config, 'auth: none\ncert: false\n');
    const env = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, 'state'), ...options.env };
    const common = ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

    const install = spawnSync(process.execPath, [options.entry, ...common, '--install-extension', options.vsix], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (install.status !== 0) {
      throw new Error(`Installing ${options.vsix} failed:\n${install.stdout}\n${install.stderr}`);
    }

    const port = await freePort();
    const logFile = path.join(options.dir, 'code-server.log');
    const log = fs.openSync(logFile, 'a');
    const child = spawn(
      process.execPath,
      [
        options.entry,
        ...common,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        options.workspace,
      ],
      { env, stdio: ['ignore', log, log], detached: true },
    );
    fs.closeSync(log);
    const server = new CodeServer(child, `http://127.0.0.1:${port}`, userDataDir, logFile);
    try {
      await until('code-server to answer /healthz', () => httpOk(`${server.url}/healthz`), 60_000);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** The URL that opens the workspace folder. */
  folderUrl(folder: string): string {
    return `${this.url}/?folder=${encodeURIComponent(folder)}`;
  }

  /** The last lines of code-server's output and of the extension's output channel. */
  diagnostics(): string {
    const parts = [`--- code-server log (${this.logFile}) ---`, tail(this.logFile)];
    for (const file of findFiles(path.join(this.userDataDir, 'logs'))) {
      if (/Plansight\.log$|exthost\.log$|remoteexthost\.log$/.test(file)) {
        parts.push(`--- ${file} ---`, tail(file));
      }
    }
    return parts.join('\n');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.pid === undefined) {
      return;
    }
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    // detached: code-server and its extension host (and the Plansight server) form one group.
    process.kill(-this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-(this.child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === 'object') {
          resolve(address.port);
        } else {
          reject(new Error('no port'));
        }
      });
    });
  });
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.setTimeout(2000, () => {
      request.destroy();
      resolve(false);
    });
  });
}

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(missing)';
  }
}

function findFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => path.join(dir, file));
}
