import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHAT_SESSION_PREFIX, chatOf, chatSession, chatTitle, FALLBACK_SESSION, toolTarget } from '../../src/chatSession';
import { CHAT_A, CHAT_B, tokenOf100, tokenOfOtherChatType, tokenOfResource, tokenWithResource } from './chatTokens';

const NOW = new Date(2026, 10, 28, 9, 5);

describe('the session of a language-model tool call (issue 31, item 7)', () => {
  it('is the chat\'s own for the token VS Code 1.100 hands the tool, and two chats get two', () => {
    const a = toolTarget('', tokenOf100(CHAT_A), NOW);
    const b = toolTarget('', tokenOf100(CHAT_B), NOW);
    assert.ok(a.session.startsWith(CHAT_SESSION_PREFIX), a.session);
    assert.notEqual(a.session, b.session);
    assert.notEqual(a.session, FALLBACK_SESSION);
  });

  it('is the same for every call of one chat, whichever request it comes from', () => {
    assert.equal(toolTarget('', tokenOf100(CHAT_A), NOW).session, toolTarget('', tokenOf100(CHAT_A), new Date()).session);
    assert.equal(toolTarget('', tokenOfResource(CHAT_A, 'request_1'), NOW).session, toolTarget('', tokenOfResource(CHAT_A, 'request_2'), NOW).session);
  });

  it('stays the same chat across the versions of the token (id, id and resource, resource alone)', () => {
    const sessions = [tokenOf100(CHAT_A), tokenWithResource(CHAT_A), tokenOfResource(CHAT_A)].map((token) => toolTarget('', token, NOW).session);
    assert.deepEqual(sessions, [chatSession(CHAT_A), chatSession(CHAT_A), chatSession(CHAT_A)]);
  });

  it('tells apart chats of another session type by their whole resource', () => {
    const other = toolTarget('', tokenOfOtherChatType('copilotcli', CHAT_A), NOW).session;
    assert.ok(other.startsWith(CHAT_SESSION_PREFIX));
    assert.notEqual(other, chatSession(CHAT_A));
    assert.notEqual(other, toolTarget('', tokenOfOtherChatType('copilotcli', CHAT_B), NOW).session);
  });

  it('is short and a valid session name', () => {
    assert.match(chatSession(CHAT_A), /^vscode-chat:[0-9a-f]{12}$/);
  });

  it('goes to the fallback session when VS Code names no chat, untitled', () => {
    for (const token of [undefined, null, {}, { sessionId: '' }, { sessionId: 42 }, 'chat', { sessionResource: 'vscode-chat-session://local/x' }]) {
      assert.deepEqual(toolTarget('', token, NOW), { session: FALLBACK_SESSION }, JSON.stringify(token));
      assert.equal(toolTarget(undefined, token, NOW).session, FALLBACK_SESSION);
    }
  });

  it('is the set session for every chat when plansight.tools.session names one, untitled', () => {
    assert.deepEqual(toolTarget('release', tokenOf100(CHAT_A), NOW), { session: 'release' });
    assert.deepEqual(toolTarget(' release ', tokenOf100(CHAT_B), NOW), { session: 'release' });
    assert.deepEqual(toolTarget('release', undefined, NOW), { session: 'release' });
    assert.equal(toolTarget('   ', tokenOf100(CHAT_A), NOW).session, chatSession(CHAT_A));
  });

  it('titles a chat\'s session by the time its plan began', () => {
    assert.equal(toolTarget('', tokenOf100(CHAT_A), NOW).title, 'VS Code chat 09:05');
    assert.equal(chatTitle(new Date(2026, 0, 1, 23, 59)), 'VS Code chat 23:59');
  });

  it('reads a resource that does not decode as VS Code encodes as the resource itself', () => {
    const odd = { sessionResource: { scheme: 'vscode-chat-session', authority: 'local', path: '/not base64!' } };
    assert.equal(chatOf(odd), 'vscode-chat-session://local/not base64!');
    assert.equal(chatOf(tokenOfResource(CHAT_B)), CHAT_B);
  });
});
