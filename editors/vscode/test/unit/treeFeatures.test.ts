import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { filterMessage, parseFilter, taskShown } from '../../src/planFilter';
import { PlanState } from '../../src/planState';
import { PlanTree, viewOf, type PlanNode, type TaskNode } from '../../src/planTree';
import type { Task } from '../../src/protocol';
import { AGENT_LOGOS, logoPaths, sessionAgent, sessionIcon, untitledSessionLabel } from '../../src/sessionAgents';
import { taskDetails } from '../../src/taskDetails';
import { EXTENSION_ROOT, phase, state, task } from './fixtures';

function labels(nodes: readonly PlanNode[]): string[] {
  return nodes.map((node) => viewOf(node).label);
}

/** (v4) A task with a parent, as a protocol 4 server sends it. */
function sub(id: string, content: string, parent: string, status: Task['status'] = 'pending'): Task {
  return task(id, content, status, { parent });
}

describe('checkboxes (issue 33, item 6)', () => {
  it('gives every task a checkbox, checked when completed, and no other row one', () => {
    const tree = PlanTree.build([
      state('default', [phase('Build', task('t1', 'Write', 'completed', { notes: ['n'] }), task('t2', 'Run', 'in_progress'), task('t3', 'Drop', 'abandoned')), phase('Ship', task('t4', 'Tag'))]),
    ]);
    const build = tree.roots[0] as PlanNode;
    assert.equal(viewOf(build).checked, undefined, 'a phase has none');
    const [write, run, dropped] = tree.childrenOf(build);
    assert.deepEqual([write, run, dropped].map((node) => viewOf(node as PlanNode).checked), [true, false, false]);
    assert.equal(viewOf(tree.childrenOf(write)[0] as PlanNode).checked, undefined, 'a note has none');
  });
});

describe('Hide Finished and the filter (issue 33, item 9)', () => {
  const plan = state('default', [
    phase(
      'Build',
      task('t1', 'Write the lexer', 'completed'),
      task('t2', 'Run the build', 'in_progress', { owner: 'builder', priority: 'high' }),
      task('t3', 'Fix the flaky test', 'pending', { owner: 'tester', notes: ['Needs the CI logs'] }),
    ),
    phase('Ship', task('t4', 'Write a blog post', 'abandoned'), task('t5', 'Tag the release', 'pending', { priority: 'high' })),
  ]);

  it('hides completed and dropped tasks, and a phase left with none', () => {
    const tree = PlanTree.build([plan], { view: { hideFinished: true } });
    assert.deepEqual(labels(tree.roots), ['Build', 'Ship']);
    assert.deepEqual(labels(tree.childrenOf(tree.roots[0])), ['Working on Run the build', 'Fix the flaky test']);
    assert.deepEqual(labels(tree.childrenOf(tree.roots[1])), ['Tag the release']);
    assert.deepEqual(tree.counts, { shown: 3, total: 5 });
    const only = PlanTree.build([state('default', [phase('Build', task('t1', 'A', 'completed')), phase('Ship', task('t2', 'B'))])], { view: { hideFinished: true } });
    assert.deepEqual(labels(only.roots), ['Ship']);
  });

  it('filters by words (content, notes), owner, priority and status, all at once', () => {
    const shown = (text: string): string[] => {
      const parsed = parseFilter(text);
      assert.ok(!('error' in parsed));
      const tree = PlanTree.build([plan], { view: { hideFinished: false, filter: parsed.filter } });
      return tree.roots.flatMap((root) => labels(tree.childrenOf(root)));
    };
    assert.deepEqual(shown('ci logs'), ['Fix the flaky test']);
    assert.deepEqual(shown('owner:@Builder'), ['Working on Run the build']);
    assert.deepEqual(shown('priority:high'), ['Working on Run the build', 'Tag the release']);
    assert.deepEqual(shown('priority:high status:pending'), ['Tag the release']);
    assert.deepEqual(shown('status:done'), ['Write the lexer']);
    assert.deepEqual(shown('write status:dropped'), ['Write a blog post']);
    assert.deepEqual(parseFilter('  '), { filter: undefined });
    assert.match((parseFilter('priority:urgent') as { error: string }).error, /high, medium or low/);
    assert.match((parseFilter('status:') as { error: string }).error, /which status/);
  });

  it('leaves out a session with nothing to show, beside one that has', () => {
    const tree = PlanTree.build([plan, state('reviewer', [phase('Todos', task('t1', 'Review the diff'))])], { view: { hideFinished: false, filter: { words: ['docs'] } } });
    assert.deepEqual(tree.roots.map((root) => root.session), []);
    const both = PlanTree.build([plan, state('reviewer', [phase('Todos', task('t1', 'Review the diff'))])], { view: { hideFinished: false, filter: { words: ['fix'] } } });
    assert.deepEqual(labels(both.roots), ['default']);
    assert.deepEqual(both.counts, { shown: 1, total: 6 });
  });

  it("says in the view's message what hides rows and how many show", () => {
    const parsed = parseFilter('owner:builder');
    const filter = 'filter' in parsed ? parsed.filter : undefined;
    assert.equal(filterMessage({ hideFinished: false }, 5, 5), undefined);
    assert.equal(filterMessage({ hideFinished: true }, 0, 0), undefined, 'no task at all: nothing hidden');
    assert.equal(filterMessage({ hideFinished: true }, 3, 5), 'finished tasks hidden — 3 of 5 tasks shown');
    assert.equal(filterMessage({ hideFinished: true, filter }, 1, 5), 'Filter: owner:builder · finished tasks hidden — 1 of 5 tasks shown');
  });

  it('keeps a parent in sight for a subtask that matches (v4)', () => {
    const nested = state('default', [phase('Build', task('t1', 'Ship it'), sub('t2', 'Write the notes', 't1'), sub('t3', 'Tag', 't1', 'completed'))]);
    const tree = PlanTree.build([nested], { view: { hideFinished: false, filter: { words: ['notes'] } } });
    assert.deepEqual(labels(tree.roots), ['Ship it']);
    assert.deepEqual(labels(tree.childrenOf(tree.roots[0])), ['Write the notes']);
    assert.equal(taskShown(task('t9', 'Anything', 'completed'), { hideFinished: true }), false);
  });
});

