"""Faults of the store under running servers: torn reads, failed commits, a store removed
or made read-only, and what each face says about them (issue #10, items 1 to 4 and 11)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from reliability_checks import assert_no_leak, knob
from reliability_wire import WireClient
from store_faults import files_size, fill_up, limit_file_size, make_room, read_only

from plansight.lsp.rpc_errors import REQUEST_FAILED, to_rpc_error
from plansight.protocol.requests import ApplyParams, ContextParams, GetParams
from plansight.service import PlanService
from plansight.store import StoreError
from plansight.store.sqlite import SqliteStore

Json = dict[str, Any]


def append(client: WireClient, item: str, session: str = "default") -> Json:
    return client.call(
        "plansight/apply",
        {"session": session, "ops": [{"op": "append", "phase": "P", "items": [item]}]},
    )


def append_params(item: str, session: str = "default") -> tuple[ApplyParams, Json]:
    raw: Json = {"session": session, "ops": [{"op": "append", "phase": "P", "items": [item]}]}
    return ApplyParams.validate(raw), raw


def file_versions(db: Path, session: str = "default") -> list[int]:
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT version FROM events WHERE session = ? ORDER BY seq", (session,))
        return [row[0] for row in rows]


def cli(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
        **kwargs,
    )


def assert_one_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """The CLI's way of saying a store fault: one line on stderr, exit 2, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plansight: "), done.stderr
    assert "Traceback" not in done.stderr and "site-packages" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]


# ---------------------------------------------------------------- 1. torn reads

WRITER = textwrap.dedent(
    """
    import sys
    from plansight.protocol.requests import WriteParams
    from plansight.service import PlanService
    from plansight.store import open_store

    service = PlanService(open_store(sys.argv[1]))
    for version in range(1, int(sys.argv[2]) + 1):
        # Odd versions: 3 phases of 2 tasks; even ones: 1 phase of 1 task. Every content
        # names the version it was written at.
        shape = [(f"P{p}", 2) for p in range(3)] if version % 2 else [("P0", 1)]
        todos = [
            {"content": f"v{version} {phase}.{i}", "activeForm": "x", "status": "pending",
             "phase": phase}
            for phase, count in shape for i in range(count)
        ]
        raw = {"todos": todos, "baseVersion": version - 1}
        service.write(WriteParams.validate(raw), raw)
    """
)


def assert_one_version(state: Json) -> None:
    version = state["version"]
    phases = state["phases"]
    if version == 0:
        assert phases == []
        return
    assert len(phases) == (3 if version % 2 else 1), state
    contents = [task["content"] for phase in phases for task in phase["tasks"]]
    assert len(contents) == (6 if version % 2 else 1), state
    for content in contents:
        assert content.startswith(f"v{version} "), (version, contents)


def test_every_state_sent_is_one_committed_version(
    spawn: Any, tmp_path: Path, figures: Counter[str]
) -> None:
    """One writer alternates a session between 3 phases and 1; two servers answer `get`
    in a loop and push `didChange`: every state is whole, of the version it says."""
    db = tmp_path / "plans.sqlite3"
    readers = [spawn(db), spawn(db)]
    for reader in readers:
        reader.initialize()
    writes = knob("PLANSIGHT_TORN_WRITES", 1200)  # v1 showed a torn state within 600
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(writes)])
    checked = 0
    try:
        while writer.poll() is None or checked < 50:
            for reader in readers:
                assert_one_version(reader.result("plansight/get", {}))
                checked += 1
    finally:
        writer.wait(60)
    assert writer.returncode == 0
    for reader in readers:
        last = reader.result("plansight/get", {})
        assert last["version"] == writes
        for push in reader.notifications:
            assert push["method"] == "plansight/didChange"
            assert_one_version(push["params"])
            checked += 1
    figures["store faults: states checked for being one committed version"] += checked


# ---------------------------------------------------------------- 2. failed commits


