"""The text an agent reads back after each change, and the one it reads before a turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, is_

from plansight.core.fences import quoted, unfenced
from plansight.core.model import FINISHED, Phase, Plan, Task, progress_of
from plansight.core.nesting import leaves
from plansight.core.tree import PhaseTree

_mark_of = attrgetter("mark")
_blocked_by_of = attrgetter("blocked_by")

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
        lines.extend(phase_lines(plan, phase))
    return lines


@dataclass(slots=True)
class _LinesAs:
    """A phase's lines, made from these tasks at these marks."""

    name: str
    tasks: list[Task]
    marks: list[int]
    lines: list[str]


def phase_lines(plan: Plan, phase: Phase) -> list[str]:
    """The phase's name and a line per task. Every change's answer lists every task (the
    contract): the lines of a phase whose tasks did not change since are the ones made
    last (cached on the phase against the tasks' marks). A task that waits for another has
    its line made every time: it quotes the other's state."""
    tasks = phase.tasks
    marks = list(map(_mark_of, tasks))
    cached: _LinesAs | None = getattr(phase, "lines_as", None)
    if (
        cached is not None
        and cached.name == phase.name
        and cached.marks == marks
        and len(cached.tasks) == len(tasks)
        and all(map(is_, cached.tasks, tasks))
    ):
        return cached.lines
    tree = PhaseTree(tasks)
    lines = [f"{phase.name}:"]
    lines.extend(task_line(plan, task, tree.depth(task)) for task in tasks)
    if not any(map(_blocked_by_of, tasks)):
        phase.lines_as = _LinesAs(phase.name, list(tasks), marks, lines)
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
