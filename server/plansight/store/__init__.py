"""Where plans live. `TodoStore` is the interface; SQLite is the embedded default."""

from __future__ import annotations

import os

from plansight.store.base import ChangeEvent, ChangeNotice, SessionEdit, TodoStore
from plansight.store.errors import StoreError, StoreFault


def open_store(location: str | os.PathLike[str]) -> TodoStore:
    """The store at `location` (a file path), as every face opens it. Nothing is
    created until the first change; StoreError when it cannot be used."""
    from plansight.store.sqlite import SqliteStore

    return SqliteStore(location)


__all__ = [
    "ChangeEvent",
    "ChangeNotice",
    "SessionEdit",
    "StoreError",
    "StoreFault",
    "TodoStore",
    "open_store",
]