def test_a_failed_write_leaves_no_phantom_state_and_no_gap_in_versions(
    spawn: Any, tmp_path: Path, figures: Counter[str]
) -> None:
    """Writes of the server fail (a file-size limit: EFBIG, a disk I/O error to SQLite):
    each change is RequestFailed, nothing of it is shown, and once the fault is gone the
    next change takes the next version."""
    db = tmp_path / "plans.sqlite3"
    server, watcher = spawn(db), spawn(db)
    server.initialize()
    watcher.initialize()
    for i in range(3):
        assert "result" in append(server, f"kept {i}")
    before = server.result("plansight/get", {})
    limit_file_size(server.pid, files_size(db))
    try:
        for i in range(3):
            failed = append(server, f"lost {i}")
            assert failed["error"]["code"] == REQUEST_FAILED, failed
            assert failed["error"]["data"] == {"reason": "unavailable"}
            assert "try again" in failed["error"]["message"]
            assert_no_leak(failed, (str(tmp_path), db.name))
            assert server.result("plansight/get", {}) == before
            figures["store faults: failed commits injected"] += 1
    finally:
        limit_file_size(server.pid, None)
    after = append(server, "kept 3")["result"]
    assert after["version"] == before["version"] + 1
    assert [t["content"] for t in after["phases"][0]["tasks"]] == [
        "kept 0",
        "kept 1",
        "kept 2",
        "kept 3",
    ]
    assert file_versions(db) == [1, 2, 3, 4]
    assert watcher.result("plansight/get", {}) == server.result("plansight/get", {})
    pushed = [n["params"]["version"] for n in server.notifications]
    assert pushed == [1, 2, 3, 4]  # no push of a change that was not committed


def test_a_full_store_refuses_changes_with_disk_full_and_keeps_what_was_committed(
    store_path: Path,
) -> None:
    store = SqliteStore(store_path)
    service = PlanService(store)
    service.apply(*append_params("kept"))
    fill_up(store)
    failures = 0
    for i in range(200):
        try:
            service.apply(*append_params(f"{i:03} " + "x" * 400))
        except StoreError as exc:
            assert exc.reason == "diskFull"
            assert "free some space" in str(exc)
            error = to_rpc_error(exc, "plansight/apply")
            assert (error.code, error.data) == (REQUEST_FAILED, {"reason": "diskFull"})
            failures += 1
            break
    assert failures == 1
    committed = service.get(GetParams())
    assert committed["version"] == i + 1  # every change before the failed one, no more
    other = PlanService(SqliteStore(store_path))
    assert other.get(GetParams()) == committed
    make_room(store)
    service.apply(*append_params("after"))
    assert service.get(GetParams())["version"] == i + 2
    assert [e.version for e in store.events("default")] == list(range(1, i + 3))
    store.close()


def test_the_cli_says_a_full_disk_in_one_line(tmp_path: Path) -> None:
    """A write that fails half-way through creating the store (in the migration step)."""
    db = tmp_path / "new" / "plans.sqlite3"

    def small_files() -> None:
        limit_file_size(os.getpid(), 1024)

    done = cli(
        "apply",
        "--db",
        str(db),
        "--ops",
        '[{"op": "append", "phase": "P", "items": ["x"]}]',
        preexec_fn=small_files,
        # The limit is this process's: in its own process, not the warm hook process's.
        env={**os.environ, "PLANSIGHT_HOOK_DAEMON": "0"},
    )
    assert_one_line(done, "try again")
    assert str(tmp_path) not in done.stderr


# ---------------------------------------------------------------- 3. the file replaced


