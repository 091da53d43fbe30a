/**
 * The API this extension exports to other extensions:
 * `vscode.extensions.getExtension<PlansightApi>('plansight.plansight')?.activate()`.
 * A thin door onto the same server connection the panel uses.
 */
import type * as vscode from 'vscode';
import type { PlansightClient } from './client';
import type { PlanSync } from './planSync';
import type { ApplyParams, ApplyResult, DidChangeParams, TodoState, WriteParams } from './protocol';

export interface PlansightApi {
  /** Sends `plansight/apply`: ordered operations on one session's list. */
  apply(params: ApplyParams): Promise<ApplyResult>;
  /** Sends `plansight/write`: replaces one session's list with TodoWrite items. */
  write(params: WriteParams): Promise<ApplyResult>;
  /** Sends `plansight/get`: a session's state (`"default"` when not given). */
  get(session?: string): Promise<TodoState>;
  /**
   * Fires on every committed change of any session, whoever made it, as a whole state
   * (pushed as a delta or not). After a push was missed, the state read in its place
   * lists completed and removed tasks only when it is the pushed version's.
   */
  readonly onDidChange: vscode.Event<DidChangeParams>;
}

export function createApi(client: PlansightClient, sync: PlanSync): PlansightApi {
  return {
    apply: async (params) => {
      const result = await client.request('plansight/apply', params);
      sync.accept(result);
      return result;
    },
    write: async (params) => {
      const result = await client.request('plansight/write', params);
      sync.accept(result);
      return result;
    },
    get: (session) => client.request('plansight/get', session === undefined ? {} : { session }),
    onDidChange: sync.onDidChange,
  };
}
