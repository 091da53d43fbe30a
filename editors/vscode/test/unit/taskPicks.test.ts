import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownLabel, taskPicks } from '../../src/taskPicks';
import { phase, state, task } from './fixtures';

describe('task pickers (issue 23, items 6 and 8)', () => {
  const plan = state('default', [
    phase(
      'Build',
      task('t1', 'Write the parser', 'completed'),
      task('t2', 'Run the build', 'in_progress', { activeForm: 'Running the build' }),
      task('t3', 'Tag the release', 'pending', { waiting: true, blockedBy: ['t2'], activeForm: 'Tagging the release' }),
    ),
    phase('Ship', task('t4', 'Write a blog post', 'abandoned'), task('t5', 'Ask legal', 'blocked'), task('t6', 'Write the docs', 'pending', { activeForm: 'Write the docs' })),
  ]);
  const labels = (purpose: Parameters<typeof taskPicks>[1]): string[] => taskPicks(plan, purpose).map((item) => item.label);

  it('labels a task as its row does: the activeForm while it runs, the other form and the phase as description', () => {
    const picks = taskPicks(plan, 'any');
    assert.equal(shownLabel(plan.phases[0]?.tasks[1] ?? task('x', 'x')), 'Running the build');
    assert.deepEqual(
      picks.map((item) => [item.label, item.description]),
      [
        ['$(pass-filled) Write the parser', 'Working on Write the parser · Build'],
        ['$(sync~spin) Running the build', 'Run the build · Build'],
        ['$(watch) Tag the release', 'Tagging the release · Build'],
        ['$(circle-slash) Write a blog post', 'Working on Write a blog post · Ship'],
        ['$(debug-pause) Ask legal', 'Working on Ask legal · Ship'],
        ['$(circle-large-outline) Write the docs', 'Ship'],
      ],
    );
  });

  it('offers Start the tasks that can start first, never a completed or running one', () => {
    assert.deepEqual(labels('start'), ['$(circle-large-outline) Write the docs', '$(watch) Tag the release', '$(debug-pause) Ask legal', '$(circle-slash) Write a blog post']);
  });

  it('offers Complete the running task first, never a completed one', () => {
    assert.deepEqual(labels('done'), [
      '$(sync~spin) Running the build',
      '$(circle-large-outline) Write the docs',
      '$(watch) Tag the release',
      '$(debug-pause) Ask legal',
      '$(circle-slash) Write a blog post',
    ]);
  });

  it('offers Drop no completed or dropped task', () => {
    assert.deepEqual(labels('drop'), ['$(sync~spin) Running the build', '$(circle-large-outline) Write the docs', '$(watch) Tag the release', '$(debug-pause) Ask legal']);
  });

  it('leaves the phase out with one phase', () => {
    const one = state('default', [phase('Todos', task('t1', 'Run the build', 'pending', { activeForm: 'Run the build' }))]);
    assert.deepEqual(taskPicks(one, 'start'), [{ label: '$(circle-large-outline) Run the build', description: undefined, task: one.phases[0]?.tasks[0] }]);
    assert.deepEqual(taskPicks(undefined, 'any'), []);
  });
});