def test_a_store_removed_under_running_servers_is_reopened_and_nothing_is_lost(
    spawn: Any, tmp_path: Path
) -> None:
    db = tmp_path / "plans.sqlite3"
    server, other = spawn(db), spawn(db)
    server.initialize()
    other.initialize()
    assert append(server, "old")["result"]["version"] == 1
    for path in tmp_path.glob("plans.sqlite3*"):
        path.unlink()
    # The change lands in a new file at the path, where every process reads it.
    answer = append(server, "new")["result"]
    assert answer["version"] == 1
    assert [t["content"] for t in answer["phases"][0]["tasks"]] == ["new"]
    assert file_versions(db) == [1]
    # The other server notices the new file within its polling interval and pushes it.
    wait_for_push(
        other, lambda p: bool(p["phases"]) and p["phases"][0]["tasks"][0]["content"] == "new"
    )
    assert other.result("plansight/get", {}) == server.result("plansight/get", {})
    shown = cli("show", "--db", str(db), "--format", "json")
    assert '"new"' in shown.stdout and '"old"' not in shown.stdout

    # Removed again, then written by the CLI: the servers hear of the new file.
    for path in tmp_path.glob("plans.sqlite3*"):
        path.unlink()
    made = cli("apply", "--db", str(db), "--ops", '[{"op":"append","phase":"P","items":["cli"]}]')
    assert made.returncode == 0, made.stderr
    for reader in (server, other):
        # Pushed without being asked: the watcher noticed the new file at the path.
        while not any(cli_state(n) for n in reader.notifications):
            message = reader.read_message()
            assert message is not None
            if "id" not in message:
                reader.notifications.append(message)
        state = reader.result("plansight/get", {})
        assert [t["content"] for p in state["phases"] for t in p["tasks"]] == ["cli"]


def wait_for_push(client: WireClient, wanted: Any) -> None:
    """Read until a didChange whose params satisfy `wanted` has arrived."""
    while not any(
        n["method"] == "plansight/didChange" and wanted(n["params"]) for n in client.notifications
    ):
        message = client.read_message()
        assert message is not None
        if "id" not in message:
            client.notifications.append(message)


def cli_state(message: Json) -> bool:
    params = message.get("params") or {}
    if message.get("method") != "plansight/didChange" or not params.get("phases"):
        return False
    return bool(params["phases"][0]["tasks"][0]["content"] == "cli")


def test_a_store_replaced_by_another_file_is_read_from_the_new_one(store_path: Path) -> None:
    store = SqliteStore(store_path)
    service = PlanService(store)
    service.apply(*append_params("first"))
    elsewhere = store_path.with_name("copy.sqlite3")
    other = PlanService(SqliteStore(elsewhere))
    other.apply(*append_params("one"))
    other.apply(*append_params("two"))
    other.store.close()
    os.replace(elsewhere, store_path)
    assert [s["session"] for s in service.sessions()["sessions"]] == ["default"]
    state = service.get(GetParams())
    assert state["version"] == 2
    assert [t["content"] for t in state["phases"][0]["tasks"]] == ["one", "two"]


# ---------------------------------------------------------------- 4. read-only


def test_a_read_only_store_serves_reads_and_refuses_changes_plainly(
    spawn: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "store"
    db = folder / "plans.sqlite3"
    made = cli("apply", "--db", str(db), "--ops", '[{"op":"append","phase":"P","items":["x"]}]')
    assert made.returncode == 0, made.stderr
    with read_only(folder):
        server = spawn(db)
        server.initialize()
        state = server.result("plansight/get", {})
        assert state["version"] == 1
        assert server.result("plansight/context", {})["text"]
        refused = append(server, "y")
        assert refused["error"]["code"] == REQUEST_FAILED
        assert refused["error"]["data"] == {"reason": "readOnly"}
        assert "read-only" in refused["error"]["message"]
        assert_no_leak(refused, (str(tmp_path), db.name))
        assert server.result("plansight/get", {}) == state

        shown = cli("show", "--db", str(db))
        assert shown.returncode == 0 and "x" in shown.stdout, shown.stderr
        assert cli("context", "--db", str(db)).returncode == 0
        changed = cli("apply", "--db", str(db), "--ops", '[{"op":"done","task":"x"}]')
        assert_one_line(changed, "read-only")

        # The MCP tools: the list is read, a change is an error result saying why.
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "agent", "version": "1"},
            },
        }
        calls = [
            init,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "todo_read"}},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "todo_write", "arguments": {"todos": []}},
            },
        ]
        answers = mcp_exchange(["--db", str(db), "--session", "default"], calls)
        read, write = answers[1]["result"], answers[2]["result"]
        assert read["isError"] is False and "x" in read["content"][0]["text"], read
        assert write["isError"] is True
        assert "Nothing was changed" in write["content"][0]["text"]
        assert "read-only" in write["content"][0]["text"]
        server.kill()
    assert file_versions(db) == [1]


