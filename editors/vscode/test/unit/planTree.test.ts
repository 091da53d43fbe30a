import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PlanTree,
  formatDuration,
  taskDecoration,
  viewHeader,
  waitsForShort,
  progressText,
  remainingTasks,
  statusBarView,
  viewOf,
  type PlanNode,
  type TaskNode,
} from '../../src/planTree';
import { phase, state, task } from './fixtures';

function labels(tree: PlanTree, nodes: readonly PlanNode[]): string[] {
  return nodes.map((node) => viewOf(node).label);
}

function taskNode(node: PlanNode | undefined): TaskNode {
  assert.equal(node?.kind, 'task');
  return node;
}

describe('one session', () => {
  it('shows the tasks of a lone phase directly, without the phase', () => {
    const tree = PlanTree.build([state('default', [phase('Todos', task('t1', 'Write the parser'), task('t2', 'Run the build'))])]);
    assert.deepEqual(
      tree.roots.map((n) => n.kind),
      ['task', 'task'],
    );
    assert.deepEqual(labels(tree, tree.roots), ['Write the parser', 'Run the build']);
    assert.equal(tree.roots[0]?.parentId, undefined);
  });

  it('shows phases when there are several, with the progress the server counted', () => {
    const single = PlanTree.build([state('default', [phase('Build', task('t1', 'Write the parser'))])]);
    assert.deepEqual(labels(single, single.roots), ['Write the parser']);
    assert.match(viewOf(single.roots[0] as PlanNode).tooltip, /phase Build/);
    // The phase's progress is the server's, not counted here.
    const told = phase('Ship', task('t9', 'Tag it'));
    const drawn = PlanTree.build([state('default', [phase('Build'), { ...told, progress: { ...told.progress, completed: 7, total: 9 } }])]);
    assert.equal(viewOf(drawn.roots[1] as PlanNode).description, '7/9');

    const tree = PlanTree.build([
      state('default', [phase('Todos', task('t1', 'Write the parser', 'completed')), phase('Ship', task('t2', 'Tag the release'))]),
    ]);
    assert.deepEqual(labels(tree, tree.roots), ['Todos', 'Ship']);
    const [todos] = tree.roots;
    assert.equal(viewOf(todos as PlanNode).description, '1/1');
    assert.equal(viewOf(todos as PlanNode).contextValue, 'phase');
    assert.equal(viewOf(todos as PlanNode).collapsible, 'expanded');
    const children = tree.childrenOf(todos);
    assert.deepEqual(labels(tree, children), ['Write the parser']);
    assert.equal(tree.parentOf(children[0] as PlanNode), todos);
  });

  it('draws each status with its icon, label and menu context', () => {
    const current = task('t2', 'Run the build', 'in_progress', { activeForm: 'Running the build' });
    const tree = PlanTree.build([
      state('default', [
        phase('Todos', task('t1', 'Write the parser', 'completed'), current, task('t3', 'Tag the release'), task('t4', 'Write a blog post', 'abandoned')),
      ]),
    ]);
    const views = tree.roots.map((node) => viewOf(node));
    assert.deepEqual(
      views.map((v) => [v.label, v.icon.id, v.icon.color, v.contextValue]),
      [
        ['Write the parser', 'pass-filled', 'charts.green', 'task.completed'],
        ['Running the build', 'sync~spin', undefined, 'task.in_progress'],
        ['Tag the release', 'circle-large-outline', undefined, 'task.pending'],
        ['Write a blog post', 'circle-slash', 'disabledForeground', 'task.abandoned'],
      ],
    );
  });

  it('describes a task by its note count and, once finished, how long it took', () => {
    const tree = PlanTree.build([
      state('default', [
        phase(
          'Todos',
          task('t1', 'Write the parser', 'completed', { notes: ['Used a Pratt parser'] }),
          task('t2', 'Run the build', 'in_progress', { notes: ['a', 'b'] }),
          task('t3', 'Tag the release'),
          task('t4', 'Write a blog post', 'abandoned'),
        ),
      ]),
    ]);
    assert.deepEqual(
      tree.roots.map((node) => viewOf(node).description),
      ['1 note · 3m 12s', '2 notes', undefined, '3m 12s'],
    );
    assert.deepEqual(
      tree.roots.map((node) => viewOf(node).collapsible),
      ['collapsed', 'collapsed', 'none', 'none'],
    );
  });

  it("shows a task's notes as its children, first line as the label", () => {
    const tree = PlanTree.build([state('default', [phase('Todos', task('t1', 'Run the build', 'pending', { notes: ['Flaky test', 'Line one\nline two'] }))])]);
    const notes = tree.childrenOf(tree.roots[0]);
    assert.deepEqual(
      notes.map((n) => [n.kind, n.id, viewOf(n).label, viewOf(n).icon.id, viewOf(n).contextValue]),
      [
        ['note', 'session:default/task:t1/note:0', 'Flaky test', 'comment', 'note'],
        ['note', 'session:default/task:t1/note:1', 'Line one …', 'comment', 'note'],
      ],
    );
    assert.equal(tree.parentOf(notes[0] as PlanNode), tree.roots[0]);
  });

  it('writes a tooltip with content, status, times and notes, escaping agent text', () => {
    const tree = PlanTree.build([
      state('default', [
        phase(
          'Todos',
          task('t1', 'Fix *everything* [now](command:evil)', 'completed', {
            activeForm: 'Fixing everything',
            notes: ['<img src=x onerror=alert(1)>'],
          }),
        ),
      ]),
    ]);
    const tooltip = viewOf(tree.roots[0] as PlanNode, { formatTime: (iso) => `T(${iso.slice(11, 19)})` }).tooltip;
    assert.match(tooltip, /^\*\*Fix \\\*everything\\\* \\\[now\\\]\\\(command:evil\\\)\*\*/);
    assert.match(tooltip, /\*Fixing everything\*/);
    assert.match(tooltip, /Task 1 of 1 · status: completed · phase Todos · id t1/);
    assert.match(tooltip, /Created T\(09:59:00\) · started T\(10:00:00\) · finished T\(10:03:12\) · took 3m 12s/);
    assert.match(tooltip, /Notes:\n\n- \\<img src=x onerror=alert\\\(1\\\)\\>/);
    assert.doesNotMatch(tooltip, /[^\\]<img/);
  });

  it('gives an empty phase nothing to expand, and repeated phase names their own ids', () => {
    const tree = PlanTree.build([state('default', [phase('Build', task('t1', 'Write it')), phase('Build'), phase('Ship')])]);
    assert.deepEqual(
      tree.roots.map((n) => n.id),
      ['session:default/phase:Build', 'session:default/phase:Build%232', 'session:default/phase:Ship'],
    );
    assert.equal(viewOf(tree.roots[2] as PlanNode).collapsible, 'none');
  });

  it('shows nothing when no session holds a task, so the welcome view appears', () => {
    assert.equal(PlanTree.build([]).isEmpty, true);
    assert.equal(PlanTree.build([state('default', []), state('other', [phase('Build')])]).isEmpty, true);
  });
});

