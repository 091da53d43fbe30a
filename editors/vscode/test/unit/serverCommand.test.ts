import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveServerCommand, type Lookup } from '../../src/serverCommand';

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
    });
    assert.deepEqual(resolveServerCommand({ ...defaults, python: '/nope/python' }, lookup([])), {
      ok: false,
      reason: 'the Python interpreter "/nope/python" (plansight.server.python) was not found',
    });
  });
});
