"""What changed between two versions of a plan, said the way an agent should hear it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from plansight.core.model import ATTRIBUTES, SEEN_FIELDS, Origin, Plan

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
    """What a person would notice of one task: its phase, and every field a reader sees
    (`SEEN_FIELDS`, lists as tuples)."""

    phase: str
    values: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Snapshot:
    title: str | None
    tasks: dict[str, Seen]
    phases: tuple[str, ...]  # in order, empty ones too
    current: str | None  # the current task's id


def snapshot(plan: Plan) -> Snapshot:
    current = plan.current()
    return Snapshot(
        plan.title,
        {
            task.id: Seen(phase.name, dict(zip(SEEN_FIELDS, task.seen(), strict=True)))
            for phase, task in plan.tasks_with_phase()
        },
        tuple(phase.name for phase in plan.phases),
        current.id if current is not None else None,
    )


def describe_changes(before: Snapshot, plan: Plan) -> list[str]:
    """One short line per thing added, removed, renamed, moved, re-marked or noted: every
    change a reader can see (the one a commit's fingerprint sees) has its words."""
    lines: list[str] = []
    if before.title != plan.title:
        lines.append(f'titled the list "{plan.title}"' if plan.title else "removed the title")
    now_seen = snapshot(plan)
    after = now_seen.tasks
    contents = {
        **{i: s.values["content"] for i, s in before.tasks.items()},
        **{i: s.values["content"] for i, s in after.items()},
    }
    for task_id, now in after.items():
        old = before.tasks.get(task_id)
        quoted = f'"{now.values["content"]}"'
        if old is None:
            lines.append(f'added {quoted} to phase "{now.phase}"')
            continue
        if old.values["content"] != now.values["content"]:
            lines.append(f'renamed "{old.values["content"]}" to {quoted}')
        if old.phase != now.phase:
            lines.append(f'moved {quoted} to phase "{now.phase}"')
        if old.values["status"] != now.values["status"]:
            lines.append(_STATUS_VERBS[now.values["status"]].format(quoted))
        for name in FIELD_WORDS:
            if old.values[name] != now.values[name]:
                lines.extend(
                    FIELD_WORDS[name](old.values[name], now.values[name], quoted, contents)
                )
    for task_id, old in before.tasks.items():
        if task_id not in after:
            lines.append(f'removed "{old.values["content"]}"')
    lines.extend(_phase_lines(before, now_seen))
    lines.extend(_started_again(before, now_seen, contents))
    return lines


def _started_again(before: Snapshot, after: Snapshot, contents: dict[str, str]) -> list[str]:
    """A task already in progress made current (`start` again) while the one that was
    current goes on: no status line says it."""
    current, previous = after.current, before.current
    if current is None or previous is None or current == previous:
        return []
    was, still = before.tasks.get(current), after.tasks.get(previous)
    if was is None or was.values["status"] != "in_progress":
        return []
    if still is None or still.values["status"] != "in_progress":
        return []
    return [f'started "{contents[current]}" again']


def _phase_lines(before: Snapshot, after: Snapshot) -> list[str]:
    """Phases added empty, dropped, reordered; tasks reordered within a phase."""
    lines: list[str] = []
    holding = {seen.phase for seen in after.tasks.values()}
    lines.extend(
        f'added phase "{name}"'
        for name in after.phases
        if name not in before.phases and name not in holding
    )
    lines.extend(f'removed phase "{name}"' for name in before.phases if name not in after.phases)
    kept = [name for name in after.phases if name in before.phases]
    if kept != [name for name in before.phases if name in after.phases]:
        lines.append("reordered the phases")
    for name in kept:
        old_order = [i for i, seen in before.tasks.items() if seen.phase == name]
        new_order = [i for i, seen in after.tasks.items() if seen.phase == name]
        both = set(old_order) & set(new_order)
        if [i for i in old_order if i in both] != [i for i in new_order if i in both]:
            lines.append(f'reordered the tasks of phase "{name}"')
    return lines


Words = Callable[[Any, Any, str, dict[str, str]], list[str]]


def _quoted_list(values: Iterable[str]) -> str:
    return ", ".join(f'"{value}"' for value in values)


def _notes(old: tuple[str, ...], new: tuple[str, ...], quoted: str, _: dict[str, str]) -> list[str]:
    """Notes added at the end (the `note` op), or (`update` with `notes`, a person's
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


def _files(old: tuple[str, ...], new: tuple[str, ...], quoted: str, _: dict[str, str]) -> list[str]:
    lines = []
    if added := [f for f in new if f not in old]:
        lines.append(f"added the files {_quoted_list(added)} to {quoted}")
    if gone := [f for f in old if f not in new]:
        lines.append(f"removed the files {_quoted_list(gone)} from {quoted}")
    return lines or [f"reordered the files of {quoted}"]


def _blocked_by(
    old: tuple[str, ...], new: tuple[str, ...], quoted: str, contents: dict[str, str]
) -> list[str]:
    if new:
        return [f"made {quoted} wait for {_quoted_list(contents.get(i, i) for i in new)}"]
    return [f"made {quoted} wait for nothing"]


# How a change of each other field a reader sees is said (content and status are said
# above, the id names the task). tests/core/test_history.py checks that every field of
# SEEN_FIELDS is worded.
FIELD_WORDS: dict[str, Words] = {
    "active_form": lambda old, new, q, _: [f'changed the active form of {q} to "{new}"'],
    "notes": _notes,
    "description": lambda old, new, q, _: [f"changed the description of {q}"],
    "priority": lambda old, new, q, _: [
        f"set the priority of {q} to {new}" if new else f"cleared the priority of {q}"
    ],
    "owner": lambda old, new, q, _: [f'gave {q} to "{new}"' if new else f"took {q} from its owner"],
    "blocked_by": _blocked_by,
    "files": _files,
    "created_by": lambda old, new, q, _: [f"marked {q} as added by the {new}"],
    # (v4) A task put under another or back at the top level: the `move` op's words.
    "parent": lambda old, new, q, contents: [
        f'moved {q} under "{contents.get(new, new)}"' if new else f"moved {q} to the top level"
    ],
    "external_id": lambda old, new, q, _: [
        f'gave {q} the agent\'s id "{new}"' if new else f"took the agent's id from {q}"
    ],
}


def _attribute_words(label: str) -> Words:
    """A text attribute's change, said by its label (`Estimate` -> "the estimate")."""
    what = label.lower()
    return lambda old, new, q, _: [
        f'set the {what} of {q} to "{new}"' if new else f"cleared the {what} of {q}"
    ]


# A text attribute without words of its own (`core.model.attribute`) is said this way.
for _name, _label in ATTRIBUTES.items():
    FIELD_WORDS.setdefault(_name, _attribute_words(_label))
WORDED_ELSEWHERE = frozenset({"id", "content", "status"})
