/**
 * Language-model tools, so that an agent inside VS Code (Copilot's agent mode) keeps its
 * plan in Plansight: `plansight_write` takes exactly a TodoWrite input, `plansight_apply`
 * takes operations. Both return the server's summary, which is what the model reads back.
 * Each chat keeps its own plan (chatSession.ts). Their names, descriptions and input schemas
 * are declared in package.json.
 */
import * as vscode from 'vscode';
import { ChatPlans } from './chatPlans';
import { describeError, type PlansightClient } from './client';
import type { PlanSync } from './planSync';
import type { ApplyResult, Op, WriteItem } from './protocol';

export interface WriteToolInput {
  readonly todos: WriteItem[];
}

export interface ApplyToolInput {
  readonly ops: Op[];
}

export function registerLanguageModelTools(client: PlansightClient, sync: PlanSync): vscode.Disposable[] {
  // vscode.lm.registerTool arrived in VS Code 1.95; stay quiet in an editor without it.
  const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
  if (typeof lm?.registerTool !== 'function') {
    return [];
  }
  const plans = new ChatPlans({
    request: (method, params) => client.request(method, params),
    configuredSession: () => vscode.workspace.getConfiguration('plansight').get<string>('tools.session'),
    logError: (message, error) => client.logError(message, error),
  });
  const answer = (result: ApplyResult): vscode.LanguageModelToolResult => {
    sync.accept(result);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.summary)]);
  };
  const refuse = (error: unknown): never => {
    // A thrown error's message goes back to the model, which can then fix its input.
    throw new Error(`Plansight refused the change: ${describeError(error)}`);
  };
  return [
    lm.registerTool<WriteToolInput>('plansight_write', {
      prepareInvocation: () => ({ invocationMessage: 'Updating the plan in Plansight' }),
      invoke: async (options) => {
        try {
          return answer(await plans.write(options.input.todos, options.toolInvocationToken));
        } catch (error) {
          return refuse(error);
        }
      },
    }),
    lm.registerTool<ApplyToolInput>('plansight_apply', {
      prepareInvocation: () => ({ invocationMessage: 'Updating the plan in Plansight' }),
      invoke: async (options) => {
        try {
          return answer(await plans.apply(options.input.ops, options.toolInvocationToken));
        } catch (error) {
          return refuse(error);
        }
      },
    }),
  ];
}