describe('protocol 2 fields', () => {
  const build = task('t1', 'Run the build', 'in_progress', { activeForm: 'Running the build', files: ['src/parser.ts', 'README.md'] });
  const plan = state(
    'claude-1234',
    [
      phase(
        'Todos',
        build,
        task('t2', 'Tag the release', 'pending', { blockedBy: ['t1', 't3'], waiting: true, priority: 'high' }),
        task('t3', 'Write the docs', 'completed', { activeForm: 'Write the docs', priority: 'low', description: 'Cover the new *flags*\nand the settings' }),
        task('t4', 'Ask about the licence', 'blocked', { notes: ['Waiting for legal'] }),
      ),
    ],
    { title: 'Ship version 2' },
  );

  it('draws blocked with its own icon, a waiting task with what it waits for, priority as a decoration', () => {
    const tree = PlanTree.build([plan]);
    const views = tree.roots.map((node) => viewOf(node));
    assert.deepEqual(
      views.map((v) => [v.label, v.icon.id, v.contextValue, v.description]),
      [
        ['Running the build', 'sync~spin', 'task.in_progress', '2 files'],
        ['Tag the release', 'watch', 'task.pending', 'waits for "Run the build"'],
        ['Write the docs', 'pass-filled', 'task.completed', '3m 12s'],
        ['Ask about the licence', 'debug-pause', 'task.blocked', '1 note'],
      ],
    );
    assert.equal(views[1]?.decoration, 'plansight-task:/claude-1234/t2?status=pending&priority=high');
    assert.deepEqual(taskDecoration('status=pending&priority=high'), { badge: '↑', tooltip: 'High priority' });
    assert.deepEqual(taskDecoration('status=blocked&priority=low'), { badge: '↓', tooltip: 'Low priority' });
    // A finished row is dimmed; its priority no longer matters.
    assert.deepEqual(taskDecoration(new URL(views[2]?.decoration ?? '').search.slice(1)), { color: 'list.deemphasizedForeground' });
    assert.deepEqual(taskDecoration('status=abandoned'), { color: 'list.deemphasizedForeground' });
    assert.equal(taskDecoration('status=pending'), undefined);
    assert.equal(views[3]?.icon.color, 'problemsWarningIcon.foreground');
    assert.match(views[1].tooltip, /Waits for "Run the build"/);
    assert.match(views[1].tooltip, /Task 2 of \d · status: pending · high priority · phase Todos · id t2/);
  });

  it("marks a task a person created with `you`, first, and says so in the tooltip", () => {
    const mine = state('claude-1234', [phase('Todos', task('t1', 'Run the build'), task('t2', 'Person task C', 'pending', { createdBy: 'user', priority: 'high' }))]);
    const views = PlanTree.build([mine]).roots.map((node) => viewOf(node));
    assert.deepEqual(
      views.map((v) => [v.label, v.description]),
      [
        ['Run the build', undefined],
        ['Person task C', 'you'],
      ],
    );
    assert.match(views[1]?.tooltip ?? '', /Added by you /);
    assert.doesNotMatch(views[0]?.tooltip ?? '', /by you/);
  });

  it('shows the description in the tooltip, escaped, lines kept', () => {
    const tree = PlanTree.build([plan]);
    assert.match(viewOf(tree.roots[2] as PlanNode).tooltip, /\*\*Write the docs\*\*\n\nCover the new \\\*flags\\\* {2}\nand the settings/);
  });

  it("gives a task its files as children, folder as description, before its notes; in progress they show", () => {
    const tree = PlanTree.build([plan]);
    const files = tree.childrenOf(tree.roots[0]);
    assert.deepEqual(
      files.map((n) => [n.kind, n.id, viewOf(n).label, viewOf(n).description, viewOf(n).file, viewOf(n).contextValue]),
      [
        ['file', 'session:claude-1234/task:t1/file:src%2Fparser.ts', 'parser.ts', 'src', 'src/parser.ts', 'file'],
        ['file', 'session:claude-1234/task:t1/file:README.md', 'README.md', undefined, 'README.md', 'file'],
      ],
    );
    assert.equal(viewOf(tree.roots[0] as PlanNode).collapsible, 'expanded');
    const done = PlanTree.build([state('s', [phase('Todos', task('t1', 'x', 'completed', { files: ['a.ts'], notes: ['n'] }))])]);
    assert.deepEqual(
      done.childrenOf(done.roots[0]).map((n) => n.kind),
      ['file', 'note'],
    );
    assert.equal(viewOf(done.roots[0] as PlanNode).collapsible, 'collapsed');
  });

  it('names the owner only when the tasks of a session have different owners', () => {
    const shared = PlanTree.build([state('s', [phase('Todos', task('t1', 'a', 'pending', { owner: 'lead' }), task('t2', 'b', 'pending', { owner: 'lead' }))])]);
    assert.deepEqual(
      shared.roots.map((n) => viewOf(n).description),
      [undefined, undefined],
    );
    const team = PlanTree.build([state('s', [phase('Todos', task('t1', 'a', 'in_progress', { owner: 'lead' }), task('t2', 'b', 'in_progress', { owner: 'tester' }), task('t3', 'c'))])]);
    assert.deepEqual(
      team.roots.map((n) => viewOf(n).description),
      ['@lead', '@tester', undefined],
    );
    assert.match(viewOf(shared.roots[0] as PlanNode).tooltip, /owner lead/);
  });

  it("uses the session's title instead of its key", () => {
    const tree = PlanTree.build([plan, state('other', [phase('Todos', task('t1', 'x'))], { updatedAt: '2025-01-01T00:00:00.000Z' })]);
    const view = viewOf(tree.roots[0] as PlanNode);
    assert.equal(view.label, 'Ship version 2');
    assert.match(view.tooltip, /^\*\*Ship version 2\*\*\n\nSession claude\\-1234/);
    assert.equal(viewOf(tree.roots[1] as PlanNode).label, 'other');
    assert.match(statusBarView(plan)?.tooltip ?? '', /"Ship version 2" \(session claude-1234\): 1 of 4 completed \(25%\), 1 blocked, 3 remaining/);
  });
});

