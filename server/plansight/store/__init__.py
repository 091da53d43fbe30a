"""Where plans live. `TodoStore` is the interface; SQLite is the embedded default and
PostgreSQL the team store (`postgresql://` URLs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

from plansight.store.base import ChangeEvent, ChangeNotice, SessionEdit, TodoStore
from plansight.store.errors import StoreError, StoreFault
from plansight.store.location import is_postgres_url, is_url


def open_store(
    location: str | os.PathLike[str],
    root: str | os.PathLike[str] | None = None,
    workspace: str | None = None,
    busy_seconds: float | None = None,
) -> TodoStore:
    """The store at `location`, as every face opens it (the one place that turns a path
    or URL into a store): a `postgresql://` URL (sessions scoped to `workspace`, else the
    key derived from `root`, see `workspace_key`) or a SQLite file (nothing created until
    the first change). `busy_seconds`: how long to wait for another process's lock (and
    for a database server to answer): an agent's hook waits less than an editor. StoreError when it cannot
    be used; a URL of another kind is refused, never made a file of that name."""
    given = os.fspath(location)
    if is_url(given):
        if not is_postgres_url(given):
            raise StoreError(
                "unavailable",
                advice=f"a location written as {_kind_of(given)} is not a plan store: "
                "give a file path or a postgresql:// URL",
            )
        from plansight.paths import workspace_root
        from plansight.store.postgres import PostgresStore
        from plansight.store.workspace import workspace_key

        folder = Path(root) if root is not None else workspace_root()
        team = PostgresStore(given, workspace_key(folder, workspace), busy_seconds)
        return _in_checkout(team, root)
    from plansight.store.sqlite import SqliteStore

    if busy_seconds is None:
        return _in_checkout(SqliteStore(given), root)
    return _in_checkout(SqliteStore(given, busy_seconds), root)


def _in_checkout(store: Any, root: str | os.PathLike[str] | None) -> TodoStore:
    """(v4) The store, recording `root`'s git checkout with each agent change it commits
    (a session's `checkout`); a store opened with no root records none."""
    if root is not None:
        from plansight.checkouts import checkout_of

        store.checkout = checkout_of(root)
    return cast(TodoStore, store)


def _kind_of(location: str) -> str:
    """What a refused location looks like, without repeating any of its secrets."""
    if "://" in location or ":/" in location:
        return f"a URL ({location.split(':', 1)[0]}:)"
    return "a connection string"


def load_backends() -> None:
    """Import the embedded backend ahead of its first use (the warm hook process does,
    before it listens); a team store's driver loads with its first store."""
    import plansight.store.sqlite  # noqa: F401


__all__ = [
    "ChangeEvent",
    "ChangeNotice",
    "SessionEdit",
    "StoreError",
    "StoreFault",
    "TodoStore",
    "load_backends",
    "open_store",
]
