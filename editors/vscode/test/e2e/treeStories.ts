/**
 * Issue 23, items 4 to 8, 10 and 11, as a person sees them in a real VS Code: the panel at
 * the default sidebar width (dark and light themes), a tree that stays put while agents
 * come and go, pickers that read like the rows, Export into an untitled document. Runs
 * after run.ts's scenario, on the same code-server, store and CLI.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { ItemSpec, Op, Task, TodoState } from '../../src/protocol';
import { until } from './wait';
import { Workbench, type Row } from './workbench';

/** What the stories need of run.ts's CLI (an agent in a terminal). */
export interface StoryCli {
  run(...args: string[]): string;
  apply(ops: Op[], session?: string): void;
  show(session?: string): TodoState;
  find(content: string, session?: string): Task | undefined;
}

export interface StoryContext {
  readonly page: Page;
  readonly cli: StoryCli;
  readonly workspace: string;
  readonly artifacts: string;
  /** The side bar's width as VS Code first drew it. */
  readonly defaultSidebarWidth: number;
  readonly step: (name: string, body: () => Promise<void>) => Promise<void>;
}

function find(rows: Row[], label: string): Row | undefined {
  return rows.find((row) => row.label === label);
}

function rgb(color: string): [number, number, number] | undefined {
  const match = /rgba?\((\d+), (\d+), (\d+)/.exec(color);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** WCAG contrast ratio of two CSS colours. */
function contrast(a: string, b: string): number {
  const luminance = (color: string): number => {
    const channels = (rgb(color) ?? [0, 0, 0]).map((value) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2];
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const SWITCH = 'The session that commands, the badge and the status bar follow';

/** The stories' own session, untitled, so they read the same after run.ts's scenario or alone. */
const SESSION = 'tree-stories';

export async function treeStories(ctx: StoryContext): Promise<void> {
  const { page, cli, step } = ctx;
  const wb = new Workbench(page);

  await step('tree stories: a plan of 12 at the default sidebar width, progress in the header, priority as a badge, finished rows dimmed (issue 23, items 4, 5)', async () => {
    // Run alone (PLANSIGHT_E2E_ONLY=tree) the store does not exist yet: the first write makes it.
    const listed = ((): { session: string }[] => {
      try {
        return (JSON.parse(cli.run('sessions', '--json')) as { sessions: { session: string }[] }).sessions;
      } catch {
        return [];
      }
    })();
    for (const { session } of listed) {
      cli.run('clear', '--session', session);
    }
    await wb.waitForRows('an empty tree', (r) => r.length === 0);
    const items = (names: string[], extra: Partial<ItemSpec> = {}): ItemSpec[] => names.map((content) => ({ content, ...extra }));
    cli.apply([
      {
        op: 'init',
        list: [
          {
            phase: 'Build',
            items: [
              ...items(['Write the lexer for the new query language', 'Write the parser for the new query language', 'Add golden tests for every operator'], { status: 'completed' }),
              { content: 'Run the whole build with the release flags', activeForm: 'Running the whole build with the release flags', status: 'in_progress', owner: 'builder', notes: ['The cache is cold'] },
              { content: 'Fix the flaky integration test in the pipeline', priority: 'high', owner: 'tester' },
              { content: 'Profile the slow path in the optimizer', priority: 'low', owner: 'builder' },
            ],
          },
          {
            phase: 'Ship',
            items: [
              { content: 'Tag the release candidate and push the tag', priority: 'high', blockedBy: ['Run the whole build with the release flags'] },
              { content: 'Write a blog post about the release', status: 'abandoned' },
              ...items(['Update the changelog', 'Publish the packages', 'Announce it', 'Close the milestone']),
            ],
          },
        ],
      },
    ], SESSION);
    await wb.runCommand('Plansight: Switch Session');
    await wb.pick(SWITCH, SESSION);
    await wb.narrowSidebar(ctx.defaultSidebarWidth);
    // Decorations come after the rows (the provider is asked per row).
    const rows = await wb.waitForRows('the plan of 12 with its decorations', (r) => find(r, 'Close the milestone') !== undefined && find(r, 'Profile the slow path in the optimizer')?.badge !== '');
    await until("the progress in the side bar's header", async () => (await wb.sidebarTitle()).toUpperCase() === 'PLANSIGHT: 3/12 · 25%');
    assert.match(await wb.viewHeaderLabel(), /3\/12 · 25%/);
    const high = find(rows, 'Fix the flaky integration test in the pipeline');
    assert.equal(high?.badge, '↑', 'a high-priority row carries its mark at the end');
    assert.equal(find(rows, 'Tag the release candidate and push the tag')?.badge, '↑');
    assert.equal(find(rows, 'Profile the slow path in the optimizer')?.badge, '↓');
    assert.equal(find(rows, 'Close the milestone')?.badge, '');
    // What matters first: the owner before the counts; what it waits for, short.
    assert.equal(find(rows, 'Running the whole build with the release flags')?.description, '@builder · 1 note');
    assert.equal(find(rows, 'Tag the release candidate and push the tag')?.description, 'waits for "Run the whole build with the release flags"');
    assert.equal(find(rows, 'Close the milestone')?.icon, 'circle-large-outline');
    const done = find(rows, 'Write the lexer for the new query language');
    const dropped = find(rows, 'Write a blog post about the release');
    assert.notEqual(done?.labelColor, high.labelColor, 'a completed row is dimmed');
    assert.notEqual(dropped?.labelColor, high.labelColor, 'a dropped row is dimmed');

    // Both themes: the check keeps a contrast of 3:1 on the side bar.
    for (const [theme, workbenchClass, shot] of [
      ['Dark Modern', '.monaco-workbench.vs-dark', 'panel-default-width.png'],
      ['Light Modern', '.monaco-workbench.vs:not(.vs-dark)', 'panel-default-width-light.png'],
    ] as const) {
      // Preferences: Color Theme, by its keys (the palette lists "Browse Color Themes" first).
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+T');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.fill(theme);
      const row = page.locator('.quick-input-widget .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${theme}$`) }) }).first();
      await row.waitFor({ state: 'visible' });
      await row.click();
      await page.locator(workbenchClass).waitFor({ timeout: 20_000 });
      const drawn = await wb.waitForRows(`the ${theme} theme drawn`, (r) => (find(r, 'Write the lexer for the new query language')?.iconColor ?? '') !== '');
      const check = find(drawn, 'Write the lexer for the new query language')?.iconColor ?? '';
      const background = await wb.sidebar.evaluate((element) => getComputedStyle(element).backgroundColor);
      assert.ok(contrast(check, background) >= 3, `${theme}: the check (${check}) keeps a contrast of 3:1 on ${background}: ${contrast(check, background).toFixed(2)}`);
      await wb.calmPointer();
      await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, shot) });
    }
  });

  await step('tree stories: sessions keep their order and expanded rows stay open as sessions come and go (issue 23, item 7)', async () => {
    await wb.expand('Running the whole build with the release flags');
    await wb.waitForRows('the note open', (r) => find(r, 'The cache is cold')?.level === 3);
    cli.apply([{ op: 'init', list: [{ phase: 'Todos', items: [{ content: 'Review the diff', activeForm: 'Reviewing the diff' }] }] }], 'reviewer');
    let rows = await wb.waitForRows('a second session', (r) => find(r, 'reviewer')?.level === 1 && find(r, 'The cache is cold') !== undefined);
    assert.deepEqual(
      rows.filter((r) => r.level === 1).map((r) => r.label),
      ['reviewer', SESSION],
    );
    assert.equal(find(rows, SESSION)?.expanded, 'true');
    assert.equal(find(rows, 'Running the whole build with the release flags')?.expanded, 'true');
    // The older session changes last: it does not move, nothing closes.
    cli.apply([{ op: 'done', task: 'Update the changelog' }], SESSION);
    rows = await wb.waitForRows('the change drawn in place', (r) => find(r, SESSION)?.description.split(' · ')[0] === '4/12');
    assert.deepEqual(
      rows.filter((r) => r.level === 1).map((r) => r.label),
      ['reviewer', SESSION],
    );
    assert.equal(find(rows, 'The cache is cold')?.level, 4);
    cli.apply([{ op: 'init', list: [{ phase: 'Todos', items: ['Run the fuzzer'] }] }], 'tester');
    cli.run('clear', '--session', 'reviewer');
    rows = await wb.waitForRows('one session in, one out', (r) => find(r, 'tester')?.level === 1 && find(r, 'reviewer') === undefined);
    // Each session's row once, as soon as the new one shows (rows() reads what is on screen:
    // a row the tree held twice, even for a moment, fails here).
    assert.deepEqual(
      rows.filter((r) => r.level === 1).map((r) => r.label),
      ['tester', SESSION],
    );
    assert.equal(find(rows, 'Running the whole build with the release flags')?.expanded, 'true', 'the expanded task stays expanded');
    assert.ok(find(rows, 'The cache is cold') !== undefined, 'its note still shows');
    // The status bar and the title stay on the session chosen, not the one changed last.
    await until('the status bar on the chosen session', async () => (await wb.statusBarText())?.endsWith(' · 4/12'));
    await until('the header on the chosen session', async () => (await wb.sidebarTitle()).toUpperCase() === `PLANSIGHT: 4/12 · 33% · ${SESSION.toUpperCase()}`);
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-stable.png') });
    cli.run('clear', '--session', 'tester');
    await wb.waitForRows('the tester gone', (r) => find(r, 'tester') === undefined && find(r, 'The cache is cold') !== undefined);
  });

  await step('tree stories: pickers list what the rows show; Start offers pending first, never a completed task; Drop none (issue 23, items 6, 8)', async () => {
    await wb.runCommand('Plansight: Start');
    const start = await wb.quickPickLabels('The task to start');
    assert.equal(start[0], 'Fix the flaky integration test in the pipeline', `pending first: ${start.join(' | ')}`);
    for (const finished of ['Write the lexer for the new query language', 'Update the changelog', 'Running the whole build with the release flags']) {
      assert.ok(!start.includes(finished), `Start does not offer "${finished}": ${start.join(' | ')}`);
    }
    await page.keyboard.press('Escape');
    await wb.runCommand('Plansight: Drop');
    const drop = await wb.quickPickLabels('The task to drop');
    assert.equal(drop[0], 'Running the whole build with the release flags', 'the running task, as its row reads');
    assert.ok(!drop.includes('Write the lexer for the new query language') && !drop.includes('Write a blog post about the release'), drop.join(' | '));
    await page.keyboard.press('Escape');

    await wb.runCommand('Plansight: Set Priority…');
    await wb.pick('The task to set the priority of', 'Profile the slow path');
    const levels = await wb.quickPickLabels('The priority of "Profile the slow path in the optimizer"');
    assert.deepEqual(levels, ['High', 'Medium', 'Low', 'None']);
    await page.keyboard.press('Escape');

    // Edit Task on the running task: its "-ing" label is asked for too.
    await wb.runCommand('Plansight: Edit Task…');
    await wb.pick('The task to edit', 'Running the whole build');
    await wb.answer('What is to be done', 'Run the build with the release flags');
    await wb.answer('What the panel shows while it runs', 'Running the build with the release flags');
    await wb.answer('A longer explanation of "Run the build with the release flags"', '');
    await until('the CLI to read both forms', () => cli.find('Run the build with the release flags', SESSION)?.activeForm === 'Running the build with the release flags');
    await wb.waitForRows('the new label', (r) => find(r, 'Running the build with the release flags')?.spinning === true);

    // Typing what the row shows finds the task.
    await wb.runCommand('Plansight: Complete');
    await wb.pick('The task to complete', 'Running the build with');
    await until('the CLI to read it completed', () => cli.find('Run the build with the release flags', SESSION)?.status === 'completed');
  });

  await step('tree stories: Export opens an untitled Markdown document, nothing is written to the workspace (issue 23, item 11)', async () => {
    const before = fs.readdirSync(ctx.workspace, { recursive: true, encoding: 'utf8' }).sort();
    await wb.runCommand('Plansight: Export Plan as Markdown');
    await until('the export in an untitled editor', async () => ((await page.locator('.tabs-container .tab.active').textContent()) ?? '').includes('Untitled') && (await wb.editorText()).includes('Fix the flaky integration test in the pipeline'));
    assert.deepEqual(fs.readdirSync(ctx.workspace, { recursive: true, encoding: 'utf8' }).sort(), before);
  });

  await step('tree stories: a cleared session stays with Undo at hand; Undo from its row brings the tasks back (issue 23, item 10)', async () => {
    cli.apply([{ op: 'init', list: [{ phase: 'Todos', items: ['Keep me company'] }] }], 'neighbour');
    await wb.waitForRows('two sessions', (r) => find(r, 'neighbour')?.level === 1);
    await wb.contextMenu(SESSION, 'Clear Todos');
    await wb.dialogButton('Clear');
    await until('the CLI to read it empty', () => cli.show(SESSION).progress.total === 0);
    await wb.waitForRows('the cleared row', (r) => find(r, SESSION)?.description === 'cleared' && find(r, 'neighbour') !== undefined);
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-cleared-beside.png') });
    await wb.contextMenu(SESSION, 'Undo Last Change');
    await until('the CLI to read the tasks back', () => cli.show(SESSION).progress.total === 12);
    await wb.waitForRows('the tasks back under their session', (r) => find(r, SESSION)?.description.split(' · ')[0] === '5/12');
    cli.run('clear', '--session', 'neighbour');
    cli.run('clear', '--session', SESSION);
    await wb.waitForRows('an empty tree', (r) => r.length === 0);
  });
}