# ---------------------------------------------------------------- 11. nothing from reading


def test_reading_unknown_sessions_creates_nothing(store_path: Path) -> None:
    store = SqliteStore(store_path)
    service = PlanService(store)
    service.apply(*append_params("x"))
    for i in range(500):
        name = f"unknown {i}"
        assert service.get(GetParams(session=name))["version"] == 0
        service.context(ContextParams(session=name))
    assert service.sessions()["sessions"][0]["session"] == "default"
    assert len(service.sessions()["sessions"]) == 1
    with closing(sqlite3.connect(store_path)) as db:
        unknown = "SELECT count(*) FROM context WHERE session NOT IN (SELECT name FROM sessions)"
        assert db.execute(unknown).fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
    assert len(store._cache) == 1  # no copy kept of a session that does not exist
    store.close()


def test_a_server_that_is_never_asked_for_a_change_creates_no_file(
    spawn: Any, tmp_path: Path
) -> None:
    """Issue #16 item 8: Codex lists its MCP servers from `~/.codex` before any project."""
    db = tmp_path / "state" / "plansight" / "plans.sqlite3"
    server = spawn(db)
    server.initialize()
    assert server.result("plansight/get", {})["version"] == 0
    assert server.result("plansight/sessions", {}) == {"sessions": []}
    assert server.result("plansight/export", {})["text"] == ""
    assert server.result("plansight/context", {})["text"]
    for read in ("show", "sessions"):  # a read says there is no such store, and makes none
        done = cli(read, "--db", str(db))
        assert done.returncode == 2 and "no plan store at" in done.stderr
    assert not (tmp_path / "state").exists()
    assert append(server, "x")["result"]["version"] == 1
    assert db.exists()


def test_an_mcp_server_that_only_reads_creates_no_file(tmp_path: Path) -> None:
    db = tmp_path / "state" / "plans.sqlite3"
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "codex", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "todo_read"}},
    ]
    answers = mcp_exchange(["--db", str(db)], requests)
    assert [a.get("id") for a in answers] == [1, 2, 3]
    assert answers[2]["result"]["isError"] is False
    # No store file; the folder of the session-name locks is the MCP server's own.
    assert [p.name for p in (tmp_path / "state").iterdir()] == ["plans.sqlite3-mcp"]


