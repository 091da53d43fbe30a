"""The plan as a terminal panel (rich), drawn from the wire's TodoState."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

ICONS = {"pending": "○", "in_progress": "●", "completed": "✓", "abandoned": "✗"}
STYLES = {
    "pending": "default",
    "in_progress": "bold yellow",
    "completed": "green",
    "abandoned": "dim strike",
}
BAR_WIDTH = 10


def progress_bar(completed: int, total: int, width: int = BAR_WIDTH) -> str:
    """`[████░░░░░░] 4/10`."""
    filled = width * completed // total if total else 0
    return f"[{'█' * filled}{'░' * (width - filled)}] {completed}/{total}"


def render_state(state: dict[str, Any]) -> RenderableType:
    """Phases, tasks with their icons, the current task's notes and the progress bar.

    Every piece of plan text goes into `Text` objects, never markup, so a task named
    "[bold]" is shown as written."""
    progress = state["progress"]
    lines: list[RenderableType] = []
    header = Text(progress_bar(progress["completed"], progress["total"]), style="bold")
    header.append(f"  {progress['percent']}%", style="dim")
    if progress["abandoned"]:
        header.append(f"  {progress['abandoned']} dropped", style="dim")
    lines.append(header)
    if not progress["total"]:
        lines.append(
            Text("No tasks yet: the plan appears here as the agent writes it.", style="dim")
        )
    for phase in state["phases"]:
        lines.append(Text(""))
        lines.append(Text(phase["name"], style="bold cyan"))
        if not phase["tasks"]:
            lines.append(Text("  (empty)", style="dim"))
        for task in phase["tasks"]:
            status = task["status"]
            label = task["activeForm"] if status == "in_progress" else task["content"]
            line = Text(
                f"  {ICONS[status]} ", style=STYLES[status] if status != "abandoned" else "dim"
            )
            line.append(label, style=STYLES[status])
            if task["notes"] and status != "in_progress":
                line.append(
                    f"  ({len(task['notes'])} note{'s' if len(task['notes']) > 1 else ''})",
                    style="dim",
                )
            lines.append(line)
            if status == "in_progress":
                for note in task["notes"]:
                    for i, part in enumerate(note.split("\n")):
                        lines.append(
                            Text(("      › " if i == 0 else "        ") + part, style="italic dim")
                        )
    title = Text(f"Plansight · {state['session']}", style="bold")
    subtitle = Text(f"v{state['version']}", style="dim")
    return Panel(
        Group(*lines),
        title=title,
        title_align="left",
        subtitle=subtitle,
        subtitle_align="right",
        padding=(0, 1),
    )


def render_sessions(sessions: list[dict[str, Any]]) -> RenderableType:
    from rich.table import Table

    table = Table("session", "progress", "current", "updated", box=None, pad_edge=False)
    for info in sessions:
        progress = info["progress"]
        current = info["current"]["activeForm"] if info["current"] else ""
        table.add_row(
            Text(info["session"]),
            progress_bar(progress["completed"], progress["total"]),
            Text(current),
            info["updatedAt"] or "",
        )
    return table
