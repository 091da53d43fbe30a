"""The PostgreSQL store's own promises, on a real cluster: workspaces, secrets never shown,
faults that say "unavailable" and heal, a listener that reconnects and catches up, schema
versions, a schema in step with the Task fields."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from plansight.core.model import Task
from plansight.protocol.requests import ApplyParams, GetParams
from plansight.service import PlanService
from plansight.store import open_store
from plansight.store.base import ChangeNotice
from plansight.store.location import redact_url
from plansight.store.postgres import PostgresStore
from plansight.store.postgres.schema import SCHEMA_VERSION
from plansight.store.store_error import StoreError
from plansight.store.workspace import normalize_remote, workspace_key
from postgres_cluster import PASSWORD, PASSWORD_ROLE, Cluster

from .test_store_contract import poll

Json = dict[str, Any]


def apply(service: PlanService, *ops: Json, **params: Any) -> Json:
    request = {"ops": list(ops), **params}
    return service.apply(ApplyParams.validate(request), request).result


@pytest.fixture
def opened(postgres_url: str) -> Any:
    stores: list[Any] = []

    def open_in(workspace: str) -> Any:
        store = open_store(postgres_url, workspace=workspace)
        stores.append(store)
        return store

    yield open_in
    for store in stores:
        store.close()


def backend_pids(cluster: Cluster, database: str) -> list[int]:
    with cluster.admin() as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = 'plansight'",
            (database,),
        ).fetchall()
    return [row[0] for row in rows]


def kill_backends(cluster: Cluster, database: str) -> int:
    """End every Plansight connection to `database`, as a DBA or a failover would."""
    pids = backend_pids(cluster, database)
    with cluster.admin() as admin:
        for pid in pids:
            # Waits (up to 20 s) until the backend is gone, its socket closed.
            admin.execute("SELECT pg_terminate_backend(%s, 20000)", (pid,))
    return len(pids)


def database_of(url: str) -> str:
    return url.split("/")[3].split("?")[0]


# ---------------------------------------------------------------- workspaces


def test_workspaces_see_only_their_own_sessions_events_and_pushes(opened: Any) -> None:
    ours, theirs, ours_elsewhere = opened("github.com/team/app"), opened("other"), None
    ours_elsewhere = opened("github.com/team/app")
    ours_elsewhere.watch_from_now()
    theirs.watch_from_now()
    apply(PlanService(ours), {"op": "append", "phase": "A", "items": ["ours"]})
    apply(PlanService(theirs), {"op": "append", "phase": "B", "items": ["theirs"]}, session="x")
    assert [p.session for p in ours.sessions()] == ["default"]
    assert [p.session for p in theirs.sessions()] == ["x"]
    assert theirs.load("default").version == 0
    assert [e.session for e in ours.events()] == ["default"]
    assert poll(ours_elsewhere, 1) == [ChangeNotice("default", 1, "agent", [])]
    # A same-named session in another workspace is another session.
    apply(PlanService(theirs), {"op": "append", "phase": "C", "items": ["t"]})
    assert PlanService(ours).get(GetParams())["phases"][0]["name"] == "A"
    assert poll(theirs, 0) == []  # its own change: nothing to report
    assert ours_elsewhere.poll() == []  # and nothing from the other workspace


def test_sessions_are_pruned_per_workspace(opened: Any) -> None:
    small, other = opened("small"), opened("other")
    apply(PlanService(other), {"op": "append", "phase": "A", "items": ["x"]}, session="keep")
    service = PlanService(small)
    service.session_limit = 2
    for name in ("s1", "s2", "s3"):
        apply(service, {"op": "append", "phase": "A", "items": ["x"]}, session=name)
    assert [p.session for p in small.sessions()] == ["s3", "s2"]
    assert [p.session for p in other.sessions()] == ["keep"]


def test_a_watcher_hears_of_sessions_another_process_pruned(opened: Any) -> None:
    writer, watcher = opened("w"), opened("w")
    first = PlanService(writer)
    apply(first, {"op": "append", "phase": "A", "items": ["x"]}, session="old")
    watcher.watch_from_now()
    first.session_limit = 1
    apply(first, {"op": "append", "phase": "A", "items": ["x"]}, session="new")
    poll(watcher, 1)
    assert watcher.pruned() == ["old"]


def test_the_workspace_key_comes_from_git_origin_else_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANSIGHT_WORKSPACE", raising=False)
    clone = tmp_path / "clone-on-laptop"
    clone.mkdir()
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(
        ["git", "-C", str(clone), "remote", "add", "origin", "git@GitHub.com:Team/App.git"],
        check=True,
    )
    assert workspace_key(clone) == "github.com/team/app"
    plain = tmp_path / "Some Project"
    plain.mkdir()
    assert workspace_key(plain) == "Some Project"
    monkeypatch.setenv("PLANSIGHT_WORKSPACE", "from-env")
    assert workspace_key(clone) == "from-env"
    assert workspace_key(clone, "from-flag") == "from-flag"


@pytest.mark.parametrize(
    "remote",
    [
        "git@github.com:team/app.git",
        "https://github.com/team/app",
        "https://someone:ghp_token@github.com/Team/App.git/",
        "ssh://git@github.com:22/team/app.git",
        "git+ssh://git@github.com/team/app",
    ],
)
def test_clones_of_one_repository_share_a_key_without_credentials(remote: str) -> None:
    assert normalize_remote(remote) == "github.com/team/app"


# ---------------------------------------------------------------- secrets


def test_a_url_is_shown_without_its_password() -> None:
    assert redact_url("postgresql://ann:pa55@db.example:5432/plans?sslmode=require") == (
        "postgresql://ann:****@db.example:5432/plans"
    )
    assert redact_url("postgresql://ann@db/plans?password=pa55&sslpassword=k") == (
        "postgresql://ann@db/plans"
    )
    assert "pa55" not in redact_url("postgresql://ann:pa55@[::1/plans")


def test_a_wrong_password_is_one_clear_line_without_the_secret(postgres: Cluster) -> None:
    database = postgres.create_database()
    url = postgres.url(database, PASSWORD_ROLE, "not-" + PASSWORD)
    with pytest.raises(StoreError) as refused:
        open_store(url, workspace="w")
    message = str(refused.value)
    assert refused.value.reason == "unavailable"
    assert "refused the user name or password" in message
    assert f"postgresql://{PASSWORD_ROLE}:****@/{database}" in message
    assert "not-" + PASSWORD not in message and PASSWORD not in message
    assert str(postgres.folder) not in message  # no socket path
    assert "\n" not in message


def test_the_right_password_from_the_environment_opens_the_store(
    postgres: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = postgres.create_database()
    with postgres.admin(database) as admin:
        admin.execute(f"GRANT CREATE ON SCHEMA public TO {PASSWORD_ROLE}")
    monkeypatch.setenv("PGPASSWORD", PASSWORD)  # libpq's own: never in the URL or a log
    store = open_store(postgres.url(database, PASSWORD_ROLE), workspace="w")
    try:
        assert PASSWORD not in store.path
        apply(PlanService(store), {"op": "append", "phase": "A", "items": ["x"]})
    finally:
        store.close()


def test_sql_stays_data(opened: Any) -> None:
    store = opened("w'); DROP TABLE plansight_sessions; --")
    name = "s'; DELETE FROM plansight_tasks; --"
    apply(PlanService(store), {"op": "append", "phase": "'; --", "items": ["a'b"]}, session=name)
    state = PlanService(opened("w'); DROP TABLE plansight_sessions; --")).get(
        GetParams(session=name)
    )
    assert state["phases"][0]["tasks"][0]["content"] == "a'b"


# ---------------------------------------------------------------- faults


def test_a_killed_connection_is_replaced_before_the_next_request(
    postgres_url: str, postgres: Cluster, opened: Any
) -> None:
    store = opened("w")
    service = PlanService(store)
    apply(service, {"op": "append", "phase": "A", "items": ["a"]})
    before = backend_pids(postgres, database_of(postgres_url))
    assert kill_backends(postgres, database_of(postgres_url)) == 1
    after = apply(service, {"op": "append", "phase": "A", "items": ["b"]})
    assert after["version"] == 2
    assert [t["content"] for t in after["phases"][0]["tasks"]] == ["a", "b"]
    assert backend_pids(postgres, database_of(postgres_url)) != before


def test_the_listener_reconnects_and_reports_what_it_missed(
    postgres_url: str, postgres: Cluster, opened: Any
) -> None:
    watcher = opened("w")
    watcher.watch_from_now()
    PlanService(watcher).get(GetParams())
    assert kill_backends(postgres, database_of(postgres_url)) == 2  # data and LISTEN
    writer = opened("w")
    apply(PlanService(writer), {"op": "append", "phase": "A", "items": ["while away"]})
    apply(PlanService(writer), {"op": "done", "task": "while away"}, origin="user")
    notices = poll(watcher, 2)
    assert [(n.version, n.origin) for n in notices] == [(1, "agent"), (2, "user")]
    apply(PlanService(writer), {"op": "note", "task": "while away", "text": "back"})
    assert poll(watcher, 1) == [ChangeNotice("default", 3, "agent", [])]


def test_a_stopped_database_is_unavailable_and_a_restarted_one_serves_again(
    postgres_url: str, postgres: Cluster, opened: Any
) -> None:
    store = opened("w")
    service = PlanService(store)
    apply(service, {"op": "append", "phase": "A", "items": ["a"]})
    postgres.stop()
    try:
        for attempt in (
            lambda: service.get(GetParams()),
            lambda: apply(service, {"op": "append", "phase": "A", "items": ["lost"]}),
        ):
            with pytest.raises(StoreError) as failed:
                attempt()
            assert failed.value.reason == "unavailable"
            assert "try again" in str(failed.value) and "\n" not in str(failed.value)
    finally:
        postgres.start()
    after = apply(service, {"op": "append", "phase": "A", "items": ["b"]})
    assert after["version"] == 2  # the refused change left nothing
    assert [t["content"] for t in after["phases"][0]["tasks"]] == ["a", "b"]


# ---------------------------------------------------------------- schema


def test_a_database_of_a_newer_schema_is_refused_and_left_alone(
    postgres_url: str, opened: Any
) -> None:
    apply(PlanService(opened("w")), {"op": "append", "phase": "A", "items": ["a"]})
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("INSERT INTO plansight_schema (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer Plansight"):
        open_store(postgres_url, workspace="w")
    with psycopg.connect(postgres_url, autocommit=True) as db:
        assert db.execute("SELECT name, version FROM plansight_sessions").fetchall() == [
            ("default", 1)
        ]


def test_concurrent_first_opens_migrate_once(postgres_url: str) -> None:
    code = (
        "import sys; from plansight.store import open_store; "
        "open_store(sys.argv[1], workspace='w').close()"
    )
    runs = [
        subprocess.Popen([*_python(), "-c", code, postgres_url], stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    for run in runs:
        assert run.wait(timeout=60) == 0, run.stderr.read() if run.stderr else ""
    with psycopg.connect(postgres_url, autocommit=True) as db:
        versions = db.execute("SELECT version FROM plansight_schema ORDER BY version").fetchall()
        assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]


def test_every_task_field_has_its_column(opened: Any, postgres_url: str) -> None:
    opened("w")
    with psycopg.connect(postgres_url, autocommit=True) as db:
        columns = {
            row[0]
            for row in db.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'plansight_tasks'"
            )
        }
    assert {f.name for f in dataclasses.fields(Task)} <= columns


def test_the_store_is_a_postgres_store(opened: Any) -> None:
    assert isinstance(opened("w"), PostgresStore)


def _python() -> list[str]:
    import sys

    return [sys.executable]
