"""Faults of the storage, made real for the tests: a read-only store, a file-size limit on
a running process (writes fail as on a failing disk), a store that fills up."""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

from plansight.store.sqlite import SqliteStore


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """The folder and every file in it cannot be written, even by root.

    As root, permissions do not stop a write, so the folder is bind-mounted read-only onto
    itself (a read-only medium, as a person may meet it); otherwise its modes are taken
    away."""
    if os.geteuid() == 0:
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        try:
            subprocess.run(
                ["mount", "-o", "remount,ro,bind", str(folder)], check=True, capture_output=True
            )
            yield
        finally:
            # Lazily: a server that failed the test may still hold a file there.
            subprocess.run(["umount", "-l", str(folder)], check=True)
        return
    modes = {path: stat.S_IMODE(path.stat().st_mode) for path in [folder, *folder.iterdir()]}
    for path in modes:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def limit_file_size(pid: int, limit: int | None) -> None:
    """Writes of process `pid` past `limit` bytes of a file fail with EFBIG (SQLite reports
    a disk I/O error), as writes to a failing disk do; None lifts the limit. Python
    ignores the SIGXFSZ that comes with it."""
    value = resource.RLIM_INFINITY if limit is None else limit
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (value, resource.RLIM_INFINITY))


def files_size(db: Path) -> int:
    """The largest of the store's files: any write that grows one fails past it."""
    return max(path.stat().st_size for path in db.parent.glob(db.name + "*"))


def fill_up(store: SqliteStore) -> None:
    """Let the store's file grow no more from now on: the next commit that needs a new
    page fails with SQLITE_FULL, as on a full disk.

    `PRAGMA max_page_count` is SQLite's own limit and holds for one connection only, so it
    is set on the store's own (the one private reach of these tests): a real full disk
    would need a mount, which a test runner without root cannot make."""
    db = store._db
    assert db is not None
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def make_room(store: SqliteStore) -> None:
    db = store._db
    assert db is not None
    db.execute("PRAGMA max_page_count = 1073741823")
