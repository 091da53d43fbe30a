"""The store a command opens (as every face does, `open_store`), closed when the command
ends: as its own process would at exit, and in the warm process, which runs one command
after another."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Any

from plansight.cli.command import BadInput

# The stores a command opened, closed when it ends.
_opened: list[Any] = []


def close_when_done(service: Any) -> Any:
    """`service`, closed with the command's other stores when the command ends."""
    _opened.append(service)
    return service


def service_of(args: argparse.Namespace, read: bool = False) -> Any:
    """The service over the store the command names; a `read` of a store file that was
    named (`--db`, `PLANSIGHT_DB`) and does not exist is refused, never created."""
    from plansight.paths import workspace_root
    from plansight.service import PlanService
    from plansight.store import open_store
    from plansight.store.location import store_location

    location = store_location(args.db, None)
    if read:
        _check_store_exists(args, location)
    # The command's root: its git checkout is recorded with an agent's change (v4).
    root = workspace_root()
    return close_when_done(PlanService(open_store(location, root, args.workspace)))


# Reads that run before an agent's first write, by design: the live view, and the text an
# agent's loop injects on every turn. Their store file may be made later (its folder not).
_BEFORE_FIRST_WRITE = frozenset({"watch", "context"})


def _check_store_exists(args: argparse.Namespace, location: str) -> None:
    """A mistyped `--db` must not read as an empty plan. The default store of a project
    may not exist yet (nothing was written): that one reads as empty."""
    from plansight.store.location import is_postgres_url

    named = "--db" if args.db else "PLANSIGHT_DB" if os.environ.get("PLANSIGHT_DB") else None
    if named is None or is_postgres_url(location):
        return
    path = Path(location)
    if not (path.parent if args.command in _BEFORE_FIRST_WRITE else path).exists():
        raise BadInput(
            f"no plan store at {location} (from {named}): a read never creates one; "
            "a store is made by its first change"
        )


def close_stores() -> None:
    while _opened:
        with contextlib.suppress(Exception):  # closing must not hide what the command said
            _opened.pop().close()


def require_session(service: Any, args: argparse.Namespace) -> str:
    from plansight.cli.live import pick_session

    name = pick_session(service, args.session)
    if name is None:
        return args.session or "default"
    known = [s.session for s in service.summaries()]
    if args.session and name not in known:
        listed = ", ".join(f'"{s}"' for s in known) if known else "none yet"
        raise BadInput(f'no session named "{name}" in this store; its sessions: {listed}')
    return name
