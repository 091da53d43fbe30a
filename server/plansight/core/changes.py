"""What changed between two versions of a plan, said the way an agent should hear it."""

from __future__ import annotations

from plansight.core.model import Plan

_STATUS_VERBS = {
    "pending": "marked {} pending",
    "in_progress": "started {}",
    "completed": "completed {}",
    "abandoned": "dropped {}",
}

Snapshot = dict[str, tuple[str, str, str, int]]  # id -> (phase, content, status, note count)


def snapshot(plan: Plan) -> Snapshot:
    return {
        task.id: (phase.name, task.content, task.status, len(task.notes))
        for phase, task in plan.tasks_with_phase()
    }


def describe_changes(before: Snapshot, plan: Plan) -> list[str]:
    """One short line per task that was added, removed, renamed, moved, re-marked or noted."""
    lines: list[str] = []
    after = snapshot(plan)
    notes_by_id = {task.id: task.notes for task in plan.tasks()}
    for task_id, (phase, content, status, notes) in after.items():
        old = before.get(task_id)
        quoted = f'"{content}"'
        if old is None:
            lines.append(f'added {quoted} to phase "{phase}"')
            continue
        old_phase, old_content, old_status, old_notes = old
        if old_content != content:
            lines.append(f'renamed "{old_content}" to {quoted}')
        if old_phase != phase:
            lines.append(f'moved {quoted} to phase "{phase}"')
        if old_status != status:
            lines.append(_STATUS_VERBS[status].format(quoted))
        for note in notes_by_id[task_id][old_notes:notes] if notes > old_notes else ():
            lines.append(f'added a note to {quoted}: "{note}"')
    for task_id, (_, content, _, _) in before.items():
        if task_id not in after:
            lines.append(f'removed "{content}"')
    return lines
