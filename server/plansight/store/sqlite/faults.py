"""SQLite's faults, by what a person can do about them: each leaves as `StoreError` with its
reason; anything else (a bug) leaves as it is."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from plansight.store.store_error import StoreError, StoreFault

# SQLite's primary result codes (sqlite3.SQLITE_* in Python 3.11, missing from the
# type stubs), by what a person can do about them.
_FAULTS: dict[int, StoreFault] = {
    13: "diskFull",  # SQLITE_FULL
    8: "readOnly",  # SQLITE_READONLY
    3: "readOnly",  # SQLITE_PERM
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    10: "unavailable",  # SQLITE_IOERR
    14: "unavailable",  # SQLITE_CANTOPEN
    11: "unavailable",  # SQLITE_CORRUPT
    26: "unavailable",  # SQLITE_NOTADB
}
# SQLITE_READONLY_DBMOVED: the file was moved or unlinked while open (chmod won't help).
_SQLITE_READONLY_DBMOVED = 8 | (4 << 8)


def fault_of(exc: sqlite3.Error) -> StoreFault | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    if code == _SQLITE_READONLY_DBMOVED:
        return "unavailable"
    return _FAULTS.get(code & 0xFF)


@contextmanager
def faults() -> Iterator[None]:
    """Storage faults leave as StoreError; anything else (a bug) as it is."""
    try:
        yield
    except sqlite3.Error as exc:
        fault = fault_of(exc)
        if fault is None:
            raise
        raise StoreError(fault) from exc