describe('several sessions', () => {
  const older = state('alpha', [phase('Todos', task('t1', 'Write the parser', 'in_progress'))], { updatedAt: '2026-01-01T09:00:00.000Z' });
  const newer = state('beta', [phase('Build', task('t1', 'Run the build')), phase('Ship', task('t2', 'Tag it'))], {
    updatedAt: '2026-01-01T11:00:00.000Z',
  });
  const empty = state('gamma', [], { updatedAt: '2026-01-01T12:00:00.000Z' });

  it('puts sessions at the root in the order given, the first expanded, empty ones left out', () => {
    const tree = PlanTree.build([newer, empty, older]);
    assert.deepEqual(
      tree.roots.map((n) => [n.kind, viewOf(n).label, viewOf(n).collapsible, viewOf(n).contextValue, viewOf(n).icon.id]),
      [
        ['session', 'beta', 'expanded', 'session', 'hubot'],
        ['session', 'alpha', 'collapsed', 'session', 'hubot'],
      ],
    );
    // Short, so a long name does not cut it: the percent is in the tooltip.
    assert.equal(viewOf(tree.roots[0] as PlanNode).description, '0/2');
    assert.match(viewOf(tree.roots[0] as PlanNode).tooltip, /0 of 2 completed \(0%\)/);
    const open = PlanTree.build([newer, older], { expanded: (session) => session === 'alpha' });
    assert.deepEqual(
      open.roots.map((n) => viewOf(n).collapsible),
      ['collapsed', 'expanded'],
    );
    assert.deepEqual(labels(tree, tree.childrenOf(tree.roots[0])), ['Build', 'Ship']);
    // the lone phase rule holds under a session too
    const alphaChildren = tree.childrenOf(tree.roots[1]);
    assert.deepEqual(labels(tree, alphaChildren), ['Working on Write the parser']);
    assert.equal(tree.parentOf(alphaChildren[0] as PlanNode)?.id, 'session:alpha');
  });

  it('draws a session the person cleared as a cleared row, alone too, with Undo and Close', () => {
    const cleared = state('alpha', [], { version: 2 });
    const alone = PlanTree.build([cleared], { kept: new Set(['alpha']) });
    assert.deepEqual(
      alone.roots.map((n) => [n.kind, n.id, viewOf(n).label, viewOf(n).description, viewOf(n).contextValue, viewOf(n).collapsible]),
      [['session', 'session:alpha', 'alpha', 'cleared', 'session.cleared', 'none']],
    );
    assert.match(viewOf(alone.roots[0] as PlanNode).tooltip, /Undo Last Change brings its tasks back/);
    assert.equal(PlanTree.build([cleared]).isEmpty, true, 'not kept: left out');
    const beside = PlanTree.build([newer, cleared], { kept: new Set(['alpha']) });
    assert.deepEqual(
      beside.roots.map((n) => viewOf(n).contextValue),
      ['session', 'session.cleared'],
    );
  });

  it('keeps the same ids whether or not the session level is shown', () => {
    const alone = PlanTree.build([older]);
    const together = PlanTree.build([older, newer]);
    const id = 'session:alpha/task:t1';
    assert.equal(alone.getNode(id)?.kind, 'task');
    assert.equal(together.getNode(id)?.kind, 'task');
    assert.equal(taskNode(together.taskNode('alpha', 't1')).task.content, 'Write the parser');
    // same task id in two sessions: two distinct nodes
    assert.notEqual(together.taskNode('alpha', 't1'), together.taskNode('beta', 't1'));
    assert.equal(together.taskNode('beta', 't1')?.id, 'session:beta/task:t1');
  });

  it('keeps ids stable across a refresh where tasks change status and move', () => {
    const before = PlanTree.build([state('s/1', [phase('A', task('t1', 'One'), task('t2', 'Two'))])]);
    const after = PlanTree.build([state('s/1', [phase('A', task('t2', 'Two', 'in_progress')), phase('B', task('t1', 'One', 'completed'))], { version: 2 })]);
    assert.equal(before.taskNode('s/1', 't1')?.id, 'session:s%2F1/task:t1');
    assert.equal(after.taskNode('s/1', 't1')?.id, before.taskNode('s/1', 't1')?.id);
    assert.equal(after.taskNode('s/1', 't1')?.parentId, 'session:s%2F1/phase:B');
  });
});

