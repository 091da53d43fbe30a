/**
 * What the language-model tools do with a call, apart from VS Code: send the change to the
 * session of the chat it comes from (chatSession.ts), titling that session the first time
 * it is seen untitled, so the panel lists "VS Code chat 10:42" rather than an id.
 */
import { toolTarget, type ToolTarget } from './chatSession';
import type { ApplyResult, Op, ParamsOf, RequestMethod, ResultOf, WriteItem } from './protocol';

export type Requester = <M extends RequestMethod>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

export interface ChatPlansOptions {
  readonly request: Requester;
  /** The `plansight.tools.session` setting, read at each call. */
  readonly configuredSession: () => string | undefined;
  /** A title that could not be set: the change still goes through. */
  readonly logError: (message: string, error: unknown) => void;
  readonly now?: () => Date;
}

export class ChatPlans {
  /** The chat sessions titled (or found titled) by this window, each once. */
  private readonly titling = new Map<string, Promise<void>>();

  constructor(private readonly options: ChatPlansOptions) {}

  /** `plansight_write`: the whole list, in the session of the chat `token` comes from. */
  async write(todos: WriteItem[], token: unknown): Promise<ApplyResult> {
    const target = await this.target(token);
    return this.options.request('plansight/write', { session: target.session, todos, origin: 'agent' });
  }

  /** `plansight_apply`: operations, in the session of the chat `token` comes from. */
  async apply(ops: Op[], token: unknown): Promise<ApplyResult> {
    const target = await this.target(token);
    return this.options.request('plansight/apply', { session: target.session, ops, origin: 'agent' });
  }

  /** The call's session, titled before the change, so that Undo takes back the change first. */
  private async target(token: unknown): Promise<ToolTarget> {
    const target = toolTarget(this.options.configuredSession(), token, (this.options.now ?? (() => new Date()))());
    if (target.title !== undefined) {
      let titled = this.titling.get(target.session);
      if (titled === undefined) {
        titled = this.title(target.session, target.title);
        this.titling.set(target.session, titled);
      }
      await titled;
    }
    return target;
  }

  /**
   * Gives the session `title` unless it has one (a person's, or this chat's from an earlier
   * window). A `vscode-todos` read changes nothing but the title (protocol: ingest).
   */
  private async title(session: string, title: string): Promise<void> {
    try {
      const state = await this.options.request('plansight/get', { session });
      if (state.title === null) {
        await this.options.request('plansight/ingest', { session, format: 'vscode-todos', payload: { operation: 'read' }, title, origin: 'agent' });
      }
    } catch (error) {
      this.titling.delete(session); // the next call tries again
      this.options.logError(`Titling the session ${session} failed`, error);
    }
  }
}
