"""The text an agent reads back after each change, and the one it reads before a turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from plansight.core.fences import quoted, unfenced
from plansight.core.model import FINISHED, Phase, Plan, Task, progress_of
from plansight.core.nesting import leaves
from plansight.core.tree import PhaseTree

CLEARED = "Todo list cleared."
SUMMARY_MARKS = {
    "pending": "[ ]",
    "in_progress": "[>]",
    "completed": "[x]",
    "abandoned": "[-]",
    "blocked": "[!]",
}


def progress_line(plan: Plan) -> str:
    progress = progress_of(plan)
    line = f"{progress.completed}/{progress.total} completed"
    if progress.abandoned:
        line += f", {progress.abandoned} abandoned"
    if progress.blocked:
        line += f", {progress.blocked} blocked"
    return line


def removed_line(removed: Sequence[Mapping[str, str]]) -> str:
    """`Removed 2 unfinished tasks: "X", "Y"`: an agent that dropped them by mistake hears it."""
    names = ", ".join(f'"{task["content"]}"' for task in removed)
    noun = "task" if len(removed) == 1 else "tasks"
    return f"Removed {len(removed)} unfinished {noun}: {names}"


def task_line(plan: Plan, task: Task, depth: int = 1) -> str:
    """(v4) A subtask's line is indented two spaces more than its parent's."""
    line = f"{'  ' * depth}{SUMMARY_MARKS[task.status]} {task.content}"
    blockers = plan.waiting_on(task)
    if blockers:
        line += " (waits for " + ", ".join(f'"{t.content}"' for t in blockers) + ")"
    return line


def summarize(
    plan: Plan,
    errors: list[str],
    headline: str,
    removed: Sequence[Mapping[str, str]] = (),
) -> str:
    """`headline` says what happened ("Todo list updated"); the progress follows it. An
    agent reads it: the plan text it quotes cannot open or close a fence (`core/fences.py`)."""
    if plan.is_empty() and not errors:
        return unfenced(CLEARED + ("\n" + removed_line(removed) if removed else ""))
    lines = []
    if errors:
        lines.append("Errors: " + "; ".join(errors))
    lines.append(f"{headline}: {progress_line(plan)}")
    if removed:
        lines.append(removed_line(removed))
    lines.extend(plan_lines(plan))
    return unfenced("\n".join(lines))


def plan_lines(plan: Plan, collapse_finished: bool = False) -> list[str]:
    """The current task with its notes, then every task under its phase. With
    `collapse_finished`, a phase whose tasks all ended is one line (a long plan's
    `context` with `full`: what is left to do stays whole)."""
    lines = []
    current = plan.current()
    if current is not None:
        lines.append(f"Current: {current.active_form}")
        for note in current.notes:
            lines.append("  Note: " + quoted(note, " " * 8))
    for phase in plan.phases:
        if not phase.tasks:
            continue
        if collapse_finished and all(task.status in FINISHED for task in phase.tasks):
            lines.append(finished_phase_line(phase))
            continue
        lines.append(f"{phase.name}:")
        tree = PhaseTree(phase.tasks)
        lines.extend(task_line(plan, task, tree.depth(task)) for task in phase.tasks)
    return lines


def finished_phase_line(phase: Phase) -> str:
    """`Setup: all 12 finished (11 completed, 1 abandoned)`; `Setup: all 3 completed`.
    (v4) Counting leaves, as `Progress` does."""
    counted = leaves(phase.tasks)
    completed = sum(1 for task in counted if task.status == "completed")
    abandoned = len(counted) - completed
    if not abandoned:
        return f"{phase.name}: all {completed} completed"
    return (
        f"{phase.name}: all {len(counted)} finished ({completed} completed, {abandoned} abandoned)"
    )
