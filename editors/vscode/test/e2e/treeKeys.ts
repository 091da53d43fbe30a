/**
 * Issue 33, items 6, 8 to 11 and 13, as a person meets them in a real VS Code: checkboxes,
 * the view's keys (F2, Delete, Space, Enter), Hide Finished and the filter with the view's
 * message, each session's agent by name and icon in a ~290 px sidebar, and the order and the
 * open rows kept across Restart Server and a reload. Runs after treeStories, on the same
 * code-server, store and CLI.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { HistoryEvent, Op } from '../../src/protocol';
import type { StoryContext } from './treeStories';
import { until } from './wait';
import { Workbench, type Row } from './workbench';

const CLAUDE = 'claude-code:4f1c9e2a-7b3d-4e5f-8a9b-0c1d2e3f4a5b';
const CODEX = 'codex:019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8';
const CLAUDE_ROW = 'Claude Code 4f1c9e2a';
const CODEX_ROW = 'Codex CLI 019a2b3c';
const GEMINI = 'gemini:5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9';

function find(rows: Row[], label: string): Row | undefined {
  return rows.find((row) => row.label === label);
}

function sessionRows(rows: Row[]): string[][] {
  return rows.filter((row) => row.level === 1).map((row) => [row.label, row.icon, row.description]);
}

export async function treeKeyStories(ctx: StoryContext): Promise<void> {
  const { page, cli, step } = ctx;
  const wb = new Workbench(page);
  const history = (session: string): HistoryEvent[] => (JSON.parse(cli.run('history', '--session', session, '--json')) as { events: HistoryEvent[] }).events;
  const status = (content: string): string | undefined => cli.find(content, CLAUDE)?.status;

  await step("tree keys: each session named by its agent with its icon, progress first at 290 px (issue 33, items 10, 11)", async () => {
    // Run alone (PLANSIGHT_E2E_ONLY=keys) the store does not exist yet: the first write makes it.
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
    cli.apply(
      [
        {
          op: 'init',
          list: [
            {
              phase: 'Todos',
              items: [
                'Write the parser',
                'Run the build',
                { content: 'Update the docs', notes: ['Cover the new flags'], description: 'Every new option in the README' },
                { content: 'Tag the release', priority: 'high' },
              ],
            },
          ],
        },
      ],
      CLAUDE,
    );
    await wb.waitForRows("Claude's plan", (r) => find(r, 'Tag the release') !== undefined);
    // Codex comes second: the session seen last goes on top.
    cli.apply([{ op: 'init', list: [{ phase: 'Todos', items: ['Review the diff'] }] }], CODEX);
    await wb.narrowSidebar(290);
    await wb.waitForRows('two agent sessions', (r) => find(r, CODEX_ROW)?.level === 1 && find(r, CLAUDE_ROW)?.level === 1);
    await wb.expand(CODEX_ROW);
    await wb.expand(CLAUDE_ROW);
    const rows = await wb.waitForRows('their tasks', (r) => find(r, 'Review the diff') !== undefined && find(r, 'Tag the release') !== undefined);
    assert.deepEqual(sessionRows(rows), [
      [CODEX_ROW, 'terminal', '0/1'],
      [CLAUDE_ROW, 'agent:claude-code', '0/4'],
    ]);
    // Every task row has a checkbox; the session rows none.
    assert.deepEqual(
      rows.filter((r) => r.level === 2).map((r) => r.checkbox),
      ['false', 'false', 'false', 'false', 'false'],
    );
    assert.equal(find(rows, CLAUDE_ROW)?.checkbox, '');
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-agents-290.png') });
  });

  await step("tree keys: every agent's session with its own logo (simple-icons), a codicon for Codex and for one no agent names (issue 33, item 10)", async () => {
    const others: [session: string, label: string, icon: string][] = [
      ['gemini:0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9', 'Gemini CLI 0b1c2d3e', 'agent:gemini'],
      ['opencode:ses_7f8e9d0c1b2a', 'OpenCode ses_7f8e', 'agent:opencode'],
      ['copilot:3c4d5e6f-7081-4923-a4b5-c6d7e8f90a1b', 'GitHub Copilot 3c4d5e6f', 'agent:copilot'],
      ['nightly-script', 'nightly-script', 'hubot'],
    ];
    for (const [session] of others) {
      cli.apply([{ op: 'init', list: [{ phase: 'Todos', items: ['Look around'] }] }], session);
    }
    const rows = await wb.waitForRows('six sessions', (r) => r.filter((row) => row.level === 1).length === 6);
    const icons = new Map(sessionRows(rows).map(([label, icon]) => [label, icon]));
    for (const [, label, icon] of others) {
      assert.equal(icons.get(label), icon, `${label}'s icon`);
    }
    assert.equal(icons.get(CLAUDE_ROW), 'agent:claude-code');
    assert.equal(icons.get(CODEX_ROW), 'terminal');
    // Each logo is drawn: the image the row points at loads from the installed .vsix and is the agent's mark.
    const marks: [label: string, title: string][] = [
      [CLAUDE_ROW, 'Claude Code'],
      ['Gemini CLI 0b1c2d3e', 'Google Gemini'],
      ['OpenCode ses_7f8e', 'OpenCode'],
      ['GitHub Copilot 3c4d5e6f', 'GitHub Copilot'],
    ];
    for (const [label, title] of marks) {
      const image = await wb.rowIconImage(label);
      assert.equal(image.title, title, `${label}'s logo`);
      assert.ok(image.width > 0, `${label}'s logo is drawn`);
    }
    // Switch Session lists each session with the same icon as its row.
    await wb.runCommand('Plansight: Switch Session');
    const picks = await wb.quickPickIcons('The session that commands, the badge and the status bar follow');
    await page.locator('.quick-input-widget').screenshot({ path: path.join(ctx.artifacts, 'switch-session-agents.png') });
    await page.keyboard.press('Escape');
    for (const [, label, icon] of others) {
      assert.equal(picks.get(label), icon, `${label}'s icon in Switch Session`);
    }
    assert.equal(picks.get(CLAUDE_ROW), 'agent:claude-code');
    assert.equal(picks.get(CODEX_ROW), 'terminal');
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-agents-all.png') });
    for (const [session] of others) {
      cli.run('clear', '--session', session);
    }
    await wb.waitForRows('the two sessions again', (r) => r.filter((row) => row.level === 1).length === 2);
  });

  await step("tree keys: a task's checkbox completes it and reopens it, as the person's change (issue 33, item 6)", async () => {
    await wb.calmPointer();
    await wb.row('Write the parser').locator('.custom-view-tree-node-item-checkbox').click();
    await until('the CLI to read it completed', () => status('Write the parser') === 'completed');
    assert.deepEqual([history(CLAUDE)[0]?.origin, history(CLAUDE)[0]?.method], ['user', 'plansight/apply']);
    await wb.waitForRows('the checked box and the check', (r) => find(r, 'Write the parser')?.checkbox === 'true' && find(r, 'Write the parser')?.icon === 'pass-filled');
    await wb.waitForRows('the session progress', (r) => find(r, CLAUDE_ROW)?.description === '1/4');
    await wb.row('Write the parser').locator('.custom-view-tree-node-item-checkbox').click();
    await until('the CLI to read it reopened', () => status('Write the parser') === 'pending');
    assert.equal(history(CLAUDE)[0]?.origin, 'user');
    await wb.waitForRows('the box unchecked', (r) => find(r, 'Write the parser')?.checkbox === 'false' && find(r, 'Write the parser')?.icon === 'circle-large-outline');
  });

  await step('tree keys: F2 renames in one box filled with the content, Space toggles done, Enter shows the details, Delete removes with Undo at hand (issue 33, item 8)', async () => {
    const before = cli.find('Run the build', CLAUDE);
    await wb.calmPointer();
    await wb.row('Run the build').click();
    await page.keyboard.press('F2');
    assert.equal(await wb.inputValue('The new name of "Run the build"'), 'Run the build', 'the box holds the content');
    await wb.answer('The new name of "Run the build"', 'Run the whole build');
    await until('the CLI to read the new name', () => cli.find('Run the whole build', CLAUDE)?.id === before?.id);
    await wb.waitForRows('the renamed row', (r) => find(r, 'Run the whole build') !== undefined);

    await wb.row('Run the whole build').click();
    await page.keyboard.press('Space');
    await until('Space to complete it', () => status('Run the whole build') === 'completed');
    await wb.waitForRows('the check', (r) => find(r, 'Run the whole build')?.checkbox === 'true');
    await page.keyboard.press('Space');
    await until('Space again to reopen it', () => status('Run the whole build') === 'pending');
    await wb.waitForRows('no check', (r) => find(r, 'Run the whole build')?.checkbox === 'false');

    await wb.row('Update the docs').click();
    await page.keyboard.press('Enter');
    const details = await wb.dialogText();
    for (const fact of ['Update the docs', 'Task 3 of 4', 'Every new option in the README', 'Cover the new flags']) {
      assert.ok(details.includes(fact), `the details say "${fact}": ${details}`);
    }
    await page.screenshot({ path: path.join(ctx.artifacts, 'task-details.png') });
    await page.keyboard.press('Escape');
    await page.locator('.monaco-dialog-box').waitFor({ state: 'hidden' });

    await wb.row('Tag the release').click();
    await page.keyboard.press('Delete');
    await until('the CLI to read it removed', () => cli.find('Tag the release', CLAUDE) === undefined);
    await until('the way back said', async () => ((await page.locator('.part.statusbar').textContent()) ?? '').includes('deleted "Tag the release"; Undo Last Change brings it back'));
    await wb.waitForRows('the row gone', (r) => find(r, 'Tag the release') === undefined);
    await wb.contextMenu(CLAUDE_ROW, 'Undo Last Change');
    await until('the CLI to read it back', () => cli.find('Tag the release', CLAUDE)?.priority === 'high');
    await wb.waitForRows('the row back', (r) => find(r, 'Tag the release') !== undefined);

    // Each key's command is in the palette, under the Plansight category.
    for (const title of ['Plansight: Rename Task…', 'Plansight: Delete Task', 'Plansight: Toggle Done', 'Plansight: Show Task Details']) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.fill(`>${title}`);
      const first = page.locator('.quick-input-widget .monaco-list-row').first();
      await until(`the palette to offer "${title}"`, async () => ((await first.getAttribute('aria-label')) ?? '').startsWith(title));
      await page.keyboard.press('Escape');
    }
  });

  await step("tree keys: Hide Finished (remembered through a reload) and a filter by text, owner, priority or status, said in the view's message (issue 33, item 9)", async () => {
    cli.apply([{ op: 'done', task: 'Write the parser' }, { op: 'update', task: 'Update the docs', owner: 'docs-agent' }], CLAUDE);
    await wb.waitForRows('a completed task', (r) => find(r, 'Write the parser')?.checkbox === 'true');
    await wb.runCommand('Plansight: Hide Finished');
    await wb.waitForRows('the finished task hidden', (r) => find(r, 'Write the parser') === undefined && find(r, 'Update the docs') !== undefined);
    await until("the view's message", async () => (await wb.viewMessage()) === 'finished tasks hidden — 4 of 5 tasks shown');

    await wb.runCommand('Plansight: Filter Tasks…');
    await wb.answer('Words a task holds', 'priority:high');
    let rows = await wb.waitForRows('only the high-priority task', (r) => r.filter((x) => x.level === 2).map((x) => x.label).join('|') === 'Tag the release');
    assert.deepEqual(rows.filter((r) => r.level === 1).map((r) => r.label), [CLAUDE_ROW], 'a session with no match leaves');
    await until("the filter in the view's message", async () => (await wb.viewMessage()) === 'Filter: priority:high · finished tasks hidden — 1 of 5 tasks shown');
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-filtered.png') });

    await wb.runCommand('Plansight: Filter Tasks…');
    assert.equal(await wb.inputValue('Words a task holds'), 'priority:high', 'the box holds the filter in force');
    await wb.answer('Words a task holds', 'owner:docs-agent');
    await wb.waitForRows('only the owner’s task', (r) => r.filter((x) => x.level === 2).map((x) => x.label).join('|') === 'Update the docs');
    await wb.runCommand('Plansight: Clear Filter');
    rows = await wb.waitForRows('every unfinished task', (r) => find(r, 'Review the diff') !== undefined && find(r, 'Tag the release') !== undefined);
    assert.equal(find(rows, 'Write the parser'), undefined, 'Hide Finished stays on');

    await page.reload();
    await wb.openPlansight();
    // A reload starts the server again: on a loaded machine its first listing takes a while.
    await wb.waitForRows('the reloaded view, finished tasks still hidden', (r) => find(r, 'Tag the release') !== undefined && find(r, 'Write the parser') === undefined, 60_000);
    await until("the view's message after the reload", async () => (await wb.viewMessage()) === 'finished tasks hidden — 4 of 5 tasks shown');
    await wb.runCommand('Plansight: Show Finished');
    await wb.waitForRows('the finished task back', (r) => find(r, 'Write the parser') !== undefined);
    await until('no message', async () => (await wb.viewMessage()) === '');
  });

  await step('tree moves: a drag of a task onto another asks where, before, after or under it, the likely place first; Alt+Up on the first task says it is already first (issue 33, item 7)', async () => {
    await wb.calmPointer();
    // Dragged down: "after" comes first.
    await wb.row('Write the parser').dragTo(wb.row('Update the docs'));
    const places = await wb.quickPickLabels('Where to move "Write the parser"');
    assert.deepEqual(places, ['After "Update the docs"', 'Before "Update the docs"', 'Under "Update the docs", as its last subtask']);
    await page.keyboard.press('Escape');
    await wb.calmPointer();
    await wb.row('Update the docs').dragTo(wb.row('Write the parser'));
    assert.equal((await wb.quickPickLabels('Where to move "Update the docs"'))[0], 'Before "Write the parser"', 'dragged up: before first');
    await page.keyboard.press('Escape');
    // Escape moved nothing.
    assert.deepEqual(
      cli.show(CLAUDE).phases[0]?.tasks.map((task) => task.content),
      ['Write the parser', 'Run the whole build', 'Update the docs', 'Tag the release'],
    );
    await wb.row('Write the parser').click();
    await page.keyboard.press('Alt+ArrowUp');
    await until('the status bar to say it is first', async () => ((await page.locator('.part.statusbar').textContent()) ?? '').includes('"Write the parser" is already first'));

    // A drop carried through: the `move` reaches the server as the person's change.
    const order = (): string[] => cli.show(CLAUDE).phases[0]?.tasks.map((task) => task.content) ?? [];
    const stale = cli.show(CLAUDE).phases[0]?.tasks.map((task) => ({ content: task.content, status: task.status, activeForm: task.activeForm })) ?? [];
    await wb.calmPointer();
    await wb.row('Write the parser').dragTo(wb.row('Update the docs'));
    await wb.pick('Where to move "Write the parser"', 'After "Update the docs"');
    await until('the CLI to read the move', () => JSON.stringify(order()) === JSON.stringify(['Run the whole build', 'Update the docs', 'Write the parser', 'Tag the release']));
    assert.equal(history(CLAUDE)[0]?.origin, 'user', "the move is the person's");
    // Alt+Right: under the task before it.
    await wb.row('Write the parser').click();
    await page.keyboard.press('Alt+ArrowRight');
    const underDocs = (): boolean => cli.find('Write the parser', CLAUDE)?.parent === cli.find('Update the docs', CLAUDE)?.id;
    await until('the CLI to read it under "Update the docs"', underDocs);
    await wb.waitForRows('the moved task drawn under its new parent', (r) => find(r, 'Write the parser')?.level === 3);
    // The agent's stale list (its whole TodoWrite, flat, in the old order) keeps the person's move.
    cli.run('write', '--session', CLAUDE, '--todos', JSON.stringify(stale));
    assert.ok(underDocs(), "the person's move survives the agent's stale list");
    assert.deepEqual(order(), ['Run the whole build', 'Update the docs', 'Write the parser', 'Tag the release']);
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-moved.png') });
    // Back as the later steps expect it.
    cli.apply([{ op: 'move', task: 'Write the parser', before: 'Run the whole build' }], CLAUDE);
    cli.run('write', '--session', CLAUDE, '--todos', JSON.stringify(stale));
    await wb.waitForRows('the plan as before', (r) => find(r, 'Write the parser')?.level === 2 && JSON.stringify(order()) === JSON.stringify(stale.map((task) => task.content)));
  });

  await step('tree keys: Restart Server and a reload keep the sessions in their order and the rows as the person left them (issue 33, item 13)', async () => {
    await wb.expand('Update the docs');
    await wb.waitForRows('the note open', (r) => find(r, 'Cover the new flags') !== undefined);
    await wb.collapse(CODEX_ROW);
    await wb.waitForRows('the codex session closed', (r) => find(r, CODEX_ROW)?.expanded === 'false');
    // The lower session changes last: a change never moves a session.
    cli.apply([{ op: 'note', task: 'Tag the release', text: 'After the build' }], CLAUDE);
    const drawn = (r: Row[]): boolean =>
      JSON.stringify(r.filter((x) => x.level === 1).map((x) => x.label)) === JSON.stringify([CODEX_ROW, CLAUDE_ROW]) &&
      find(r, 'Cover the new flags') !== undefined &&
      find(r, CODEX_ROW)?.expanded === 'false' &&
      find(r, 'Tag the release')?.description === '1 note';
    await wb.waitForRows('the change drawn in place', drawn);
    await wb.runCommand('Plansight: Restart Server');
    await wb.waitForRows('the same order and rows after Restart Server', drawn, 60_000);
    await page.reload();
    await wb.openPlansight();
    await wb.waitForRows('the same order and rows after a reload', drawn, 60_000);
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-after-reload.png') });
    cli.run('clear', '--session', CODEX);
    cli.run('clear', '--session', CLAUDE);
    await wb.waitForRows('an empty tree', (r) => r.length === 0);
  });

  await step("subtasks (protocol 4): a 3-level plan nests, a parent shows its subtasks' progress, a folded parent stays folded across pushes, Add Subtask appends under the task (issue 32)", async () => {
    const ops = [
      {
        op: 'init',
        list: [{ phase: 'Todos', items: [{ content: 'Ship the release', subtasks: [{ content: 'Build it', subtasks: ['Compile', 'Link'] }, 'Tag it'] }, 'Announce it'] }],
      },
    ] as Op[];
    cli.apply(ops, GEMINI);
    const rows = await wb.waitForRows('the nested plan', (r) => find(r, 'Link')?.level === 3 && find(r, 'Announce it') !== undefined);
    assert.deepEqual(
      rows.map((r) => [r.label, r.level, r.description]),
      [
        ['Ship the release', 1, '0/3'],
        ['Build it', 2, '0/2'],
        ['Compile', 3, ''],
        ['Link', 3, ''],
        ['Tag it', 2, ''],
        ['Announce it', 1, ''],
      ],
    );
    assert.equal(find(rows, 'Ship the release')?.expanded, 'true', 'a parent starts open');
    await wb.collapse('Build it');
    await wb.waitForRows('Build it folded', (r) => find(r, 'Build it')?.expanded === 'false' && find(r, 'Compile') === undefined);
    cli.apply([{ op: 'done', task: 'Compile' }], GEMINI);
    await wb.waitForRows("the agent's change drawn, the folded parent still folded", (r) => find(r, 'Build it')?.description === '1/2' && find(r, 'Ship the release')?.description === '1/3' && find(r, 'Build it')?.expanded === 'false');

    await wb.contextMenu('Tag it', 'Add Subtask');
    await wb.answer('A subtask of "Tag it"', 'Sign the tag');
    await until('the CLI to read the subtask under its task', () => {
      const parent = cli.find('Tag it', GEMINI);
      return parent !== undefined && cli.find('Sign the tag', GEMINI)?.parent === parent.id;
    });
    await wb.waitForRows('the new subtask under its task', (r) => find(r, 'Sign the tag')?.level === 3 && find(r, 'Tag it')?.description === '0/1');
    await wb.calmPointer();
    await wb.sidebar.screenshot({ path: path.join(ctx.artifacts, 'panel-nested.png') });
    cli.run('clear', '--session', GEMINI);
    await wb.waitForRows('an empty tree', (r) => r.length === 0);
  });
}
