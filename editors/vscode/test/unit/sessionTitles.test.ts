import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionTitle } from '../../src/sessionTitles';

describe('sessionTitle', () => {
  it("is the plan's title when it has one", () => {
    assert.equal(sessionTitle('claude-code:1111aaaa-2222-3333-4444-555566667777', 'Ship version 2'), 'Ship version 2');
  });
  it("is the agent's name and the start of its id without a title, never the raw id", () => {
    assert.equal(sessionTitle('claude-code:1111aaaa-2222-3333-4444-555566667777'), 'Claude Code 1111aaaa');
    assert.equal(sessionTitle('codex:019a-ffee', null), 'Codex CLI 019a-ffe');
  });
  it('keeps a short id of its own and shortens a long unknown one', () => {
    assert.equal(sessionTitle('default'), 'default');
    assert.equal(sessionTitle('x'.repeat(40)), `${'x'.repeat(23)}…`);
  });
});
