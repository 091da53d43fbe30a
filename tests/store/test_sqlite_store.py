"""The SQLite store's own promises: file permissions, a path never shown, schema versions.
What every backend promises is in test_store_contract.py."""

from __future__ import annotations

import sqlite3
import stat
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from plansight.store.sqlite import opening as sqlite_module
from plansight.store.sqlite.schema import SCHEMA_VERSION
from plansight.store.store_error import StoreError

Json = dict[str, Any]


def apply(service: PlanService, *ops: Json, **params: Any) -> Json:
    request = {"ops": list(ops), **params}
    return service.apply(ApplyParams.validate(request), request).result


# ---------------------------------------------------------------- the file


def test_the_store_folder_is_private_and_the_file_owner_only(
    store_path: Path, store: SqliteStore, service: PlanService
) -> None:
    apply(service, {"op": "append", "phase": "A", "items": ["secret"]})
    assert stat.S_IMODE(store_path.parent.stat().st_mode) == 0o700
    files = [store_path, *store_path.parent.glob(store_path.name + "-*")]
    assert len(files) == 3  # with its -wal and -shm companions
    for file in files:
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file.name


def test_a_store_that_cannot_be_opened_says_so_without_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(StoreError) as refused:
        SqliteStore(blocker / "plans.sqlite3")
    assert refused.value.reason == "unavailable"
    assert "folder is a file" in str(refused.value)
    assert str(tmp_path) not in str(refused.value)


def test_a_database_of_a_newer_schema_is_refused_and_left_alone(
    store_path: Path, store: SqliteStore, service: PlanService
) -> None:
    apply(service, {"op": "append", "phase": "A", "items": ["a"]})
    store.close()
    with closing(sqlite3.connect(store_path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer Plansight"):
        SqliteStore(store_path)
    with closing(sqlite3.connect(store_path)) as db:
        assert db.execute("SELECT name, version FROM sessions").fetchall() == [("default", 1)]
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_a_reader_that_opens_a_new_store_the_moment_it_exists_sees_its_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server watching a store another process is creating opens the file as soon as it
    exists. The creator once removed the -wal and -shm after creating the file, which were
    by then the reader's: the reader kept reading its own orphaned copy, at version 0 for
    ever, while the writer's changes went to new ones (seen once under load)."""
    db = tmp_path / "plans.sqlite3"
    reader: list[PlanService] = []
    real_close = sqlite_module.os.close

    def close_then_open_a_reader(fd: int) -> None:
        real_close(fd)
        if not reader and db.exists():  # the creator's file is there, still empty
            reader.append(PlanService(SqliteStore(db)))
            assert reader[0].load("default").version == 0  # it opened the file, in WAL

    monkeypatch.setattr(sqlite_module.os, "close", close_then_open_a_reader)
    writer = PlanService(SqliteStore(db))
    apply(writer, {"op": "init", "list": [{"phase": "P", "items": ["one"]}]})
    monkeypatch.undo()
    assert reader, "the reader never opened the file during its creation"
    assert reader[0].load("default").version == 1
