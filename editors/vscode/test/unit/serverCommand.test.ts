import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { installPlaces, isExecutable, resolveServerCommand, type Lookup } from '../../src/serverCommand';

function lookup(executables: string[]): Lookup {
  return { pathVariable: '/usr/bin:/opt/venv/bin', cwd: '/work/ws', isExecutable: (file) => executables.includes(file), delimiter: ':' };
}

const defaults = { command: 'plansight', python: '', storePath: '' };

describe('resolveServerCommand', () => {
  it('runs `plansight serve` from PATH', () => {
    assert.deepEqual(resolveServerCommand(defaults, lookup(['/opt/venv/bin/plansight'])), {
      ok: true,
      server: { command: '/opt/venv/bin/plansight', args: ['serve'] },
    });
  });

  it('passes the store path in PLANSIGHT_DB, not on the command line', () => {
    const result = resolveServerCommand({ ...defaults, storePath: ' /tmp/plan.sqlite3 ' }, lookup(['/usr/bin/plansight']));
    assert.deepEqual(result, {
      ok: true,
      server: { command: '/usr/bin/plansight', args: ['serve'], env: { PLANSIGHT_DB: '/tmp/plan.sqlite3' } },
    });
  });

  it('never puts a team store URL (and its password) in the arguments every user sees in ps', () => {
    const url = 'postgresql://alice:s3cret@db.example/plans';
    const result = resolveServerCommand({ ...defaults, storePath: url }, lookup(['/usr/bin/plansight']));
    assert.ok(result.ok);
    assert.ok(!result.server.args.some((arg) => arg.includes('s3cret')), JSON.stringify(result.server.args));
    assert.deepEqual(result.server.env, { PLANSIGHT_DB: url });
  });

  it('falls back to `<python> -m plansight serve` when the command is not found', () => {
    const result = resolveServerCommand({ ...defaults, python: 'python3', storePath: 'x.db' }, lookup(['/usr/bin/python3']));
    assert.deepEqual(result, {
      ok: true,
      server: { command: '/usr/bin/python3', args: ['-m', 'plansight', 'serve'], env: { PLANSIGHT_DB: 'x.db' } },
    });
  });

  it('resolves a relative command path against the workspace folder', () => {
    const result = resolveServerCommand({ ...defaults, command: '.venv/bin/plansight' }, lookup(['/work/ws/.venv/bin/plansight']));
    assert.deepEqual(result, { ok: true, server: { command: '/work/ws/.venv/bin/plansight', args: ['serve'] } });
  });

  it('says what is missing when nothing can run', () => {
    assert.deepEqual(resolveServerCommand(defaults, lookup([])), {
      ok: false,
      reason: '"plansight" was not found on PATH and plansight.server.python is not set',
      notFound: true,
      searched: ['PATH'],
    });
    assert.deepEqual(resolveServerCommand({ ...defaults, python: '/nope/python' }, lookup([])), {
      ok: false,
      reason: 'the Python interpreter "/nope/python" (plansight.server.python) was not found',
    });
  });
});

/** A home folder of the test's own, with real files: where installers put `plansight`. */
function fakeHome(...executables: string[]): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plansight-home-'));
  for (const file of executables) {
    const full = path.join(home, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, '#!/bin/sh\n', { mode: 0o755 });
  }
  return home;
}

function realLookup(home: string, env: Record<string, string> = {}): Lookup {
  return { pathVariable: '/nonexistent/bin', cwd: home, isExecutable, delimiter: ':', extraDirs: installPlaces({ home, env }) };
}

describe('installPlaces: where people install plansight (issue 23, item 2)', () => {
  it('finds `pip install --user` and pipx/uv shims in ~/.local/bin', () => {
    const home = fakeHome('.local/bin/plansight');
    const result = resolveServerCommand(defaults, realLookup(home));
    assert.deepEqual(result, { ok: true, server: { command: path.join(home, '.local/bin/plansight'), args: ['serve'] } });
  });

  it("finds pipx's venv, old and new layout, and $PIPX_HOME", () => {
    for (const file of ['.local/pipx/venvs/plansight/bin/plansight', '.local/share/pipx/venvs/plansight/bin/plansight']) {
      const home = fakeHome(file);
      assert.deepEqual(resolveServerCommand(defaults, realLookup(home)), { ok: true, server: { command: path.join(home, file), args: ['serve'] } });
    }
    const home = fakeHome('pipx-home/venvs/plansight/bin/plansight');
    const env = { PIPX_HOME: path.join(home, 'pipx-home') };
    assert.deepEqual(resolveServerCommand(defaults, realLookup(home, env)), {
      ok: true,
      server: { command: path.join(home, 'pipx-home/venvs/plansight/bin/plansight'), args: ['serve'] },
    });
  });

  it("finds uv's tool venv, under $XDG_DATA_HOME and $UV_TOOL_DIR", () => {
    const home = fakeHome('.local/share/uv/tools/plansight/bin/plansight', 'tools/plansight/bin/plansight', 'data/uv/tools/plansight/bin/plansight');
    assert.equal((resolveServerCommand(defaults, realLookup(home)) as { server: { command: string } }).server.command, path.join(home, '.local/share/uv/tools/plansight/bin/plansight'));
    const moved = resolveServerCommand(defaults, realLookup(home, { UV_TOOL_DIR: path.join(home, 'tools') }));
    assert.equal((moved as { server: { command: string } }).server.command, path.join(home, 'tools/plansight/bin/plansight'));
    const data = resolveServerCommand(defaults, realLookup(home, { XDG_DATA_HOME: path.join(home, 'data'), UV_TOOL_DIR: '' }));
    assert.equal((data as { server: { command: string } }).server.command, path.join(home, 'data/uv/tools/plansight/bin/plansight'));
  });

  it('prefers PATH to the install places', () => {
    const home = fakeHome('.local/bin/plansight', 'venv/bin/plansight');
    const lookup = { ...realLookup(home), pathVariable: path.join(home, 'venv/bin') };
    assert.equal((resolveServerCommand(defaults, lookup) as { server: { command: string } }).server.command, path.join(home, 'venv/bin/plansight'));
  });

  it('never takes a folder or a file that cannot run', () => {
    const home = fakeHome();
    fs.mkdirSync(path.join(home, '.local/bin/plansight'), { recursive: true });
    fs.mkdirSync(path.join(home, '.local/pipx/venvs/plansight/bin'), { recursive: true });
    fs.writeFileSync(path.join(home, '.local/pipx/venvs/plansight/bin/plansight'), '', { mode: 0o644 });
    assert.equal(resolveServerCommand(defaults, realLookup(home)).ok, false);
  });

  it('names every place it looked in when nothing is found', () => {
    const home = fakeHome();
    const result = resolveServerCommand(defaults, realLookup(home));
    if (result.ok) {
      assert.fail('found a plansight in an empty home');
    }
    assert.equal(result.notFound, true);
    assert.deepEqual(result.searched, [
      'PATH',
      path.join(home, '.local/bin'),
      path.join(home, '.local/share/pipx/venvs/plansight/bin'),
      path.join(home, '.local/pipx/venvs/plansight/bin'),
      path.join(home, '.local/share/uv/tools/plansight/bin'),
    ]);
    assert.match(result.reason, new RegExp(`"plansight" was not found on PATH or in ${home}/\\.local/bin, .*uv/tools/plansight/bin and plansight.server.python is not set`));
  });
});
