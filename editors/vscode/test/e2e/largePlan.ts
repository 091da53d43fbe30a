/**
 * Issue 34, item 4: a 1,000-task plan in a real VS Code. Prints how long its first paint
 * takes (from the commit of the plan until its rows show) and a live update (a `done` from
 * the CLI until the row shows it completed), for docs/performance.md: figures, not
 * assertions. The browser notes the moment it sees the row (polling each animation frame),
 * so the test's own polling does not count. Runs last on the run's code-server: it clears
 * the other sessions, so the plan is drawn as a lone session's rows.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StoryContext } from './treeStories';
import { Workbench } from './workbench';

const SESSION = 'large-plan';
export const LARGE_PLAN_TASKS = 1000;

export interface LargePlanContext extends StoryContext {
  /** The run's store file (none yet when these stories run alone). */
  readonly store: string;
  /** Writes the plan of `count` tasks (past the 200 a plan may hold by default); returns when it committed (ms since the epoch). */
  readonly writeLargePlan: (session: string, count: number) => number;
}

const ROW_LABEL = '.part.sidebar #workbench\\.view\\.extension\\.plansight .monaco-list-row .label-name';

/** The moment (ms since the epoch) the browser first sees a Plan row labelled `label` whose row matches `state`. */
function rowSeen(ctx: StoryContext, label: string, state: 'shown' | 'completed'): Promise<number> {
  return ctx.page
    .waitForFunction(
      ([selector, wanted, completed]) => {
        for (const name of document.querySelectorAll(selector)) {
          if (name.textContent !== wanted) {
            continue;
          }
          const row = name.closest('.monaco-list-row');
          if (!completed || row?.querySelector('.codicon-pass-filled') !== null) {
            return Date.now();
          }
        }
        return false;
      },
      [ROW_LABEL, label, state === 'completed'] as const,
      { polling: 'raf', timeout: 60_000 },
    )
    .then(async (handle) => (await handle.jsonValue()) as number);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function largePlanStories(ctx: LargePlanContext): Promise<void> {
  const wb = new Workbench(ctx.page);
  const label = (n: number): string => `Large plan task ${n}`;

  await ctx.step(`a ${LARGE_PLAN_TASKS}-task plan: its first paint, timed from its commit`, async () => {
    const listed = fs.existsSync(ctx.store) ? (JSON.parse(ctx.cli.run('sessions', '--json')) as { sessions: { session: string; progress: { total: number } }[] }).sessions : [];
    for (const { session, progress } of listed) {
      if (progress.total > 0) {
        ctx.cli.run('clear', '--session', session);
      }
    }
    await wb.waitForRows('the panel to empty', (rows) => rows.length === 0, 30_000);
    const seen = rowSeen(ctx, label(1), 'shown');
    const committed = ctx.writeLargePlan(SESSION, LARGE_PLAN_TASKS);
    const painted = await seen;
    const [first] = await wb.rows();
    assert.equal(first?.label, label(1));
    assert.equal(first.level, 1, 'a lone session draws its tasks at the top');
    console.log(`\n  first paint of ${LARGE_PLAN_TASKS} tasks: ${painted - committed} ms from the commit (load average ${os.loadavg()[0]?.toFixed(1)})`);
    await ctx.page.mouse.move(640, 700); // no hover text of the activity bar over the rows
    await ctx.page.waitForTimeout(500); // the badge and header settle for the picture
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-1000.png') });
  });

  await ctx.step(`a live update of a ${LARGE_PLAN_TASKS}-task plan: a done from the CLI until the row shows it`, async () => {
    const totals: number[] = [];
    const cliTimes: number[] = [];
    /** From the CLI's exit (its change committed) until the row shows: the server's push and the redraw. */
    const afterCli: number[] = [];
    for (const n of [3, 4, 5, 6, 7]) {
      const seen = rowSeen(ctx, label(n), 'completed');
      const began = Date.now();
      ctx.cli.apply([{ op: 'done', task: label(n) }], SESSION);
      const cliDone = Date.now();
      const shown = await seen;
      totals.push(shown - began);
      cliTimes.push(cliDone - began);
      afterCli.push(shown - cliDone);
    }
    const rows = await wb.rows();
    assert.equal(rows.find((row) => row.label === label(1))?.spinning, true, 'the task in progress still spins');
    console.log(
      `\n  live update of ${LARGE_PLAN_TASKS} tasks: median ${median(totals)} ms from the CLI's start until the row shows (each: ${totals.join(', ')} ms; the CLI's own run ${median(cliTimes)} ms, then ${median(afterCli)} ms until the row shows; load average ${os.loadavg()[0]?.toFixed(1)})`,
    );
  });
}
