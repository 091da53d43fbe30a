/**
 * Which Plansight session a language-model tool call keeps its plan in: the chat's own, so
 * that two chats never overwrite each other's list, told apart by what VS Code hands the
 * tool's `invoke` as `toolInvocationToken`.
 *
 * The token is opaque in the API (`ChatParticipantToolToken = never`), but the extension host
 * passes on the chat's invocation context unchanged (extHostLanguageModelTools.ts,
 * `$invokeTool`: `toolInvocationToken: dto.context`), and its shape is known:
 * - VS Code 1.95 to 1.100 (code-server 4.100.3): `{sessionId}`, the chat model's id, a UUID
 *   kept with the chat when the window reloads (extHostTypeConverters.ts, ChatAgentRequest.to:
 *   `Object.freeze({ sessionId: request.sessionId })`).
 * - Later: `{sessionId, sessionResource}`, then `{sessionResource, requestId, ...}` with
 *   `sessionId` gone. A local chat's resource is `vscode-chat-session://local/<id>`, the id
 *   base64url-encoded (chatUri.ts, LocalChatSessionUri.forSession): decoded, the same chat
 *   keeps the same session across those versions.
 * - `undefined` when the tool is invoked outside a chat (another extension's own call).
 * Nothing else of the chat reaches a tool: not its title, not its prompts.
 */
import { createHash } from 'node:crypto';

/** Where a call with nothing to tell its chat by goes, when no session is set. */
export const FALLBACK_SESSION = 'vscode-chat';

/** The prefix of a chat's own session: `vscode-chat:<12 hex digits>`. */
export const CHAT_SESSION_PREFIX = 'vscode-chat:';

const LOCAL_CHAT_SCHEME = 'vscode-chat-session';
const LOCAL_CHAT_AUTHORITY = 'local';

/** Where a tool call's plan goes. */
export interface ToolTarget {
  readonly session: string;
  /** The title a chat's own session gets when it has none; undefined for a set session. */
  readonly title?: string;
}

/**
 * The session of a tool call: `configured` (the `plansight.tools.session` setting) when it
 * is set, else the chat's own session, else the fallback.
 */
export function toolTarget(configured: string | undefined, token: unknown, now: Date): ToolTarget {
  const fixed = configured?.trim();
  if (fixed) {
    return { session: fixed };
  }
  const chat = chatOf(token);
  if (chat === undefined) {
    return { session: FALLBACK_SESSION };
  }
  return { session: chatSession(chat), title: chatTitle(now) };
}

/** The chat a tool invocation token names, or undefined when it names none. */
export function chatOf(token: unknown): string | undefined {
  if (typeof token !== 'object' || token === null) {
    return undefined;
  }
  const { sessionId, sessionResource } = token as { sessionId?: unknown; sessionResource?: unknown };
  const resource = resourceOf(sessionResource);
  if (resource !== undefined) {
    return localChatId(resource) ?? `${resource.scheme}://${resource.authority}${resource.path}`;
  }
  if (typeof sessionId === 'string' && sessionId.trim() !== '') {
    return sessionId;
  }
  return undefined;
}

/** A chat's own session name: short, and the same for every call of the chat. */
export function chatSession(chat: string): string {
  return CHAT_SESSION_PREFIX + createHash('sha256').update(chat).digest('hex').slice(0, 12);
}

/**
 * The title of a chat's session: VS Code tells a tool nothing of the chat's own title or
 * prompts, so it names the chat by the time its plan began (as the agents' hooks name a
 * conversation without a prompt, `copilot 10:42`).
 */
export function chatTitle(now: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `VS Code chat ${two(now.getHours())}:${two(now.getMinutes())}`;
}

interface Resource {
  readonly scheme: string;
  readonly authority: string;
  readonly path: string;
}

/** A URI's parts: a revived `vscode.Uri` and a plain `UriComponents` both have them. */
function resourceOf(value: unknown): Resource | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const { scheme, authority, path } = value as { scheme?: unknown; authority?: unknown; path?: unknown };
  if (typeof scheme !== 'string' || scheme === '' || typeof path !== 'string') {
    return undefined;
  }
  return { scheme, authority: typeof authority === 'string' ? authority : '', path };
}

/** The session id inside a local chat's resource, when it is one and decodes cleanly. */
function localChatId(resource: Resource): string | undefined {
  if (resource.scheme !== LOCAL_CHAT_SCHEME || resource.authority !== LOCAL_CHAT_AUTHORITY) {
    return undefined;
  }
  const encoded = resource.path.slice(1);
  if (!resource.path.startsWith('/') || encoded === '' || encoded.includes('/')) {
    return undefined;
  }
  const id = Buffer.from(encoded, 'base64url').toString('utf8');
  // Only an id that encodes back to the same text: anything else is not VS Code's encoding.
  return id.trim() !== '' && Buffer.from(id, 'utf8').toString('base64url') === encoded ? id : undefined;
}
