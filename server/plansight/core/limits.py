"""Checks of the size limits, shared by every way of changing a plan."""

from __future__ import annotations

from plansight.core.settings import Settings


def preview(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def content_problem(content: str, settings: Settings, what: str = "Task content") -> str | None:
    if len(content) > settings.max_content_length:
        return (
            f'{what} "{preview(content)}" is too long '
            f"({len(content)} characters, the limit is {settings.max_content_length})"
        )
    return None


def note_problem(note: str, settings: Settings) -> str | None:
    if len(note) > settings.max_note_length:
        return (
            f'Note "{preview(note)}" is too long '
            f"({len(note)} characters, the limit is {settings.max_note_length})"
        )
    return None


def note_count_problem(content: str, count: int, settings: Settings) -> str | None:
    if count > settings.max_notes_per_task:
        return f'Too many notes on task "{preview(content)}" (the limit is {settings.max_notes_per_task})'
    return None


def task_count_problem(count: int, settings: Settings) -> str | None:
    if count > settings.max_tasks:
        return f"Too many tasks ({count}, the limit is {settings.max_tasks})"
    return None


def phase_count_problem(count: int, settings: Settings) -> str | None:
    if count > settings.max_phases:
        return f"Too many phases ({count}, the limit is {settings.max_phases})"
    return None


def description_problem(content: str, description: str, settings: Settings) -> str | None:
    if len(description) > settings.max_description_length:
        return (
            f'Description of task "{preview(content)}" is too long '
            f"({len(description)} characters, the limit is {settings.max_description_length})"
        )
    return None


def file_count_problem(content: str, count: int, settings: Settings) -> str | None:
    if count > settings.max_files_per_task:
        return f'Too many files on task "{preview(content)}" (the limit is {settings.max_files_per_task})'
    return None


def title_problem(title: str, settings: Settings) -> str | None:
    if len(title) > settings.max_title_length:
        return (
            f'Title "{preview(title)}" is too long '
            f"({len(title)} characters, the limit is {settings.max_title_length})"
        )
    return None


def markdown_line_limit(settings: Settings) -> int:
    """The most lines a markdown plan within the limits is read from: a title; each phase's
    heading and a blank line; each task's line, its three attribute lines, a description
    and each of its notes on two lines, and a blank line. More is refused unread."""
    per_task = 1 + 3 + 2 + 2 * settings.max_notes_per_task + 1
    return 1 + 2 * settings.max_phases + settings.max_tasks * per_task


def markdown_size_problem(text: str, settings: Settings) -> str | None:
    """A markdown text too long for any plan within the limits, found before it is parsed
    (counting its line breaks as the parser splits them: `\\r\\n`, `\\r`, `\\n`)."""
    lines = text.count("\n") + text.count("\r") - text.count("\r\n") + 1
    limit = markdown_line_limit(settings)
    if lines > limit:
        return (
            f"The markdown has {lines} lines, more than a plan within the limits is read "
            f"from ({limit}): nothing was read"
        )
    return None
