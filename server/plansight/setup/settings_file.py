"""Changing an agent's JSON settings file the way a person would want: every other setting
kept, the same indentation, a backup of the file as it was, the change shown as a diff,
nothing written on a dry run or when nothing changes."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


class SetupError(Exception):
    """Printed as one line; nothing was changed."""


def read_settings(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and its JSON object (`""` and `{}` when the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"cannot read {path}: {exc.__class__.__name__}; nothing changed") from None
    if not text.strip():
        return text, {}
    try:
        settings = json.loads(text)
    except ValueError as exc:
        raise SetupError(
            f"{path} is not valid JSON ({exc}); fix or move it, nothing changed"
        ) from None
    if not isinstance(settings, dict):
        raise SetupError(f"{path} does not hold a JSON object; nothing changed")
    return text, settings


def _indent_of(text: str) -> int | str:
    match = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    if match is None:
        return 2
    indent = match.group(1)
    return indent if "\t" in indent else len(indent)


def render(settings: dict[str, Any], like: str) -> str:
    return json.dumps(settings, indent=_indent_of(like), ensure_ascii=False) + "\n"


def change_settings(
    path: Path,
    edit: Callable[[dict[str, Any]], dict[str, Any]],
    dry_run: bool,
    say: Callable[[str], None],
) -> bool:
    """Apply `edit` to the JSON settings in `path` (see `change_file`)."""

    def new_text(before_text: str) -> str:
        _, before = read_settings(path)
        after = edit(json.loads(json.dumps(before)))  # `edit` works on its own copy
        return before_text if after == before else render(after, before_text)

    return change_file(path, new_text, dry_run, say)


def change_file(
    path: Path, new_text: Callable[[str], str], dry_run: bool, say: Callable[[str], None]
) -> bool:
    """Replace the text of `path` by `new_text(old text)`; print the diff; write with a
    backup unless `dry_run`. Returns whether the file changes (or would)."""
    try:
        before_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        before_text = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"cannot read {path}: {exc.__class__.__name__}; nothing changed") from None
    after_text = new_text(before_text)
    if after_text == before_text:
        say(f"{path}: already as it should be, nothing to change")
        return False
    diff = difflib.unified_diff(
        before_text.splitlines(keepends=True),
        after_text.splitlines(keepends=True),
        fromfile=f"{path} (before)" if before_text else "/dev/null",
        tofile=str(path),
    )
    say("".join(diff).rstrip("\n"))
    if dry_run:
        say(f"(dry run: {path} not changed)")
        return True
    write_with_backup(path, after_text, path.exists(), say)
    return True


def write_with_backup(path: Path, text: str, existed: bool, say: Callable[[str], None]) -> None:
    """Write `text` to `path` atomically, after copying the old file aside."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if existed:
            backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
            shutil.copy2(path, backup)
            say(f"backup: {backup}")
        mode = path.stat().st_mode & 0o777 if existed else 0o600
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        raise SetupError(f"cannot write {path}: {exc.__class__.__name__}") from None
    say(f"wrote {path}")
