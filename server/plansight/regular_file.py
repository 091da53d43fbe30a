"""Reading a file that a person or an agent may have replaced with anything: only a
regular file is read, opened without waiting (a FIFO in its place would wait for a writer
that never comes, and a socket cannot be opened at all), and no more than a bound."""

from __future__ import annotations

import os
import stat

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # not on Windows, which has no FIFOs to wait on
_NOCTTY = getattr(os, "O_NOCTTY", 0)


class NotReadable(Exception):
    """The file is there and cannot be read; the message says why, in words."""


class NotRegular(NotReadable):
    """Something other than a regular file is at the path: `kind` says what."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"it is {kind}, not a regular file")
        self.kind = kind


class TooLarge(NotReadable):
    """The file is larger than the bound it was read with."""


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of the regular file at `path`, None when nothing is there. NotRegular when
    something else is; TooLarge past `limit` bytes; OSError when the file cannot be opened
    or read (permissions, I/O)."""
    data = _read(path, limit + 1)
    if data is not None and len(data) > limit:
        raise TooLarge(f"it is larger than {limit // (1024 * 1024)} MiB")
    return data


def read_head(path: str | os.PathLike[str], most: int) -> bytes | None:
    """At most the first `most` bytes of the regular file at `path` (a file longer than
    that is read no further), None when nothing is there; NotRegular and OSError as
    `read_bounded`."""
    return _read(path, most)


def read_tail(path: str | os.PathLike[str], most: int) -> bytes | None:
    """At most the last `most` bytes of the regular file at `path` (a log read from its
    end), None when nothing is there; NotRegular and OSError as `read_bounded`."""
    return _read(path, most, from_end=True)


def _read(path: str | os.PathLike[str], most: int, from_end: bool = False) -> bytes | None:
    try:
        # Looked at before it is opened; non-blocking all the same, since what is there may
        # change between the look and the open.
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(kind_of(mode))
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _NOCTTY)
    except FileNotFoundError:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(kind_of(mode))
        if from_end:
            os.lseek(fd, max(os.fstat(fd).st_size - most, 0), os.SEEK_SET)
        chunks: list[bytes] = []
        size = 0
        while size < most and (chunk := os.read(fd, min(1024 * 1024, most - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


__all__ = ["NotReadable", "NotRegular", "TooLarge", "kind_of", "read_bounded", "read_head"]
