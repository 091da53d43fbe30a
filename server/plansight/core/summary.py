"""The text an agent reads back after each change, and the one it reads before a turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from plansight.core.fences import quoted, unfenced
from plansight.core.model import (
    FINISHED,
    Phase,
    Plan,
    Progress,
    Task,
    progress_of,
    progress_of_tasks,
)
from plansight.core.nesting import leaves
from plansight.core.tree import PhaseTree

CLEARED = "Todo list cleared."


class Unknown(Enum):
    """A value the caller does not have (None is a value: no task is current)."""

    UNKNOWN = 0


UNKNOWN = Unknown.UNKNOWN
SUMMARY_MARKS = {
    "pending": "[ ]",
    "in_progress": "[>]",
    "completed": "[x]",
    "abandoned": "[-]",
    "blocked": "[!]",
}


def progress_line(plan: Plan) -> str:
    return progress_words(progress_of(plan))


def progress_words(progress: Progress) -> str:
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
    current: Task | Unknown | None = Unknown.UNKNOWN,
) -> str:
    """`headline` says what happened ("Todo list updated"); the progress follows it. An
    agent reads it: the plan text it quotes cannot open or close a fence (`core/fences.py`).
    `current`: `plan.current()`, when the caller has it already."""
    if plan.is_empty() and not errors:
        return unfenced(CLEARED + ("\n" + removed_line(removed) if removed else ""))
    made = [phase_as(plan, phase) for phase in plan.phases]
    lines = []
    if errors:
        lines.append("Errors: " + "; ".join(errors))
    lines.append(f"{headline}: {progress_words(_plan_progress(plan, made))}")
    if removed:
        lines.append(removed_line(removed))
    lines.extend(_current_lines(plan.current() if current is Unknown.UNKNOWN else current))
    for phase_made in made:
        if phase_made.tasks:
            lines.extend(phase_made.lines)
    return unfenced("\n".join(lines))


def plan_lines(plan: Plan, collapse_finished: bool = False) -> list[str]:
    """The current task with its notes, then every task under its phase. With
    `collapse_finished`, a phase whose tasks all ended is one line (a long plan's
    `context` with `full`: what is left to do stays whole)."""
    lines = _current_lines(plan.current())
    for phase in plan.phases:
        if not phase.tasks:
            continue
        if collapse_finished and all(task.status in FINISHED for task in phase.tasks):
            lines.append(finished_phase_line(phase))
            continue
        lines.extend(phase_lines(plan, phase))
    return lines


def _current_lines(current: Task | None) -> list[str]:
    """`Current: ...` and its notes, when a task is current."""
    if current is None:
        return []
    lines = [f"Current: {current.active_form}"]
    for note in current.notes:
        lines.append("  Note: " + quoted(note, " " * 8))
    return lines


@dataclass(slots=True)
class _PhaseAs:
    """What a phase's tasks at these marks give: its lines, and its progress (None: a
    task names a parent outside the phase, count the plan's)."""

    name: str
    tasks: list[Task]
    marks: list[int]
    lines: list[str]
    progress: Progress | None


def phase_lines(plan: Plan, phase: Phase) -> list[str]:
    """The phase's name and a line per task (see `phase_as`)."""
    return phase_as(plan, phase).lines


def phase_as(plan: Plan, phase: Phase) -> _PhaseAs:
    """The phase's lines and progress. Every change's answer lists every task (the
    contract): a phase whose tasks did not change since gives what it gave last (cached on
    the phase against the tasks' marks). A task that waits for another has its line made
    every time: it quotes the other's state."""
    tasks = phase.tasks
    marks = [task.mark for task in tasks]
    cached: _PhaseAs | None = getattr(phase, "lines_as", None)
    if (
        cached is not None
        and cached.name == phase.name
        and cached.marks == marks  # the same task objects too (`core/model.py`)
    ):
        if not cached.lines:  # a task waits: its lines again, its progress kept
            return _PhaseAs(phase.name, tasks, marks, _lines(plan, phase), cached.progress)
        return cached
    made = _PhaseAs(phase.name, list(tasks), marks, _lines(plan, phase), _phase_progress(tasks))
    if any([task.blocked_by for task in tasks]):
        phase.lines_as = _PhaseAs(made.name, made.tasks, marks, [], made.progress)
    else:
        phase.lines_as = made
    return made


def _lines(plan: Plan, phase: Phase) -> list[str]:
    tasks = phase.tasks
    depths = _depths(tasks)
    if depths is None:
        tree = PhaseTree(tasks)
        depths = [tree.depth(task) for task in tasks]
    lines = [f"{phase.name}:"]
    lines.extend([task_line(plan, task, depth) for task, depth in zip(tasks, depths, strict=True)])
    return lines


def _depths(tasks: list[Task]) -> list[int] | None:
    """`PhaseTree.depth` of each task, in one walk when every parent comes before its
    subtasks (a settled phase, `core/nesting.py`); None when one does not (or names no
    task of the phase): ask the tree."""
    depth_of: dict[str | None, int] = {None: 0}
    depths = []
    for task in tasks:
        above = depth_of.get(task.parent)
        if above is None:
            return None
        depth_of[task.id] = depth = above + 1
        depths.append(depth)
    return depths


def _phase_progress(tasks: list[Task]) -> Progress | None:
    """`progress_of_tasks` of the phase, when every parent its tasks name is in it (then
    the plan's progress is the sum of its phases')."""
    parents = {task.parent for task in tasks}
    parents.discard(None)
    if parents and not parents <= {task.id for task in tasks}:
        return None
    return progress_of_tasks(tasks)


def _plan_progress(plan: Plan, made: list[_PhaseAs]) -> Progress:
    """`progress_of(plan)`, summed from its phases' when each holds its tasks' parents."""
    counted = [phase_made.progress for phase_made in made]
    if None in counted:
        return progress_of(plan)
    summed = Progress(0, 0, 0)
    for progress in counted:
        assert progress is not None
        summed.completed += progress.completed
        summed.abandoned += progress.abandoned
        summed.total += progress.total
        summed.blocked += progress.blocked
    return summed


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
