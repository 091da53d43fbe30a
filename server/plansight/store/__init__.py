"""Where plans live. `TodoStore` is the interface; SQLite is the embedded default and
PostgreSQL the team store (`postgresql://` URLs)."""

from __future__ import annotations

import os
from pathlib import Path

from plansight.store.base import ChangeEvent, ChangeNotice, SessionEdit, TodoStore
from plansight.store.errors import StoreError, StoreFault
from plansight.store.location import is_postgres_url


def open_store(
    location: str | os.PathLike[str],
    root: str | os.PathLike[str] | None = None,
    workspace: str | None = None,
) -> TodoStore:
    """The store at `location`, as every face opens it: a `postgresql://` URL (sessions
    scoped to `workspace`, else the key derived from `root`, see `workspace_key`) or a
    SQLite file (nothing created until the first change). StoreError when it cannot be
    used."""
    if isinstance(location, str) and is_postgres_url(location):
        from plansight.paths import workspace_root
        from plansight.store.postgres import PostgresStore
        from plansight.store.workspace import workspace_key

        folder = Path(root) if root is not None else workspace_root()
        return PostgresStore(location, workspace_key(folder, workspace))
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
