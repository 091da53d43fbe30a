"""The text an agent reads back after each change, and the one it reads before a turn."""

from __future__ import annotations

from plansight.core.model import Plan, progress_of

CLEARED = "Todo list cleared."
SUMMARY_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "abandoned": "[-]"}


def progress_line(plan: Plan) -> str:
    progress = progress_of(plan)
    line = f"{progress.completed}/{progress.total} completed"
    if progress.abandoned:
        line += f", {progress.abandoned} abandoned"
    return line


def summarize(plan: Plan, errors: list[str], headline: str) -> str:
    """`headline` says what happened ("Todo list updated"); the progress follows it."""
    if plan.is_empty() and not errors:
        return CLEARED
    lines = []
    if errors:
        lines.append("Errors: " + "; ".join(errors))
    lines.append(f"{headline}: {progress_line(plan)}")
    current = plan.current()
    if current is not None:
        lines.append(f"Current: {current.active_form}")
        for note in current.notes:
            lines.append("  Note: " + note.replace("\n", "\n        "))
    for phase in plan.phases:
        if not phase.tasks:
            continue
        lines.append(f"{phase.name}:")
        lines.extend(f"  {SUMMARY_MARKS[task.status]} {task.content}" for task in phase.tasks)
    return "\n".join(lines)
