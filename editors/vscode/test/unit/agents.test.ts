/**
 * What the panel takes from `plansight doctor --json`: the Plan view's message while Codex
 * does not run Plansight's hooks (issue 31 item 6), from the doctor's report as recorded
 * (tests/fixtures/setup/doctor-codex-untrusted.json).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { agentSetups, doctorMessage, UNTRUSTED_CODEX_MESSAGE } from '../../src/agents';
import { EXTENSION_ROOT } from './fixtures';

const RECORDED = path.join(EXTENSION_ROOT, '..', '..', 'tests', 'fixtures', 'setup', 'doctor-codex-untrusted.json');

interface Report {
  agents: { name: string; setUp: boolean; findings: { ok: boolean; what: string }[] }[];
}

function recorded(): Report {
  return JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as Report;
}

describe('the doctor message of the Plan view', () => {
  it('tells to trust the hooks in /hooks while Codex does not run them', () => {
    const report = recorded();
    assert.equal(doctorMessage(report), UNTRUSTED_CODEX_MESSAGE);
    assert.match(UNTRUSTED_CODEX_MESSAGE, /\/hooks/);
    assert.equal(agentSetups(report).get('codex'), 'found');
  });

  it('goes away once Codex trusts them', () => {
    const report = recorded();
    const codex = report.agents[0];
    assert.ok(codex !== undefined);
    codex.findings = codex.findings.map((finding) => ({ ...finding, ok: true, what: finding.ok ? finding.what : 'hooks trusted by Codex' }));
    codex.setUp = true;
    assert.equal(doctorMessage(report), undefined);
  });

  it('says nothing for a report without Codex, or one it cannot read', () => {
    assert.equal(doctorMessage({ agents: [] }), undefined);
    assert.equal(doctorMessage(null), undefined);
    assert.equal(doctorMessage({ agents: [{ name: 'codex', findings: 'not a list' }] }), undefined);
  });
});
