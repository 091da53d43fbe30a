"""A session's `checkout` (v4) on both backends: the checkout of the root the store was
opened with, recorded by each committed agent change (a person's leaves it), listed by
`plansight/sessions`; and the stores of the schema before, migrated in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from git_checkouts import git, linked_worktree, repository
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.copying import copy_sessions
from plansight.store.postgres.schema import _MIGRATIONS as PG_MIGRATIONS
from plansight.store.sqlite.schema import _MIGRATIONS, SCHEMA_VERSION

AT = "2026-01-01T00:00:00.000Z"


def apply(service: PlanService, origin: str, *ops: dict[str, Any], session: str = "s") -> None:
    request = {"session": session, "ops": list(ops), "origin": origin}
    service.apply(ApplyParams.validate(request), request)


def checkouts(service: PlanService) -> dict[str, Any]:
    return {info["session"]: info["checkout"] for info in service.sessions()["sessions"]}


def test_each_session_keeps_the_checkout_of_its_last_agent_change(
    store_location: str, tmp_path: Path
) -> None:
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, main / "wt", "feature")
    git("checkout", "-q", "--detach", cwd=main)
    stores = [open_store(store_location, root, "w") for root in (main, tree, tmp_path)]
    in_main, in_tree, nowhere = (PlanService(store) for store in stores)
    try:
        apply(in_tree, "agent", {"op": "append", "items": ["a"]})
        apply(in_main, "agent", {"op": "append", "items": ["b"]}, session="other")
        apply(in_main, "agent", {"op": "append", "items": ["c"]}, session="none")
        apply(nowhere, "agent", {"op": "append", "items": ["d"]}, session="none")
        apply(in_main, "user", {"op": "append", "items": ["e"]})  # a person's: kept as was
        assert checkouts(in_main) == {
            "s": {"worktree": "wt", "branch": "feature"},
            "other": {"worktree": None, "branch": None},  # detached
            "none": None,  # its last agent change came from no git checkout
        }
        assert checkouts(nowhere) == checkouts(in_main)
    finally:
        for store in stores:
            store.close()


def test_a_schema_6_sqlite_store_is_migrated_and_keeps_its_sessions(
    store_path: Path, tmp_path: Path
) -> None:
    store_path.parent.mkdir(parents=True)
    db = sqlite3.connect(store_path)
    for number in range(1, 7):
        step = _MIGRATIONS[number]
        if callable(step):
            step(db)
        else:
            db.executescript(step)
    db.execute("PRAGMA user_version = 6")
    db.execute(
        "INSERT INTO sessions (name, version, next_id, created_at, updated_at, title, "
        "agent_base) VALUES ('old', 1, 1, ?, ?, 'Before', 1)",
        (AT, AT),
    )
    db.commit()
    db.close()
    main = repository(tmp_path / "repo")
    store = open_store(str(store_path), main)
    try:
        service = PlanService(store)
        assert checkouts(service) == {"old": None}
        assert service.sessions()["sessions"][0]["title"] == "Before"
        apply(service, "agent", {"op": "append", "items": ["a"]}, session="old")
        assert checkouts(service) == {"old": {"worktree": None, "branch": "main"}}
    finally:
        store.close()
    with sqlite3.connect(store_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8


def test_a_schema_4_team_store_is_migrated_and_keeps_its_sessions(
    postgres_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as pg:
        pg.execute("CREATE TABLE plansight_schema (version INTEGER NOT NULL)")
        for number in (1, 2, 3, 4):
            for statement in PG_MIGRATIONS[number]:
                pg.execute(statement)
            pg.execute("INSERT INTO plansight_schema (version) VALUES (%s)", (number,))
        pg.execute(
            "INSERT INTO plansight_sessions (workspace, name, version, next_id, created_at, "
            "updated_at, title, agent_base) VALUES ('w', 'old', 1, 1, %s, %s, 'Before', 1)",
            (AT, AT),
        )
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, tmp_path / "beside", "feature")
    store = open_store(postgres_url, tree, "w")
    try:
        service = PlanService(store)
        assert checkouts(service) == {"old": None}
        apply(service, "agent", {"op": "append", "items": ["a"]}, session="old")
        assert checkouts(service) == {"old": {"worktree": str(tree.resolve()), "branch": "feature"}}
    finally:
        store.close()


@pytest.mark.parametrize("text", ["not json", "[1]", '{"worktree": 3}'])
def test_a_checkout_another_writer_spoiled_reads_as_none(store_path: Path, text: str) -> None:
    store = open_store(str(store_path))
    try:
        service = PlanService(store)
        apply(service, "agent", {"op": "append", "items": ["a"]})
        with sqlite3.connect(store_path) as db:
            db.execute("UPDATE sessions SET checkout = ?", (text,))
        assert checkouts(service) == {"s": None}
    finally:
        store.close()


def test_migrate_copies_each_sessions_checkout_into_the_team_store(
    store_path: Path, postgres_url: str, tmp_path: Path
) -> None:
    main = repository(tmp_path / "repo")
    tree = linked_worktree(main, main / "wt", "feature")
    local = open_store(str(store_path), tree)
    team = open_store(postgres_url, main, "team")
    try:
        apply(PlanService(local), "agent", {"op": "append", "items": ["a"]})
        report = copy_sessions(local, team, 200)
        assert report.copied == ["s"]
        assert checkouts(PlanService(team)) == {"s": {"worktree": "wt", "branch": "feature"}}
    finally:
        local.close()
        team.close()
