"""Reading and writing a person's settings files the way they would want: a backup of the
file as it was, the change shown as a diff, nothing written on a dry run or when nothing
changes, the new text written atomically where the file really is (through a symlink of
a dotfile manager such as stow or chezmoi), and nothing left behind when a write fails."""

from __future__ import annotations

import contextlib
import difflib
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.regular_file import NotRegular, TooLarge, read_bounded
from plansight.setup.json_text import STRICT, Dialect, JsonTextError, parse


class SetupError(Exception):
    """Printed as one line; nothing was changed."""


# Claude Code's `~/.claude.json` keeps every project's history: files of 65 to 101 MB are
# reported (anthropics/claude-code#6394, #2593). Larger than this is no settings file.
MAX_BYTES = 256 * 1024 * 1024


def read_text(path: Path) -> str:
    """The file's text (`""` when it does not exist), newlines read as Python's text mode
    reads them (`write_with_backup` writes them back as the file had them). Only a regular
    file is read: a FIFO, a socket, a device or a folder in its place is refused with what
    it is, without waiting for a writer that never comes."""
    data = read_regular(path, MAX_BYTES)
    if data is None:
        return ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(f"cannot read {path}: {_cause(exc)}; nothing changed") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at `path` (None when there is none); SetupError when
    something else is there, or the file is larger than `limit`."""
    try:
        return read_bounded(path, limit)
    except NotRegular as exc:
        raise SetupError(
            f"cannot read {path}: it is {exc.kind}, not a regular file; move it aside, "
            "nothing changed"
        ) from None
    except TooLarge as exc:
        raise SetupError(
            f"cannot read {path}: {exc}, too large for a settings file; nothing changed"
        ) from None
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {_cause(exc)}; nothing changed") from None


def too_deep(path: Path | str) -> SetupError:
    """A file nested deeper than a parser can follow (Python's recursion limit): it cannot
    be read, as a malformed one cannot."""
    return SetupError(
        f"{path} cannot be read: it is nested too deeply; fix or move it, nothing changed"
    )


def settings_of(path: Path, text: str, dialect: Dialect = STRICT) -> dict[str, Any]:
    """The JSON object `text` holds (`{}` for an empty file)."""
    if not text.strip():
        return {}
    try:
        settings = parse(text, dialect).value
    except RecursionError:
        raise too_deep(path) from None
    except JsonTextError as exc:
        kind = "JSON with comments" if dialect.comments else "JSON"
        raise SetupError(
            f"{path} is not valid {kind} ({exc}); fix or move it, nothing changed"
        ) from None
    if not isinstance(settings, dict):
        raise SetupError(f"{path} does not hold a JSON object; nothing changed")
    return settings


def show_change(path: Path, before: str, after: str, say: Callable[[str], None]) -> None:
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"{path} (before)" if before else "/dev/null",
        tofile=str(path),
    )
    say("".join(diff).rstrip("\n"))


def write_with_backup(path: Path, text: str, existed: bool, say: Callable[[str], None]) -> None:
    """Write `text` to `path` atomically, after copying the old file aside (next to `path`,
    not into the dotfiles repository a link may point into). Lines end as the file's did:
    `text` is edited with `\n` (`read_text`), and a file written on Windows keeps `\r\n`."""
    if existed:
        text = in_line_endings_of(path, text)
        backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        try:
            shutil.copy2(path, backup)
        except OSError as exc:
            with contextlib.suppress(OSError):
                backup.unlink()
            raise SetupError(f"cannot back up {path}: {_cause(exc)}; nothing changed") from None
        say(f"backup: {backup}")
    write_atomically(path, text)
    say(f"wrote {path}" + ("" if not path.is_symlink() else f" (at {os.path.realpath(path)})"))


def in_line_endings_of(path: Path, text: str) -> str:
    """`text` (lines ending `\n`) with the line endings of the file at `path`: `\r\n` when
    each of its lines ends so, else as it is (a file of mixed endings is read as `\n`)."""
    data = read_regular(path, MAX_BYTES) or b""
    crlf = data.count(b"\r\n")
    if crlf and crlf == data.count(b"\n"):
        return text.replace("\n", "\r\n")
    return text


def write_atomically(path: Path, text: str) -> None:
    """`path` holds `text` or is unchanged, even on a full disk or a crash: the text goes to
    a temporary file in the folder of the file `path` really is (a symlink is followed, and
    stays a link), is flushed to the disk, and is renamed onto it."""
    target = Path(os.path.realpath(path))
    temporary: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600
        fd, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
        )
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), mode)
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
        temporary = None
        _sync_folder(target.parent)
    except OSError as exc:
        raise SetupError(f"cannot write {path}: {_cause(exc)}; it is unchanged") from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _sync_folder(folder: Path) -> None:
    """The rename itself survives a crash only once the folder is on the disk."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _cause(exc: OSError | UnicodeDecodeError) -> str:
    """`No space left on device`, `Permission denied`: what the person can act on."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return exc.__class__.__name__