describe('numbered and labelled (issue 33, items 10, 11)', () => {
  it("ships each known agent's own logo for light and dark themes, the mark simple-icons has, in the theme's grey", () => {
    // simple-icons (CC0) is where the marks come from; the build writes them (scripts/agentLogos.mjs).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const simpleIcons = require('simple-icons') as Record<string, { title: string; path: string } | undefined>;
    const expected: Record<string, string> = { 'claude-code': 'siClaudecode', gemini: 'siGooglegemini', opencode: 'siOpencode', copilot: 'siGithubcopilot' };
    assert.deepEqual([...AGENT_LOGOS].sort(), Object.keys(expected).sort());
    for (const agent of AGENT_LOGOS) {
      const mark = simpleIcons[expected[agent] ?? ''];
      assert.ok(mark !== undefined, `simple-icons has ${agent}'s mark`);
      const paths = logoPaths(agent);
      for (const [theme, grey] of [['light', '#424242'], ['dark', '#C5C5C5']] as const) {
        const file = path.join(EXTENSION_ROOT, ...paths[theme]);
        assert.ok(fs.existsSync(file), `${file} is built (npm run build writes the logos)`);
        const svg = fs.readFileSync(file, 'utf8');
        assert.match(svg, new RegExp(`^<svg xmlns="http://www\\.w3\\.org/2000/svg" width="16" height="16" viewBox="0 0 24 24" fill="${grey}">`), `${agent} ${theme}`);
        assert.ok(svg.includes(`<path d="${mark.path}"/>`), `${agent} ${theme}: simple-icons' own path`);
      }
    }
  });

  it('keeps a codicon for an agent without a mark and for a session no agent names', () => {
    assert.deepEqual(sessionIcon('claude-code:8a3d'), { logo: 'claude-code' });
    assert.deepEqual(sessionIcon('gemini:1'), { logo: 'gemini' });
    assert.deepEqual(sessionIcon('opencode:ses_1'), { logo: 'opencode' });
    assert.deepEqual(sessionIcon('copilot:1'), { logo: 'copilot' });
    assert.deepEqual(sessionIcon('codex:1'), { codicon: 'terminal' });
    assert.deepEqual(sessionIcon('vscode-chat:1'), { codicon: 'comment-discussion' });
    assert.deepEqual(sessionIcon('avante:1'), { codicon: 'hubot' });
    assert.deepEqual(sessionIcon('nightly-loop'), { codicon: 'hubot' });
  });

  it("names each session's agent, with its icon, and a short label for an untitled agent session", () => {
    assert.deepEqual(sessionAgent('claude-code:8a3d6b20-9e4f'), { name: 'Claude Code', short: 'Claude', logo: 'claude-code', codicon: 'sparkle', id: '8a3d6b20-9e4f' });
    assert.equal(sessionAgent('codex:1')?.name, 'Codex CLI');
    assert.equal(sessionAgent('gemini:1')?.logo, 'gemini');
    assert.equal(sessionAgent('opencode:1')?.short, 'OpenCode');
    assert.equal(sessionAgent('copilot:1')?.logo, 'copilot');
    assert.equal(sessionAgent('codex:1')?.logo, undefined);
    assert.equal(sessionAgent('default'), undefined);
    assert.equal(untitledSessionLabel('claude-code:8a3d6b20-9e4f-4d1a'), 'Claude Code 8a3d6b20');
    assert.equal(untitledSessionLabel('reviewer'), 'reviewer');

    const tree = PlanTree.build([
      state('claude-code:8a3d6b20-9e4f-4d1a', [phase('Todos', task('t1', 'A', 'completed'), task('t2', 'B'))]),
      state('codex:77', [phase('Todos', task('t1', 'C'))], { title: 'Fix the login' }),
      state('reviewer', [phase('Todos', task('t1', 'D'))]),
    ]);
    const rows = tree.roots.map((root) => viewOf(root));
    assert.deepEqual(
      rows.map((row) => [row.label, row.description, row.icon.id, row.icon.agent]),
      [
        // Progress first, then who: a narrow sidebar cuts the end. Each agent its own logo,
        // a codicon for one simple-icons has no mark for and for a session no agent names.
        ['Claude Code 8a3d6b20', '1/2', 'claude-code', true],
        ['Fix the login', '0/1 · Codex', 'terminal', undefined],
        ['reviewer', '0/1', 'hubot', undefined],
      ],
    );
    assert.match(rows[0]?.tooltip ?? '', /Session claude\\-code:8a3d6b20\\-9e4f\\-4d1a/);
    assert.match(rows[1]?.tooltip ?? '', /Agent: Codex CLI/);
  });

  it('says which task of how many each is, in the tooltip and the details', () => {
    const tree = PlanTree.build([state('default', [phase('Build', task('t1', 'A', 'completed'), task('t2', 'B')), phase('Ship', task('t3', 'C', 'pending', { notes: ['why'], owner: 'me' }))])]);
    const c = tree.taskNode('default', 't3') as TaskNode;
    assert.match(viewOf(c).tooltip, /Task 3 of 3 · status: pending/);
    const details = taskDetails(c);
    assert.equal(details.title, 'C');
    assert.match(details.detail, /^Working on C|Pending · Task 3 of 3 · phase Ship/m);
    assert.match(details.detail, /Notes:\n• why/);
    assert.match(details.detail, /owner me/);
  });
});