describe('badge, description and status bar', () => {
  const plan = state('default', [
    phase(
      'Todos',
      task('t1', 'a', 'completed'),
      task('t2', 'b', 'completed'),
      task('t3', 'c', 'completed'),
      task('t4', 'd', 'abandoned'),
      task('t5', 'Run the build', 'in_progress', { activeForm: 'Running the build' }),
      task('t6', 'f'),
      task('t7', 'g'),
      task('t8', 'h'),
    ),
  ]);

  it('counts the tasks remaining and writes the progress as done/total and percent', () => {
    assert.equal(remainingTasks(plan), 4);
    assert.equal(progressText(plan), '3/8 · 37%');
    assert.equal(remainingTasks(undefined), 0);
    assert.equal(progressText(state('default', [])), undefined);
  });

  it("shows the current task's activeForm and the progress in the status bar", () => {
    assert.equal(statusBarView(plan)?.text, '$(sync~spin) Running the build · 3/8');
    assert.match(statusBarView(plan)?.tooltip ?? '', /session default: 3 of 8 completed \(37%\), 1 dropped, 4 remaining/);
    const idle = state('default', [phase('Todos', task('t1', 'a', 'completed'), task('t2', 'b'))]);
    assert.equal(statusBarView(idle)?.text, '$(checklist) 1/2');
    assert.equal(statusBarView(state('default', [])), undefined);
    const sneaky = state('default', [phase('Todos', task('t1', 'x', 'in_progress', { activeForm: 'Doing $(alert) things' }))]);
    assert.doesNotMatch(statusBarView(sneaky)?.text ?? '', /\$\(alert\)/);
  });

  it("puts the followed session's progress first in the view's title, which a narrow sidebar keeps (issue 23, item 4)", () => {
    assert.deepEqual(viewHeader(plan, false), { title: '3/8 · 37%', description: '3/8 · 37%' });
    const titled = { ...plan, title: 'Ship version 2' };
    assert.deepEqual(viewHeader(titled, false), { title: '3/8 · 37% · Ship version 2', description: '3/8 · 37% · Ship version 2' });
    assert.equal(viewHeader(plan, true).title, '3/8 · 37% · default');
    assert.deepEqual(viewHeader(undefined, false), { title: 'Plan', description: undefined });
    assert.deepEqual(viewHeader(state('default', []), true), { title: 'Plan', description: undefined });
  });

  it('says what a task waits for in a short form; the tooltip names them all', () => {
    assert.equal(waitsForShort(['Run the build']), 'waits for "Run the build"');
    assert.equal(waitsForShort(['A', 'B']), 'waits for 2 tasks');
  });

  it('formats durations compactly', () => {
    assert.deepEqual(
      [900, 42_000, 180_000, 192_000, 3_600_000, 3_900_000, 90_000_000].map(formatDuration),
      ['1s', '42s', '3m', '3m 12s', '1h', '1h 5m', '1d 1h'],
    );
  });
});
