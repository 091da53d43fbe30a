import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHANGE_WORDS, changesText, historyEntry, kindOfChange, undoMessage } from '../../src/historyWords';
import { REQUEST_METHODS, type HistoryEvent } from '../../src/protocol';

function event(version: number, method: string, changes: string[], origin: 'agent' | 'user' = 'user'): HistoryEvent {
  return { version, origin, method, at: '2026-01-01T10:00:00.000Z', changes };
}

describe('history in words', () => {
  it('names every kind of change in words, never a method name', () => {
    // Every request whose result is an ApplyResult changes a plan, so it is in history.
    const changing = REQUEST_METHODS.filter((m) => !['plansight/get', 'plansight/sessions', 'plansight/export', 'plansight/context', 'plansight/history'].includes(m));
    assert.deepEqual(Object.keys(CHANGE_WORDS).sort(), [...changing].sort());
    for (const method of changing) {
      assert.doesNotMatch(kindOfChange(method), /plansight|\//, method);
    }
    assert.equal(kindOfChange('plansight/undo'), 'undo');
    assert.equal(kindOfChange('plansight/restore'), 'earlier version restored');
    assert.equal(kindOfChange('plansight/write'), 'whole list written');
    assert.equal(kindOfChange('plansight/someday'), 'someday');
  });

  it('lists what changed, then version, who and the kind, then when', () => {
    const entry = historyEntry(event(7, 'plansight/undo', ['removed "Tag it"']), false, 'today');
    assert.deepEqual(entry, { label: '$(history) removed "Tag it"', description: 'v7 · you · undo', detail: 'today' });
    const now = historyEntry(event(3, 'plansight/write', [], 'agent'), true, 'today');
    assert.equal(now.label, '$(check) whole list written');
    assert.equal(now.description, 'v3 · the agent · whole list written');
    assert.equal(now.detail, 'today · the plan as it is now');
    assert.equal(changesText(event(2, 'plansight/apply', ['completed "A"', 'started "B"'])), 'completed "A"; started "B"');
  });

  it("says what an undo did in the server's words, as a sentence", () => {
    assert.equal(undoMessage(event(5, 'plansight/undo', ['removed "Tag it"'])), 'Undid the last change: removed "Tag it".');
    assert.equal(undoMessage(event(5, 'plansight/undo', ['started "A"', 'marked "B" pending'])), 'Undid the last change: started "A"; marked "B" pending.');
    assert.equal(undoMessage(undefined), 'Undid the last change.');
  });
});
