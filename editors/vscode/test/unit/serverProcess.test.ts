import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { AGENTS, agentSetups } from '../../src/agents';
import { cliHint, cliPrefix, lastErrorLine, SERVER_SETTINGS } from '../../src/serverProcess';
import { EXTENSION_ROOT } from './fixtures';

const REPO = path.resolve(EXTENSION_ROOT, '..', '..');

describe('the settings sent to the server (issue 23, item 1)', () => {
  it('are exactly the fields of the server\'s Settings, so it never logs one as ignored', () => {
    const source = fs.readFileSync(path.join(REPO, 'server', 'plansight', 'core', 'settings.py'), 'utf8');
    const body = source.slice(source.indexOf('class Settings('), source.indexOf('def merge_settings'));
    const fields = [...body.matchAll(/^ {4}([a-z_]+): /gm)].map((match) => (match[1] ?? '').replace(/_([a-z])/g, (_all, letter: string) => letter.toUpperCase()));
    assert.deepEqual([...SERVER_SETTINGS].sort(), fields.sort());
  });

  it('leave out maxSessions, which the package marks deprecated', () => {
    assert.ok(!(SERVER_SETTINGS as readonly string[]).includes('maxSessions'));
    const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { markdownDeprecationMessage?: string }> } };
    };
    assert.ok(manifest.contributes.configuration.properties['plansight.maxSessions']?.markdownDeprecationMessage);
  });
});

describe('lastErrorLine: the cause of a stop, from the server\'s stderr', () => {
  it('skips the server\'s warnings (the setting it ignores is never the cause)', () => {
    const stderr = 'Traceback (most recent call last):\n  File "x.py", line 1\nOSError: [Errno 28] No space left on device\nplansight WARNING plansight.core.settings: the setting maxSessions is ignored\n';
    assert.equal(lastErrorLine(stderr), 'OSError: [Errno 28] No space left on device');
  });

  it("keeps the server's own error lines, and says nothing when there is none", () => {
    assert.equal(lastErrorLine('plansight ERROR plansight.lsp: the store is gone\nplansight INFO x: plan store: /a\n'), 'plansight ERROR plansight.lsp: the store is gone');
    assert.equal(lastErrorLine('plansight WARNING x: y\n\n'), undefined);
  });
});

describe('the CLI of the server\'s install', () => {
  it('runs a subcommand of `plansight` or of `<python> -m plansight`', () => {
    assert.deepEqual(cliPrefix({ command: '/bin/plansight', args: ['serve'] }), []);
    assert.deepEqual(cliPrefix({ command: '/usr/bin/python3', args: ['-m', 'plansight', 'serve'] }), ['-m', 'plansight']);
  });

  it('says how a command in a terminal reads the panel\'s store (issue 23, item 12)', () => {
    assert.equal(cliHint('/home/a/.local/state/plansight/0123abcd.sqlite3'), 'A plansight command reads it with PLANSIGHT_DB=/home/a/.local/state/plansight/0123abcd.sqlite3 plansight show (or --db /home/a/.local/state/plansight/0123abcd.sqlite3).');
    assert.match(cliHint("/tmp/it's here/plan.sqlite3"), /PLANSIGHT_DB='\/tmp\/it'\\''s here\/plan.sqlite3' plansight show/);
    assert.doesNotMatch(cliHint('postgresql://alice:****@db.example/plans'), /\*\*\*\*/);
  });
});

describe('agentSetups: the agents the welcome names, from plansight doctor --json (issue 23, item 3)', () => {
  it('marks each agent found, set up or absent', () => {
    const setups = agentSetups({ agents: [{ name: 'claude-code', setUp: true }, { name: 'gemini', setUp: false }, { name: 'aider', setUp: true }] });
    assert.deepEqual(Object.fromEntries(setups), { 'claude-code': 'setUp', codex: '', gemini: 'found', opencode: '', copilot: '' });
  });

  it('refuses a report without agents', () => {
    assert.throws(() => agentSetups({ ok: true }), /no list of agents/);
  });

  it('has a Set Up command and welcome entries in package.json for each agent', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[]; viewsWelcome: { when: string; contents: string }[] };
    };
    for (const agent of AGENTS) {
      assert.ok(manifest.contributes.commands.some((c) => c.command === agent.command), agent.command);
      const found = manifest.contributes.viewsWelcome.find((w) => w.when.includes(`plansight.agent.${agent.key} == found`));
      assert.ok(found?.contents.includes(`(command:${agent.command})`), agent.name);
    }
  });
});
