"""The plan as a markdown checklist, and back.

    # Title
    ## Phase
    - [/] Task content
      Priority: high
      Owner: sub-agent
      Waits for: "Run the build", "Run the tests"
      The description, first line
      and its second line
      > a note
        its second line

Under a task, attribute lines come first, then the description (each line indented two
spaces; a line that could be read as something else starts with a `\\`, as markdown
escapes it), then the notes. Continuation lines of a multi-line note are indented four
spaces so that the round trip gives back exactly the notes that went out. A dependency
names the task it waits for by its content, which is what a reader of the text sees.

A subtask's checklist line is indented two spaces more than its parent's, and every line
under it (attributes, description, notes) by as much again. Import takes a checklist line
indented deeper than the one above it as a subtask of the nearest less indented one (a tab
counts as four spaces), so other tools' nested checklists (Kiro's `tasks.md`, Conductor's
`plan.md`, GitHub task lists) read as they look; a note's continuation line that would read
as a checklist line is written with a leading `\\`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from plansight.core.model import ATTRIBUTES, DEFAULT_PHASE, PRIORITIES, Plan, Task, TaskStatus
from plansight.core.rebuild import Entry, PhaseEntries
from plansight.core.tree import PhaseTree
from plansight.protocol.text import clean_content

EXPORT_MARKS: dict[str, str] = {
    "pending": " ",
    "in_progress": "/",
    "completed": "x",
    "abandoned": "-",
    "blocked": "!",
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
    "!": "blocked",
}

_PHASE_HEADING = re.compile(r"^#{2,6}\s+(.*)$")
_TOP_HEADING = re.compile(r"^#\s+(.*)$")
# `[ ]*`: Kiro's mark of an optional task, read as any task.
_TASK = re.compile(r"^([ \t]*)[-*+]\s+\[(.?)\]\*?\s+(.*)$")

# The marks of a plain GitHub checklist, as agents' plan modes write one.
_PLAIN_MARKS = frozenset({" ", "", "x", "X"})


def carried_statuses(text: str) -> frozenset[TaskStatus]:
    """The statuses an agent's checklist can carry (steering rule 7): a plain one, with
    only `[ ]` and `[x]` marks (a plan mode's plan), carries pending and completed; one
    that uses any other of the marks above carries every status."""
    for line in text.splitlines():
        found = _TASK.match(line)
        if found is not None and found.group(2) not in _PLAIN_MARKS:
            return frozenset(IMPORT_MARKS.values())
    return frozenset({"pending", "completed"})


# A note's continuation line that, once its `\\`s are taken off, would read as a task.
_CHECKLIST_BODY = re.compile(r"^\\*[ \t]*[-*+]\s+\[.?\]\s")
_INDENT = "  "  # one level of nesting, on export
_NOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
# The text attributes of `Task` (`Owner`...) by their label.
_LABELLED = {label: name for name, label in ATTRIBUTES.items()}
_ATTRIBUTE = re.compile(
    r"^  (Priority|" + "|".join(map(re.escape, _LABELLED)) + r"|Waits for): (.*)$"
)
_DESCRIPTION = "  "
_CONTINUATION = "    "
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
_CLEARED: dict[str, object] = {"description": "", "priority": None} | dict.fromkeys(ATTRIBUTES)
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(?:\s*#(\d+))?')
# A description line starting with one of these could be read as a task, a note, a comment, a
# heading or an escape: it is written with a leading `\`.
_NEEDS_ESCAPE = tuple("-*+>#<\\")
# Only the line breaks a content cannot hold: str.splitlines() would also split at
# U+2028 and friends, which a content or note may carry, and break the round trip.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def to_markdown(plan: Plan) -> str:
    lines: list[str] = []
    if plan.title:
        lines.append(f"# {plan.title}")
    tasks = list(plan.tasks())
    by_id = {task.id: task for task in tasks}
    for phase in plan.phases:
        if lines:
            lines.append("")
        lines.append(f"## {phase.name}")
        tree = PhaseTree(phase.tasks)
        for task in phase.tasks:  # in document order: each subtask after its parent
            pad = _INDENT * (tree.depth(task) - 1)
            lines.append(f"{pad}- [{EXPORT_MARKS[task.status]}] {task.content}")
            under = [*_attributes(task, by_id, tasks), *_description(task.description)]
            for note in task.notes:
                first, *rest = note.split("\n")
                under.append(f"  > {first}")
                under.extend(_CONTINUATION + _escaped_continuation(line) for line in rest)
            lines.extend(pad + line for line in under)
    return "\n".join(lines) + "\n" if lines else ""


def _escaped_continuation(line: str) -> str:
    """A note's later line, with a `\\` before it when it would read as a checklist line
    (import takes a checklist line as a task, never as part of a note)."""
    return "\\" + line if _CHECKLIST_BODY.match(line) else line


def _attributes(task: Task, by_id: dict[str, Task], tasks: list[Task]) -> list[str]:
    lines = []
    if task.priority:
        lines.append(f"  Priority: {task.priority}")
    for name, label in ATTRIBUTES.items():
        value = getattr(task, name)
        if value:
            lines.append(f"  {label}: {value}")
    blockers = [by_id[i] for i in task.blocked_by if i in by_id]
    if blockers:
        lines.append("  Waits for: " + ", ".join(_reference(b, tasks) for b in blockers))
    return lines


def _reference(task: Task, tasks: list[Task]) -> str:
    """`"Content"`, then `#N` when other tasks have that content: the Nth of them in the
    plan's order."""
    escaped = task.content.replace("\\", "\\\\").replace('"', '\\"')
    same = [t for t in tasks if t.content == task.content]
    return f'"{escaped}"' if len(same) == 1 else f'"{escaped}" #{same.index(task) + 1}'


def _description(description: str) -> list[str]:
    if not description:
        return []
    lines = []
    for index, line in enumerate(description.split("\n")):
        escape = line.lstrip().startswith(_NEEDS_ESCAPE) or (
            index == 0 and _ATTRIBUTE.match(_DESCRIPTION + line) is not None
        )
        lines.append(_DESCRIPTION + ("\\" if escape else "") + line)
    return lines


@dataclass(slots=True)
class ParsedPlan:
    phases: list[PhaseEntries] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    title: str | None = None


def parse_markdown(text: str) -> ParsedPlan:
    """Read a checklist; lines it cannot read are reported, never silently dropped."""
    lines = _LINE_BREAK.split(text)
    reader = _Reader(ParsedPlan(), _top_headings_are_phases(lines))
    for number, line in enumerate(lines, start=1):
        reader.read(number, line)
    return reader.finish()


# What a line the reader took waits for: (entry, (content, ordinal) of each task).
_Waits = tuple[Entry, list[tuple[str, int]]]


@dataclass
class _Reader:
    """The checklist read line by line: where it is (the phase, the entry, a note or a
    description going on) and what it gathered."""

    parsed: ParsedPlan
    top_phases: set[int]  # the line indexes of `#` headings read as phases
    phase: PhaseEntries | None = None
    entry: Entry | None = None
    description: list[str] | None = None  # the current entry's description lines
    in_note: bool = False
    # Multi-line notes and descriptions are gathered as lines and joined once at the end:
    # a text of many lines is read in time linear in its size.
    note_lines: list[str] = field(default_factory=list)
    # (entry, note index or None for its description, the lines)
    gathered: list[tuple[Entry, int | None, list[str]]] = field(default_factory=list)
    waits: dict[int, _Waits] = field(default_factory=dict)  # by line number
    # The checklist lines the next one may nest under: (indent, entry), each deeper than
    # the one before it; a heading empties it.
    open_tasks: list[tuple[int, Entry]] = field(default_factory=list)
    # The current entry's lines are read with this many columns of indent taken off.
    indent: int = 0
    parents: dict[int, Entry] = field(default_factory=dict)  # by id() of the subtask

    def read(self, number: int, line: str) -> None:
        """Take one line: a note's next line, a heading, a task, a note, an attribute or a
        description line; anything else is an error line."""
        task = _TASK.match(line)
        under = _dedent(line, self.indent)  # a line under the current task, as if at the top
        if self.in_note and task is None and self._note_goes_on(under):
            return
        self.in_note = False
        if not line.strip() or _COMMENT.match(line):
            return
        if self._heading(number, line) or self._task(number, task):
            return
        steps = (self._note, self._attribute, self._description)
        if not any(step(number, under) for step in steps):
            self.parsed.errors.append(
                f"Line {number}: not a heading, task or note: {line.strip()[:60]}"
            )

    def finish(self) -> ParsedPlan:
        """The plan read, its notes and descriptions joined and its waits linked."""
        entries = [entry for phase in self.parsed.phases for entry in phase.entries]
        at = {id(entry): index for index, entry in enumerate(entries)}
        for entry in entries:
            parent = self.parents.get(id(entry))
            entry.parent_entry = at[id(parent)] if parent is not None else None
            entry.top_level = parent is None  # import replaces the list: no parent is no parent
        for entry_of, index, parts in self.gathered:
            if index is None:
                entry_of.fields["description"] = "\n".join(parts)
            elif len(parts) > 1:
                assert entry_of.notes is not None
                entry_of.notes[index] = "\n".join(parts)
        _link(self.parsed, self.waits)
        return self.parsed

    def _note_goes_on(self, line: str) -> bool:
        if self.entry is None or not self.entry.notes:
            return False
        if not line.startswith(_CONTINUATION) or not line.strip():
            return False
        body = line[len(_CONTINUATION) :]
        if body.startswith("\\") and _CHECKLIST_BODY.match(body):
            body = body[1:]  # escaped on export: it would read as a task
        self.note_lines.append(body)
        return True

    def _heading(self, number: int, line: str) -> bool:
        parsed = self.parsed
        heading = _PHASE_HEADING.match(line) or (self.top_phases and _TOP_HEADING.match(line))
        if heading:
            if not self.top_phases or number - 1 in self.top_phases:
                self.phase = _phase(parsed, heading.group(1))
            elif parsed.title is None and not parsed.phases:
                parsed.title = clean_content(heading.group(1))
        elif title := _TOP_HEADING.match(line):
            if parsed.title is None and not parsed.phases:
                parsed.title = clean_content(title.group(1))
        else:
            return False
        self.entry = None
        self.open_tasks = []
        self.indent = 0
        return True

    def _task(self, number: int, task: re.Match[str] | None) -> bool:
        if not task:
            return False
        leading, mark, content = task.groups()
        status = IMPORT_MARKS.get(mark)
        if status is None:
            self.parsed.errors.append(f'Line {number}: unknown marker "[{mark}]"')
            return True
        if self.phase is None:
            self.phase = _phase(self.parsed, DEFAULT_PHASE)
        # Import replaces the list as `init` does: what the text leaves out is cleared.
        self.entry = Entry(content, status, notes=[], fields=dict(_CLEARED), waits_for_entries=[])
        self.description = None
        self.phase.entries.append(self.entry)
        self._nest(self.entry, _columns(leading))
        return True

    def _nest(self, entry: Entry, indent: int) -> None:
        """Make `entry` a subtask of the nearest open checklist line less indented than it
        (none: the top level); the lines under it are read relative to its own indent."""
        while self.open_tasks and self.open_tasks[-1][0] >= indent:
            self.open_tasks.pop()
        if self.open_tasks:
            self.parents[id(entry)] = self.open_tasks[-1][1]
            self.indent = indent
        else:
            # A top-level task's lines keep their own indent, as before nesting: a task
            # written ` - [ ] A` still has its description at two spaces.
            self.indent = 0
        self.open_tasks.append((indent, entry))

    def _note(self, number: int, line: str) -> bool:
        note = _NOTE.match(line)
        if not note or self.entry is None:
            return False
        assert self.entry.notes is not None
        self.entry.notes.append(note.group(1))
        self.note_lines = [note.group(1)]
        self.gathered.append((self.entry, len(self.entry.notes) - 1, self.note_lines))
        self.in_note = True
        return True

    def _attribute(self, number: int, line: str) -> bool:
        attribute = _ATTRIBUTE.match(line)
        entry = self.entry
        if not attribute or entry is None or self.description is not None or entry.notes:
            return False
        key, value = attribute.group(1), attribute.group(2)
        problem = _read_attribute(entry, key, value, self.waits.setdefault(number, (entry, [])))
        if problem:
            self.parsed.errors.append(f"Line {number}: {problem}")
        return True

    def _description(self, number: int, line: str) -> bool:
        entry = self.entry
        if entry is None or entry.notes or not line.startswith(_DESCRIPTION):
            return False
        body = line[len(_DESCRIPTION) :]
        if body.startswith("\\"):
            body = body[1:]
        if self.description is None:
            self.description = []
            self.gathered.append((entry, None, self.description))
        self.description.append(body)
        return True


def _columns(whitespace: str) -> int:
    """How deep leading whitespace indents: a tab counts as four spaces."""
    return sum(4 if char == "\t" else 1 for char in whitespace)


def _dedent(line: str, columns: int) -> str:
    """`line` with up to `columns` columns of its leading whitespace taken off."""
    taken, index = 0, 0
    while index < len(line) and taken < columns and line[index] in " \t":
        taken += 4 if line[index] == "\t" else 1
        index += 1
    return line[index:]


def _link(parsed: ParsedPlan, waits: dict[int, tuple[Entry, list[tuple[str, int]]]]) -> None:
    """Turn each `Waits for` reference into the entry it names, in plan order."""
    flat = [entry for phase in parsed.phases for entry in phase.entries]
    by_content: dict[str, list[int]] = {}
    for index, entry in enumerate(flat):
        by_content.setdefault(clean_content(entry.content), []).append(index)
    for number, (entry, refs) in waits.items():
        for content, ordinal in refs:
            matches = by_content.get(clean_content(content), [])
            if ordinal > len(matches):
                parsed.errors.append(f'Line {number}: Task "{clean_content(content)}" not found')
                continue
            assert entry.waits_for_entries is not None
            entry.waits_for_entries.append(matches[ordinal - 1])


def _read_attribute(
    entry: Entry, key: str, value: str, wait: tuple[Entry, list[tuple[str, int]]]
) -> str | None:
    """Read one attribute line into `entry` (`Waits for` into `wait`); a problem, if any."""
    value = value.strip()
    if key == "Priority":
        if value not in PRIORITIES:
            return f'unknown priority "{value}" (high, medium or low)'
        entry.fields["priority"] = value
    elif key in _LABELLED:
        entry.fields[_LABELLED[key]] = clean_content(value) or None
    else:
        refs = [
            (re.sub(r"\\(.)", r"\1", content), int(ordinal or 1))
            for content, ordinal in _QUOTED.findall(value)
        ]
        if not refs or any(ordinal < 1 for _, ordinal in refs):
            return 'a "Waits for" line names its tasks in double quotes'
        wait[1].extend(refs)
    return None


def _top_headings_are_phases(lines: list[str]) -> set[int]:
    """Without a `##` heading, the `#` headings with tasks under them are phases (as other
    agents export them); returns their line indexes (empty: `#` is a title)."""
    if any(_PHASE_HEADING.match(line) for line in lines):
        return set()
    phases: set[int] = set()
    heading: int | None = None
    for index, line in enumerate(lines):
        if _TOP_HEADING.match(line):
            heading = index
        elif heading is not None and _TASK.match(line):
            phases.add(heading)
    if phases:
        # A `#` heading after the first phase is a phase too, even with no task under it.
        first = min(phases)
        phases |= {i for i, line in enumerate(lines) if i > first and _TOP_HEADING.match(line)}
    return phases


def _phase(parsed: ParsedPlan, heading: str) -> PhaseEntries:
    """A heading met again continues its phase, as `init` gathers a phase named twice."""
    name = clean_content(heading)
    for phase in parsed.phases:
        if phase.name == name:
            return phase
    phase = PhaseEntries(name)
    parsed.phases.append(phase)
    return phase
