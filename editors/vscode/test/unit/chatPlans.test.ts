/**
 * The language-model tools' calls against the real server (`plansight serve` on stdio, a
 * store of the test's own), with the invocation tokens VS Code hands a tool (chatTokens.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
// The JSON-RPC library vscode-languageclient talks to the server with (its own dependency).
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { plansightBin } from '../../scripts/generateProtocol';
import { ChatPlans, type Requester } from '../../src/chatPlans';
import { chatSession, FALLBACK_SESSION } from '../../src/chatSession';
import type { TodoState, WriteItem } from '../../src/protocol';
import { CHAT_A, CHAT_B, tokenOf100, tokenOfResource } from './chatTokens';
import { EXTENSION_ROOT } from './fixtures';

const TODOS_A: WriteItem[] = [
  { content: 'Write the parser', activeForm: 'Writing the parser', status: 'in_progress' },
  { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
];
const TODOS_B: WriteItem[] = [{ content: 'Tag the release', activeForm: 'Tagging the release', status: 'in_progress' }];

let dir: string;
let server: ChildProcessWithoutNullStreams;
let connection: MessageConnection;
const request: Requester = (method, params) => connection.sendRequest(method, params);
const get = (session: string): Promise<TodoState> => request('plansight/get', { session });
const contents = (state: TodoState): string[] => state.phases.flatMap((phase) => phase.tasks.map((task) => task.content));

function plans(configured = '', hour = 10): { plans: ChatPlans; errors: string[] } {
  const errors: string[] = [];
  const made = new ChatPlans({
    request,
    configuredSession: () => configured,
    logError: (message) => errors.push(message),
    now: () => new Date(2026, 10, 28, hour, 42),
  });
  return { plans: made, errors };
}

before(async () => {
  const bin = plansightBin(EXTENSION_ROOT);
  assert.ok(fs.existsSync(bin), `The plansight CLI is needed: set PLANSIGHT_BIN or create ${bin}`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plansight-chat-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CACHE_HOME: path.join(home, '.cache') };
  server = spawn(bin, ['serve', '--db', path.join(dir, 'plans.db')], { cwd: dir, env });
  server.stderr.resume();
  connection = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  connection.listen();
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  await connection.sendNotification('initialized', {});
});

after(async () => {
  await connection.sendRequest('shutdown').catch(() => undefined);
  await connection.sendNotification('exit').catch(() => undefined);
  connection.dispose();
  await new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) {
      resolve();
      return;
    }
    server.once('exit', () => resolve());
    setTimeout(() => server.kill(), 10_000).unref();
  });
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('each VS Code chat its own plan (issue 31, item 7)', () => {
  it('keeps two chats\' lists apart, each in a session titled by when its plan began', async () => {
    const { plans: tools, errors } = plans();
    await tools.write(TODOS_A, tokenOf100(CHAT_A));
    const b = await tools.write(TODOS_B, tokenOf100(CHAT_B));
    const a = await get(chatSession(CHAT_A));
    assert.deepEqual(contents(a), ['Write the parser', 'Run the tests']);
    assert.deepEqual(contents(b), ['Tag the release']);
    assert.notEqual(a.session, b.session);
    assert.equal(a.title, 'VS Code chat 10:42');
    assert.equal(b.title, 'VS Code chat 10:42');
    assert.deepEqual(errors, []);
  });

  it('lets a chat change its own list, whichever request of it calls, and leaves the title', async () => {
    const { plans: tools } = plans('', 11);
    const result = await tools.apply([{ op: 'done', task: 'Write the parser' }], tokenOfResource(CHAT_A, 'request_2'));
    assert.equal(result.session, chatSession(CHAT_A));
    assert.deepEqual(
      result.phases.flatMap((phase) => phase.tasks.map((task) => [task.content, task.status])),
      [
        ['Write the parser', 'completed'],
        ['Run the tests', 'in_progress'],
      ],
    );
    assert.equal(result.title, 'VS Code chat 10:42');
    assert.deepEqual(contents(await get(chatSession(CHAT_B))), ['Tag the release']);
  });

  it('titles a chat\'s session before its change, so Undo takes back the change and keeps the title', async () => {
    const chat = 'c0ffee00-1111-4222-8333-444455556666';
    const { plans: tools } = plans();
    await tools.write(TODOS_B, tokenOf100(chat));
    const undone = await request('plansight/undo', { session: chatSession(chat), origin: 'user' });
    assert.deepEqual(contents(undone), []);
    assert.equal(undone.title, 'VS Code chat 10:42');
  });

  it('never retitles a session a person titled', async () => {
    const chat = '0a1b2c3d-0000-4000-8000-000000000001';
    await request('plansight/ingest', { session: chatSession(chat), format: 'vscode-todos', payload: { operation: 'read' }, title: 'Release work', origin: 'user' });
    const result = await plans().plans.write(TODOS_B, tokenOf100(chat));
    assert.equal(result.title, 'Release work');
  });

  it('still makes the change when the title cannot be set, and titles at the next call', async () => {
    const chat = '0a1b2c3d-0000-4000-8000-000000000002';
    let failures = 1;
    const errors: string[] = [];
    const flaky: Requester = (method, params) => (method === 'plansight/get' && failures-- > 0 ? Promise.reject(new Error('the server restarted')) : request(method, params));
    const tools = new ChatPlans({ request: flaky, configuredSession: () => '', logError: (message) => errors.push(message), now: () => new Date(2026, 10, 28, 12, 0) });
    const first = await tools.write(TODOS_B, tokenOf100(chat));
    assert.deepEqual([contents(first), first.title], [['Tag the release'], null]);
    assert.deepEqual(errors, [`Titling the session ${chatSession(chat)} failed`]);
    const second = await tools.apply([{ op: 'done', task: 'Tag the release' }], tokenOf100(chat));
    assert.equal(second.title, 'VS Code chat 12:00');
  });

  it('writes a call tied to no chat to the fallback session, untitled', async () => {
    const result = await plans().plans.write(TODOS_B, undefined);
    assert.equal(result.session, FALLBACK_SESSION);
    assert.equal(result.title, null);
  });

  it('writes every chat to the set session when plansight.tools.session names one, untitled', async () => {
    const { plans: tools } = plans('shared');
    await tools.write(TODOS_A, tokenOf100(CHAT_A));
    const result = await tools.apply([{ op: 'append', phase: 'Todos', items: ['Ship it'] }], tokenOf100(CHAT_B));
    assert.equal(result.session, 'shared');
    assert.equal(result.title, null);
    assert.ok(contents(result).includes('Ship it'));
  });
});
