"""The team store's faults of issue 20, on a real cluster: prune notifications split by
size (item 18), a prune after `plansight migrate`, errors that say what failed;
notifications taken as hints only (item 21); a session pruned and made again while a
watcher was away is pushed, and its prune told, after it reconnects (item 22)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.postgres import channel_of
from plansight.store.postgres.connect import translate
from plansight.store.postgres.writes import NOTIFY_PAYLOAD_BYTES, prune_payloads
from postgres_cluster import Cluster

from .test_postgres_store import database_of, kill_backends
from .test_store_contract import poll

Json = dict[str, Any]
WORKSPACE = "w"
# The longest name the contract allows, of characters JSON escapes to 12 bytes each.
EMOJI_NAME = "\U0001f680" * 200


def apply(service: PlanService, session: str, *items: str, origin: str = "agent") -> Json:
    request = {"session": session, "origin": origin}
    request["ops"] = [{"op": "append", "phase": "A", "items": list(items or ["x"])}]
    return service.apply(ApplyParams.validate(request), request).result


@pytest.fixture
def opened(postgres_url: str) -> Any:
    stores: list[Any] = []

    def open_one() -> Any:
        store = open_store(postgres_url, workspace=WORKSPACE)
        stores.append(store)
        return store

    yield open_one
    for store in stores:
        store.close()


def notify(postgres: Cluster, url: str, payload: Json) -> None:
    """A NOTIFY as any role that can connect could send it."""
    with postgres.admin(database_of(url)) as admin:
        admin.execute("SELECT pg_notify(%s, %s)", (channel_of(WORKSPACE), json.dumps(payload)))


def pruned_by_then(watcher: Any, count: int) -> list[str]:
    """The sessions the watcher says were pruned, once `count` of them were (the notices
    of one commit may be read over several polls)."""
    pruned: list[str] = watcher.pruned()
    deadline = time.monotonic() + 20  # a guard against a hang, not a speed check
    while len(pruned) < count and time.monotonic() < deadline:
        poll(watcher, 1, timeout=0.2)
        pruned += watcher.pruned()
    return pruned


# ---------------------------------------------------------------- item 18


def test_prune_payloads_stay_under_the_notify_limit() -> None:
    names = [f"{i}{EMOJI_NAME}"[:200] for i in range(23)]
    payloads = prune_payloads(names, "w" * 16)
    assert all(len(p.encode()) < NOTIFY_PAYLOAD_BYTES for p in payloads)
    assert [n for p in payloads for n in json.loads(p)["pruned"]] == names
    assert len(prune_payloads(["a", "b", "c", "d", "e", "f"], "w")) == 1  # small ones share


def test_pruning_many_long_names_at_once_commits_and_every_watcher_hears(opened: Any) -> None:
    writer, watcher = opened(), opened()
    wide = PlanService(writer, session_limit=100)
    names = [f"{i}{EMOJI_NAME}"[:200] for i in range(8)]
    for name in names:
        apply(wide, name)
    watcher.watch_from_now()
    narrow = PlanService(writer, session_limit=1)
    assert apply(narrow, "new")["version"] == 1  # before: -32803 "cannot be reached"
    assert [s.session for s in writer.summaries()] == ["new"]
    assert sorted(pruned_by_then(watcher, len(names))) == sorted(names)


def test_migrate_prunes_the_team_store_to_the_sessions_it_keeps(
    opened: Any, tmp_path: Path
) -> None:
    local = PlanService(open_store(tmp_path / "local.sqlite3"), session_limit=100)
    try:
        for i in range(5):
            apply(local, f"s{i}")
        team = PlanService(opened(), session_limit=3)
        report = local.copy_into(team)
    finally:
        local.close()
    names = {f"s{i}" for i in range(5)}
    assert set(report.copied) == names
    kept = [s.session for s in team.summaries()]
    assert len(kept) == 3 and len(report.pruned) == 2  # before: 5 kept, none pruned
    assert set(kept) | set(report.pruned) == names


def test_a_statement_the_server_refuses_is_not_called_unreachable(postgres_url: str) -> None:
    with (
        psycopg.connect(postgres_url, autocommit=True) as db,
        pytest.raises(psycopg.Error) as refused,
    ):
        db.execute("SELECT pg_notify('c', repeat('x', 9000))")
    message = str(translate(refused.value, "postgresql://u:****@h/db"))
    assert "cannot be reached" not in message
    assert "refused a statement" in message and "SQLSTATE 22023" in message


# ---------------------------------------------------------------- item 21


def test_a_forged_version_does_not_silence_the_session(
    opened: Any, postgres: Cluster, postgres_url: str
) -> None:
    writer, watcher = opened(), opened()
    service = PlanService(writer)
    apply(service, "s")
    watcher.watch_from_now()
    notify(postgres, postgres_url, {"s": "s", "v": 10**9, "w": "forger"})
    notify(postgres, postgres_url, {"s": "s", "v": 10**9, "w": watcher.writer})
    for version in (2, 3):  # before: the first was pushed, none after (seen "1e9")
        apply(service, "s", f"change {version}")
        notices = poll(watcher, 1)
        assert [(n.session, n.version) for n in notices] == [("s", version)]


def test_a_forged_prune_drops_nothing(opened: Any, postgres: Cluster, postgres_url: str) -> None:
    writer, watcher = opened(), opened()
    service = PlanService(writer)
    apply(service, "s")
    watcher.watch_from_now()
    notify(postgres, postgres_url, {"pruned": ["s"], "w": "forger"})
    apply(service, "s", "later")  # a real change after it: the forgery was read by then
    assert [n.version for n in poll(watcher, 1)] == [2]
    assert watcher.pruned() == []


# ---------------------------------------------------------------- item 22


def test_a_session_pruned_and_made_again_while_away_is_pushed_and_its_prune_told(
    opened: Any, postgres: Cluster, postgres_url: str
) -> None:
    writer, watcher = opened(), opened()
    wide = PlanService(writer, session_limit=10)
    apply(wide, "s")
    apply(wide, "s", "two")
    apply(wide, "s", "three")
    watcher.watch_from_now()
    kill_backends(postgres, database_of(postgres_url))  # the watcher's listener goes
    narrow = PlanService(writer, session_limit=1)
    apply(narrow, "other")  # prunes "s"
    apply(narrow, "s", "made again")  # prunes "other"; "s" is at version 1 again
    notices, pruned = [], []
    while ("s", 1) not in [(n.session, n.version) for n in notices]:
        found = poll(watcher, 1)
        assert found, f"no push of the session made again; pushed {notices}"
        notices += found
        pruned += watcher.pruned()
    pruned += watcher.pruned()
    # Told in this order to an editor: the old "s" goes, the new one comes.
    assert "s" in pruned
    assert [n.version for n in notices if n.session == "s"] == [1]
