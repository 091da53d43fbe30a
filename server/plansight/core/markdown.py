"""The plan as a markdown checklist, and back.

    ## Phase
    - [/] Task content
      > a note
        its second line

Continuation lines of a multi-line note are indented four spaces so that the round trip
gives back exactly the notes that went out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from plansight.core.model import DEFAULT_PHASE, Plan, TaskStatus
from plansight.core.rebuild import Entry, PhaseEntries
from plansight.core.text import clean_content

EXPORT_MARKS: dict[str, str] = {
    "pending": " ",
    "in_progress": "/",
    "completed": "x",
    "abandoned": "-",
}
IMPORT_MARKS: dict[str, TaskStatus] = {
    " ": "pending",
    "": "pending",
    "/": "in_progress",
    ">": "in_progress",
    "x": "completed",
    "X": "completed",
    "-": "abandoned",
    "~": "abandoned",
}

_HEADING = re.compile(r"^#{2,6}\s+(.*)$")
_TITLE = re.compile(r"^#\s")
_TASK = re.compile(r"^\s{0,3}[-*+]\s+\[(.?)\]\s+(.*)$")
_NOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_CONTINUATION = "    "
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
# Only the line breaks a content cannot hold: str.splitlines() would also split at
# U+2028 and friends, which a content or note may carry, and break the round trip.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def to_markdown(plan: Plan) -> str:
    lines: list[str] = []
    for phase in plan.phases:
        if lines:
            lines.append("")
        lines.append(f"## {phase.name}")
        for task in phase.tasks:
            lines.append(f"- [{EXPORT_MARKS[task.status]}] {task.content}")
            for note in task.notes:
                first, *rest = note.split("\n")
                lines.append(f"  > {first}")
                lines.extend(_CONTINUATION + line for line in rest)
    return "\n".join(lines) + "\n" if lines else ""


@dataclass(slots=True)
class ParsedPlan:
    phases: list[PhaseEntries] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    title: str | None = None


def parse_markdown(text: str) -> ParsedPlan:
    """Read a checklist; lines it cannot read are reported, never silently dropped."""
    parsed = ParsedPlan()
    phase: PhaseEntries | None = None
    entry: Entry | None = None
    in_note = False
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if (
            in_note
            and entry is not None
            and entry.notes
            and line.startswith(_CONTINUATION)
            and line.strip()
        ):
            entry.notes[-1] += "\n" + line[len(_CONTINUATION) :]
            continue
        in_note = False
        if not line.strip() or _TITLE.match(line) or _COMMENT.match(line):
            continue
        if heading := _HEADING.match(line):
            phase = _phase(parsed, heading.group(1))
            entry = None
            continue
        if task := _TASK.match(line):
            mark, content = task.groups()
            status = IMPORT_MARKS.get(mark)
            if status is None:
                parsed.errors.append(f'Line {number}: unknown marker "[{mark}]"')
                continue
            if phase is None:
                phase = _phase(parsed, DEFAULT_PHASE)
            entry = Entry(content, status, notes=[])
            phase.entries.append(entry)
            continue
        if (note := _NOTE.match(line)) and entry is not None:
            assert entry.notes is not None
            entry.notes.append(note.group(1))
            in_note = True
            continue
        parsed.errors.append(f"Line {number}: not a heading, task or note: {line.strip()[:60]}")
    return parsed


def _phase(parsed: ParsedPlan, heading: str) -> PhaseEntries:
    """A heading met again continues its phase, as `init` gathers a phase named twice."""
    name = clean_content(heading)
    for phase in parsed.phases:
        if phase.name == name:
            return phase
    phase = PhaseEntries(name)
    parsed.phases.append(phase)
    return phase
