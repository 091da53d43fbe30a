"""Opening the store's file, and the guards around it: a path that could never hold a store
is refused at once, missing folders are made private, a symbolic link is followed only into
a Plansight store, another program's database is left alone, and a store this user cannot
write is opened for reading only. Nothing is created before the first change."""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import time
from contextlib import suppress
from pathlib import Path

from plansight.store.sqlite.faults import faults
from plansight.store.sqlite.schema import SCHEMA_VERSION, migrate
from plansight.store.store_error import StoreError, StoreFault

log = logging.getLogger(__name__)

FileIdentity = tuple[int, int]  # (device, inode)


def end_read(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        db.execute("COMMIT")


def identity_of(path: str) -> FileIdentity | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(
            "unavailable", f"The plan store cannot be reached ({_os_fault(exc)})"
        ) from None
    return info.st_dev, info.st_ino


def _os_fault(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else exc.__class__.__name__


def check_location(path: str) -> None:
    """Refuse at once a path that could never hold a store (a folder, or under a file),
    without creating anything."""
    target = Path(path)
    if target.is_dir():
        raise StoreError("unavailable", "The plan store path is a folder")
    for folder in target.parents:
        if folder.exists():
            if not folder.is_dir():
                raise StoreError("unavailable", "The plan store's folder is a file")
            return


def _make_folders(folder: Path) -> None:
    """Missing folders are made 0700 whatever the umask: plans can carry private notes."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        with suppress(FileExistsError):
            os.mkdir(made, 0o700)
            os.chmod(made, 0o700)


def connect(path: str, busy_timeout: float = 10.0) -> sqlite3.Connection:
    target = Path(path)
    try:
        if target.is_symlink():
            _check_link(target)
        else:
            _make_folders(target.parent)
            if not os.path.lexists(target):
                # A -wal left by a removed store is not the new file's: gone before the
                # file exists. Not after: a process may open the new file the moment it
                # exists and enter WAL mode, and unlinking its -wal and -shm then would
                # leave it reading a copy nobody else writes, for as long as it runs.
                for companion in ("-wal", "-shm"):
                    with suppress(FileNotFoundError):
                        os.unlink(path + companion)
            with suppress(FileExistsError):
                fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
                os.fchmod(fd, 0o600)
                os.close(fd)
    except OSError as exc:
        reason: StoreFault = "unavailable"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            reason = "readOnly"
        elif exc.errno == errno.ENOSPC:
            reason = "diskFull"
        raise StoreError(reason, f"Cannot create the plan store ({_os_fault(exc)})") from None
    try:
        return _open_database(path, busy_timeout)
    except StoreError as exc:
        if exc.reason not in ("readOnly", "unavailable") or _writable(path):
            raise
    # A store on a read-only medium or in a folder this user cannot write: SQLite cannot
    # open it in WAL mode unless told that nothing will change it while it is open.
    return _open_read_only(path)


def _open_database(path: str, busy_timeout: float) -> sqlite3.Connection:
    with faults():
        db = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=busy_timeout
        )
    try:
        with faults():
            _refuse_foreign(db)
            _enter_wal(db, busy_timeout)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
            migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _writable(path: str) -> bool:
    return os.access(path, os.W_OK) and os.access(os.path.dirname(path) or ".", os.W_OK)


def _open_read_only(path: str) -> sqlite3.Connection:
    uri = Path(path).absolute().as_uri() + "?mode=ro&immutable=1"
    with faults():
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        with faults():
            _refuse_foreign(db)
            if int(db.execute("PRAGMA user_version").fetchone()[0]) != SCHEMA_VERSION:
                raise StoreError("readOnly", "The read-only plan store needs an upgrade")
    except BaseException:
        db.close()
        raise
    log.info("the plan store is read-only: serving reads only")
    return db


def _check_link(link: Path) -> None:
    """A link at the store path is followed only into an existing SQLite file: one
    planted towards another file (or nowhere) must not get it overwritten or created."""
    try:
        with open(link, "rb") as target:
            magic = target.read(16)
    except OSError:
        magic = b""
    if magic != b"SQLite format 3\x00":
        raise StoreError(
            "unavailable",
            "The plan store path is a symbolic link to something that is not a Plansight store",
            advice="remove the link, or point PLANSIGHT_DB at a store",
        )


def _refuse_foreign(db: sqlite3.Connection) -> None:
    """A SQLite database of another program is left alone (no WAL switch, no tables)."""
    # One read transaction: a new store being made by another process is never seen
    # with its tables but not yet its version.
    db.execute("BEGIN")
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    finally:
        end_read(db)
    if version == 0 and tables:
        raise StoreError(
            "unavailable",
            "The file at the plan store path is another program's database",
            advice="point PLANSIGHT_DB (or --db) at a Plansight store",
        )


def _enter_wal(db: sqlite3.Connection, wait_seconds: float = 10.0) -> None:
    """Switch the file to WAL mode. When two processes open a new store at once, the
    switch needs a lock SQLite's busy handler does not wait for: wait here instead."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)
