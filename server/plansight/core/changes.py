"""What changed between two versions of a plan, said the way an agent should hear it."""

from __future__ import annotations

from dataclasses import dataclass

from plansight.core.model import Origin, Plan

_STATUS_VERBS = {
    "pending": "marked {} pending",
    "in_progress": "started {}",
    "completed": "completed {}",
    "abandoned": "dropped {}",
    "blocked": "marked {} blocked",
}


@dataclass(frozen=True, slots=True)
class LoggedChange:
    """One committed change as the store's log gives it back (history, context)."""

    version: int
    origin: Origin
    method: str
    at: str
    changes: list[str]
    auto_started: list[str]  # ids of tasks the server started by itself


@dataclass(frozen=True, slots=True)
class Seen:
    """What a person would notice of one task."""

    phase: str
    content: str
    status: str
    notes: tuple[str, ...]
    description: str
    priority: str | None
    owner: str | None
    blocked_by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    title: str | None
    tasks: dict[str, Seen]


def snapshot(plan: Plan) -> Snapshot:
    return Snapshot(
        plan.title,
        {
            task.id: Seen(
                phase.name,
                task.content,
                task.status,
                tuple(task.notes),
                task.description,
                task.priority,
                task.owner,
                tuple(task.blocked_by),
            )
            for phase, task in plan.tasks_with_phase()
        },
    )


def describe_changes(before: Snapshot, plan: Plan) -> list[str]:
    """One short line per thing added, removed, renamed, moved, re-marked or noted."""
    lines: list[str] = []
    if before.title != plan.title:
        lines.append(f'titled the list "{plan.title}"' if plan.title else "removed the title")
    after = snapshot(plan).tasks
    contents = {
        **{i: s.content for i, s in before.tasks.items()},
        **{i: s.content for i, s in after.items()},
    }
    for task_id, now in after.items():
        old = before.tasks.get(task_id)
        quoted = f'"{now.content}"'
        if old is None:
            lines.append(f'added {quoted} to phase "{now.phase}"')
            continue
        if old.content != now.content:
            lines.append(f'renamed "{old.content}" to {quoted}')
        if old.phase != now.phase:
            lines.append(f'moved {quoted} to phase "{now.phase}"')
        if old.status != now.status:
            lines.append(_STATUS_VERBS[now.status].format(quoted))
        lines.extend(_field_lines(old, now, quoted, contents))
    for task_id, old in before.tasks.items():
        if task_id not in after:
            lines.append(f'removed "{old.content}"')
    return lines


def _note_lines(old: tuple[str, ...], new: tuple[str, ...], quoted: str) -> list[str]:
    """Notes added at the end (the `note` op), or (v3: `update` with `notes`, a person's
    edit) edited and deleted ones: a changed note is told with its new text."""
    if new[: len(old)] == old:
        return [f'added a note to {quoted}: "{note}"' for note in new[len(old) :]]
    gone = list(old)
    fresh: list[str] = []
    for note in new:
        if note in gone:
            gone.remove(note)
        else:
            fresh.append(note)
    edited = min(len(gone), len(fresh))
    lines = [f'edited a note of {quoted}: "{note}"' for note in fresh[:edited]]
    lines.extend(f'added a note to {quoted}: "{note}"' for note in fresh[edited:])
    lines.extend(f'deleted a note of {quoted}: "{note}"' for note in gone[edited:])
    return lines or [f"reordered the notes of {quoted}"]


def _field_lines(old: Seen, now: Seen, quoted: str, contents: dict[str, str]) -> list[str]:
    lines = _note_lines(old.notes, now.notes, quoted)
    if old.description != now.description:
        lines.append(f"changed the description of {quoted}")
    if old.priority != now.priority:
        lines.append(
            f"set the priority of {quoted} to {now.priority}"
            if now.priority
            else f"cleared the priority of {quoted}"
        )
    if old.owner != now.owner:
        lines.append(
            f'gave {quoted} to "{now.owner}"' if now.owner else f"took {quoted} from its owner"
        )
    if old.blocked_by != now.blocked_by:
        if now.blocked_by:
            names = ", ".join(f'"{contents.get(i, i)}"' for i in now.blocked_by)
            lines.append(f"made {quoted} wait for {names}")
        else:
            lines.append(f"made {quoted} wait for nothing")
    return lines