def mcp_exchange(args: list[str], requests: list[Json]) -> list[Json]:
    """Send each request to `plansight mcp` and read its answer before the next, as an
    agent does; then close stdin and wait for a clean exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "plansight", "mcp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" in request:
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
    return answers


def test_a_store_path_that_cannot_be_created_is_request_failed(spawn: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    server = spawn(blocker / "plans.sqlite3")
    answer = server.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert answer["error"]["code"] == REQUEST_FAILED
    assert answer["error"]["data"] == {"reason": "unavailable"}
    assert_no_leak(answer, (str(tmp_path), blocker.name))


def test_a_damaged_store_is_refused_at_initialize_in_the_servers_own_words(
    spawn: Any, tmp_path: Path
) -> None:
    """Issue 33, item 14: the reason an editor shows is the server's sentence, in the answer
    and as the last error line of its log, never "server error: JsonRpcException"."""
    damaged = tmp_path / "plans.sqlite3"
    damaged.write_bytes(bytes(range(256)) * 32)
    server = spawn(damaged)
    answer = server.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert answer["error"]["code"] == REQUEST_FAILED
    assert "cannot be used" in answer["error"]["message"]
    errors = [line for line in server.stderr_text().splitlines() if " ERROR " in line]
    assert errors and answer["error"]["message"] in errors[-1], errors
    assert not any("JsonRpcException" in line for line in errors), errors
    assert_no_leak(answer, (str(tmp_path), damaged.name))


# ---------------------------------------------------------------- 9. pruning


def test_a_clients_max_sessions_is_ignored_and_pruning_is_announced_to_every_watcher(
    spawn: Any, tmp_path: Path
) -> None:
    db = tmp_path / "plans.sqlite3"
    greedy, other = spawn(db), spawn(db)
    greedy.initialize({"maxSessions": 1})  # once, this deleted everyone else's sessions
    other.initialize()
    service = PlanService(SqliteStore(db))
    service.apply(*append_params("x", session="s000"))
    time.sleep(0.002)  # strictly the least recently updated
    for i in range(1, 199):
        service.apply(*append_params("x", session=f"s{i:03}"))
    assert "result" in append(greedy, "mine", session="greedy's own")
    names = {s["session"] for s in greedy.result("plansight/sessions", {})["sessions"]}
    assert len(names) == 200 and "s000" in names
    assert "maxSessions is ignored" in greedy.stderr_text()

    assert "result" in append(other, "one more", session="the 201st")
    for watcher in (greedy, other):
        while not any(n["method"] == "plansight/didPrune" for n in watcher.notifications):
            message = watcher.read_message()
            assert message is not None
            if "id" not in message:
                watcher.notifications.append(message)
        prunes = [n["params"] for n in watcher.notifications if n["method"].endswith("didPrune")]
        assert prunes == [{"sessions": ["s000"]}]
        names = {s["session"] for s in watcher.result("plansight/sessions", {})["sessions"]}
        assert len(names) == 200 and "s000" not in names
    assert watcher.result("plansight/get", {"session": "s000"})["version"] == 0


def test_a_store_locked_too_long_is_busy_and_nothing_changes(store_path: Path) -> None:
    store = SqliteStore(store_path)
    service = PlanService(store)
    service.apply(*append_params("x"))
    assert store._db is not None
    # The store waits 10 s for a lock; a tenth of a second says the same thing sooner.
    store._db.execute("PRAGMA busy_timeout = 100")
    with closing(sqlite3.connect(store_path, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError) as refused:
            service.apply(*append_params("y"))
        assert refused.value.reason == "busy"
        assert "locked by another program" in str(refused.value)
        holder.execute("ROLLBACK")
    assert service.apply(*append_params("z")).result["version"] == 2
    assert [e.version for e in store.events()] == [1, 2]


def test_a_change_written_while_the_store_is_removed_is_not_acknowledged(
    store_path: Path,
) -> None:
    from plansight.core.model import Phase, Task, utc_now
    from plansight.store import ChangeEvent

    store = SqliteStore(store_path)
    PlanService(store).apply(*append_params("kept"))
    with pytest.raises(StoreError) as refused, store.edit("default", "agent", 200) as edit:
        now = utc_now()
        task = Task("t99", "lost", "lost", "pending", [], now, now)
        edit.plan.phases.append(Phase("Q", [task]))
        edit.commit(ChangeEvent("agent", "plansight/apply", {}))
        for path in store_path.parent.glob(store_path.name + "*"):
            path.unlink()  # between the change and its commit
    assert refused.value.reason == "unavailable"
    assert "not kept" in str(refused.value)
    # Nothing at the path shows it, and this store reads the path again.
    assert PlanService(SqliteStore(store_path)).get(GetParams())["version"] == 0
    assert store.load("default").version == 0
