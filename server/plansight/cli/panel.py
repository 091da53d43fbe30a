"""The plan as a terminal panel (rich), drawn from the wire's TodoState."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from plansight.cli.viewport import visible_slice
from plansight.protocol.text import terminal_safe_tree

ICONS = {"pending": "○", "in_progress": "●", "completed": "✓", "abandoned": "✗", "blocked": "⊘"}
STYLES = {
    "pending": "default",
    "in_progress": "bold yellow",
    "completed": "green",
    "abandoned": "dim strike",
    "blocked": "red",
}
PRIORITY_MARKS = {"high": "!!", "medium": "!", "low": "↓"}
BAR_WIDTH = 10


def progress_bar(completed: int, total: int, width: int = BAR_WIDTH) -> str:
    """`[████░░░░░░] 4/10`."""
    filled = width * completed // total if total else 0
    return f"[{'█' * filled}{'░' * (width - filled)}] {completed}/{total}"


def _hanging(prefix: str, body: Text, prefix_style: str = "") -> RenderableType:
    """`prefix` then `body`, whose wrapped lines start under the body, not at column 0."""
    grid = Table.grid(padding=0)
    grid.add_column(width=len(prefix), no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(Text(prefix, style=prefix_style), body)
    return grid


@dataclass
class PlanLines:
    """The panel's content: the header, then one renderable per body line. `focus` is the
    slice of body lines that must stay in view (the current task and its notes)."""

    header: Text
    body: list[RenderableType]
    is_task: list[bool]
    focus: tuple[int, int]


def plan_lines(state: dict[str, Any]) -> PlanLines:
    """Every line of the panel for `state`, plan text in `Text` objects, never markup, so a
    task named "[bold]" is shown as written."""
    progress = state["progress"]
    lines: list[RenderableType] = []
    is_task: list[bool] = []
    header = Text(progress_bar(progress["completed"], progress["total"]), style="bold")
    header.append(f"  {progress['percent']}%", style="dim")
    if progress["abandoned"]:
        header.append(f"  {progress['abandoned']} dropped", style="dim")
    if progress.get("blocked"):
        header.append(f"  {progress['blocked']} blocked", style="red")
    if not progress["total"]:
        lines.append(
            Text("No tasks yet: the plan appears here as the agent writes it.", style="dim")
        )
        is_task.append(False)
    current: tuple[int, int] | None = None
    first_pending: int | None = None
    # What a waiting task still waits for: its blockers that have not ended.
    names = {
        t["id"]: t["content"]
        for phase in state["phases"]
        for t in phase["tasks"]
        if t["status"] not in ("completed", "abandoned")
    }
    owners = {t.get("owner") for phase in state["phases"] for t in phase["tasks"]}
    for phase in state["phases"]:
        lines += [Text(""), Text(phase["name"], style="bold cyan")]
        is_task += [False, False]
        if not phase["tasks"]:
            lines.append(Text("  (empty)", style="dim"))
            is_task.append(False)
        depths, leaves = nesting(phase["tasks"])
        for task in phase["tasks"]:
            status = task["status"]
            label = task["activeForm"] if status == "in_progress" else task["content"]
            text = Text(label, style=STYLES[status])
            if task["id"] in leaves:  # a parent: how many of its leaves are completed
                done, total = leaves[task["id"]]
                text.append(f"  {done}/{total}", style="dim")
            _append_v2_fields(text, task, names, show_owner=len(owners) > 1)
            indent = "  " * depths[task["id"]]
            if task["notes"] and status != "in_progress":
                text.append(
                    f"  ({len(task['notes'])} note{'s' if len(task['notes']) > 1 else ''})",
                    style="dim",
                )
            start = len(lines)
            if status == "pending" and first_pending is None:
                first_pending = start
            lines.append(
                _hanging(
                    f"  {indent}{ICONS[status]} ",
                    text,
                    STYLES[status] if status != "abandoned" else "dim",
                )
            )
            is_task.append(True)
            if status == "in_progress":
                for note in task["notes"]:
                    for i, part in enumerate(note.split("\n")):
                        prefix = indent + ("      › " if i == 0 else "        ")
                        lines.append(_hanging(prefix, Text(part, style="italic dim"), "italic dim"))
                        is_task.append(False)
            for path in task.get("files") or []:
                lines.append(_hanging(f"{indent}      ◦ ", Text(path, style="dim"), "dim"))
                is_task.append(False)
            if status == "in_progress" and current is None:
                current = (start, len(lines))
    if current is None:
        at = first_pending if first_pending is not None else 0
        current = (at, min(at + 1, len(lines)))
    return PlanLines(header, lines, is_task, current)


def nesting(tasks: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """(v4) Each task's depth in its phase (0 at the top: two spaces of indent a level),
    and for each parent its completed leaves and all its leaves. The server sends a phase
    in document order (a task before its subtasks); a `parent` naming no earlier task of
    the phase is drawn at the top."""
    depths: dict[str, int] = {}
    parents: dict[str, str] = {}
    for task in tasks:
        parent = task.get("parent")
        if parent in depths and parent != task["id"]:
            parents[task["id"]] = parent
            depths[task["id"]] = depths[parent] + 1
        else:
            depths[task["id"]] = 0
    counts: dict[str, tuple[int, int]] = {}
    having = set(parents.values())
    for task in tasks:
        if task["id"] in having:
            continue  # a parent: its leaves count for it
        done = 1 if task["status"] == "completed" else 0
        above = parents.get(task["id"])
        while above is not None:  # an earlier task each step: no cycle
            was_done, was_total = counts.get(above, (0, 0))
            counts[above] = (was_done + done, was_total + 1)
            above = parents.get(above)
    return depths, counts


def _append_v2_fields(
    line: Text, task: dict[str, Any], names: dict[str, str], show_owner: bool
) -> None:
    """Priority, owner (when the plan has several) and what a waiting task waits for."""
    priority = task.get("priority")
    if priority:
        line.append(
            f"  {PRIORITY_MARKS[priority]}", style="bold red" if priority == "high" else "dim"
        )
    if show_owner and task.get("owner"):
        line.append(f"  @{task['owner']}", style="cyan")
    if task.get("waiting"):
        # The server says whether it waits; the names come from the same state.
        blockers = ", ".join(f'"{names[i]}"' for i in task["blockedBy"] if i in names)
        line.append(f"  (waits for {blockers})", style="dim")


def render_history(events: list[dict[str, Any]]) -> RenderableType:
    table = Table("version", "by", "when", "what changed", box=None, pad_edge=False)
    for event in events:
        method = event["method"].removeprefix("plansight/")
        what = "; ".join(event["changes"]) or "(nothing a reader sees)"
        table.add_row(
            str(event["version"]), event["origin"], event["at"], Text(f"{method}: {what}")
        )
    return table


def _more(count: int, where: str) -> Text:
    what = f"{count} more task{'s' if count != 1 else ''}" if count else "more"
    return Text(f"  {where} {what}", style="dim")


@dataclass
class PlanPanel:
    """The plan in a box. With `height`, the box takes at most that many rows: the header,
    the current task and the borders always show, the rest scrolls around the current task
    (a cut box would lose its border and, past the cut, the task being worked on)."""

    state: dict[str, Any]
    height: int | None = None
    checkout: str = ""  # the session's checkout, as `checkout_label` words it

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        content = plan_lines(self.state)
        body = content.body
        if self.height is not None:
            inner = options.update(width=max(1, options.max_width - 4), height=None)
            header_rows = len(console.render_lines(content.header, inner, pad=False))
            heights = [len(console.render_lines(line, inner, pad=False)) for line in body]
            start, end = visible_slice(heights, self.height - 2 - header_rows, content.focus)
            shown = body[start:end]
            if start > 0:
                shown.insert(0, _more(sum(content.is_task[:start]), "↑"))
            if end < len(body):
                shown.append(_more(sum(content.is_task[end:]), "↓"))
            body = shown
        yield Panel(
            Group(content.header, *body),
            title=Text(
                f"Plansight · {self.state.get('title') or self.state['session']}",
                style="bold",
                overflow="ellipsis",
            ),
            title_align="left",
            subtitle=Text(
                " · ".join(filter(None, (self.checkout, f"v{self.state['version']}"))),
                style="dim",
            ),
            subtitle_align="right",
            padding=(0, 1),
        )


def render_state(
    state: dict[str, Any], height: int | None = None, checkout: Any = None
) -> RenderableType:
    """Phases, tasks with their icons, the current task's notes and the progress bar, in a
    box of at most `height` rows when given, the session's `checkout` (the `sessions`
    entry's) beside its version. Escape sequences are defused whatever the store holds."""
    safe = cast("dict[str, Any]", terminal_safe_tree(state))
    return PlanPanel(safe, height, checkout_label(checkout))


def checkout_label(checkout: Any) -> str:
    """Where a session's agent works, in a few words: `⎇ branch` for the main working
    tree, `⎇ branch (worktree)` for a linked one; empty when none is known."""
    if not isinstance(checkout, dict):
        return ""
    safe = cast("dict[str, Any]", terminal_safe_tree(checkout))
    branch = safe.get("branch") or "detached"
    worktree = safe.get("worktree")
    return f"⎇ {branch}" + (f" ({worktree})" if worktree else "")


def render_sessions(sessions: list[dict[str, Any]]) -> RenderableType:
    table = Table("session", "checkout", "progress", "current", "updated", box=None, pad_edge=False)
    sessions = cast("list[dict[str, Any]]", terminal_safe_tree(sessions))
    for info in sessions:
        progress = info["progress"]
        current = info["current"]["activeForm"] if info["current"] else ""
        table.add_row(
            Text(info["session"]),
            Text(checkout_label(info.get("checkout")), style="dim"),
            progress_bar(progress["completed"], progress["total"]),
            Text(current),
            info["updatedAt"] or "",
        )
    return table
