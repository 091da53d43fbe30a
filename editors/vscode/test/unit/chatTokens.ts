/**
 * What VS Code hands a language-model tool's `invoke` as `options.toolInvocationToken`, by
 * version, recorded from microsoft/vscode's sources:
 *
 * - 1.100.3, the VS Code of code-server 4.100.3 the project tests with (read from the
 *   sourcesContent of code-server's lib/vscode/out/vs/workbench/api/node/
 *   extensionHostProcess.js.map): src/vs/workbench/api/common/extHostTypeConverters.ts,
 *   `ChatAgentRequest.to`, gives each chat request
 *   `toolInvocationToken: Object.freeze({ sessionId: request.sessionId })`; the caller (Copilot)
 *   passes it to `vscode.lm.invokeTool`, and extHostLanguageModelTools.ts `$invokeTool` hands
 *   the tool `toolInvocationToken: dto.context`. The id is the chat model's `sessionId`
 *   (contrib/chat/common/chatModel.ts: `generateUuid()`, restored with a saved chat).
 * - Later versions: `IToolInvocationContext = { sessionId, sessionResource: URI }` (`sessionId` deprecated),
 *   then `{ sessionResource, requestId, subagentInvocationId, ... }` without `sessionId`,
 *   revived by the extension host (`toolInvocationToken: revive(dto.context)`) into a URI with
 *   `scheme`, `authority`, `path`. A local chat's resource is
 *   `LocalChatSessionUri.forSession(id)` = `vscode-chat-session://local/<base64url(id), no padding>`
 *   (contrib/chat/common/model/chatUri.ts); other chat session types put their type in the
 *   authority (`forChatSessionTypeAndId`).
 * - `undefined`: "If the tool is being invoked outside of a chat request, `undefined` should be
 *   passed instead" (vscode.d.ts, LanguageModelToolInvocationOptions.toolInvocationToken).
 */

/** Two chats' ids, as VS Code makes them (UUIDs). */
export const CHAT_A = '6f1c2a9e-4b7d-4e0a-9c3f-2d8b5e7a1c40';
export const CHAT_B = 'b2e94d17-0a63-4f8c-8e5d-91c7a3f06b28';

/** A URI as the extension host revives it (the parts a tool can read). */
interface RevivedUri {
  readonly scheme: string;
  readonly authority: string;
  readonly path: string;
  readonly query: string;
  readonly fragment: string;
}

function uri(scheme: string, authority: string, path: string): RevivedUri {
  return { scheme, authority, path, query: '', fragment: '' };
}

/** `vscode-chat-session://local/<base64url(id)>`, as LocalChatSessionUri.forSession makes it. */
export function localChatResource(id: string): RevivedUri {
  return uri('vscode-chat-session', 'local', '/' + Buffer.from(id, 'utf8').toString('base64url'));
}

/** VS Code 1.95 to 1.100: the chat's id alone. */
export function tokenOf100(id: string): unknown {
  return Object.freeze({ sessionId: id });
}

/** The versions with both: the id (deprecated) and the chat's resource. */
export function tokenWithResource(id: string): unknown {
  return Object.freeze({ sessionId: id, sessionResource: localChatResource(id) });
}

/** The newest: the resource, the request and the subagent, no `sessionId`. */
export function tokenOfResource(id: string, requestId = 'request_1'): unknown {
  return Object.freeze({ sessionResource: localChatResource(id), requestId, subagentInvocationId: undefined });
}

/** A chat of another session type (a background agent's), its type in the authority. */
export function tokenOfOtherChatType(type: string, id: string): unknown {
  return Object.freeze({ sessionResource: uri('vscode-chat-session', type, '/' + Buffer.from(id, 'utf8').toString('base64url')) });
}