describe('Restart Server and reloads keep the order (issue 33, item 13)', () => {
  it('puts sessions listed again back in the order last drawn, new ones on top', () => {
    const states = [
      state('a', [phase('Todos', task('t1', 'A'))], { updatedAt: '2026-01-01T10:00:00.000Z' }),
      state('b', [phase('Todos', task('t1', 'B'))], { updatedAt: '2026-01-01T11:00:00.000Z' }),
      state('c', [phase('Todos', task('t1', 'C'))], { updatedAt: '2026-01-01T12:00:00.000Z' }),
    ];
    // A reload: a new window's state, with the order the last one saved (a above c above b).
    const plans = new PlanState();
    plans.rememberOrder(['a', 'c', 'b']);
    plans.replaceAll(states);
    assert.deepEqual(plans.order(), ['a', 'c', 'b']);
    // A server that failed empties the panel; the next listing puts them back in place.
    plans.replaceAll([]);
    plans.replaceAll([...states, state('d', [phase('Todos', task('t1', 'D'))], { updatedAt: '2026-01-01T09:00:00.000Z' })]);
    assert.deepEqual(plans.order(), ['d', 'a', 'c', 'b']);
  });
});

describe('subtasks (issue 32, VS Code)', () => {
  it("nests subtasks under their task, open, with the subtasks' progress on the parent", () => {
    const tree = PlanTree.build([
      state('default', [phase('Build', task('t1', 'Ship it', 'in_progress'), sub('t2', 'Write', 't1', 'completed'), sub('t3', 'Test', 't1', 'in_progress'), sub('t4', 'Unit', 't3'), sub('t5', 'E2e', 't3', 'completed'), task('t6', 'Tag'))]),
    ]);
    assert.deepEqual(labels(tree.roots), ['Working on Ship it', 'Tag']);
    const parent = tree.roots[0] as TaskNode;
    assert.equal(viewOf(parent).description, '2/3');
    assert.equal(viewOf(parent).collapsible, 'expanded');
    assert.deepEqual(labels(tree.childrenOf(parent)), ['Write', 'Working on Test']);
    const test = tree.taskNode('default', 't3') as TaskNode;
    assert.deepEqual(labels(tree.childrenOf(test)), ['Unit', 'E2e']);
    assert.equal(tree.parentOf(tree.taskNode('default', 't4') as PlanNode), test);
    assert.match(viewOf(tree.taskNode('default', 't4') as PlanNode).tooltip, /Task 2 of 4/);
    assert.match(viewOf(parent).tooltip, /2 of 3 subtasks completed/);
  });
});
