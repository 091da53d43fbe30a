"""Property-based fuzzing of the protocol through one real `plansight serve` over stdio.

Hypothesis generates a stream of requests (op batches, `write` lists, imports, reads and
malformed params of every kind); after every answer the suite checks the answer against
the contract and the world against the invariants: at most one task in progress, ids
unique and stable, `version` up by exactly one per committed change, a fresh `get` equal
to what the SQLite file holds, markdown export then import idempotent, one `didChange`
per committed change, and no error carrying a traceback or a path.
"""

from __future__ import annotations

import json
import math
import sqlite3
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fuzz_requests import (
    MISSING,
    ROUNDTRIP_SESSION,
    SESSIONS,
    Deep,
    Pool,
    Request,
    request,
    resolve,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from reliability_checks import (
    CONTENT_MODIFIED,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Json,
    assert_did_change_shape,
    assert_error_shape,
    assert_no_leak,
    assert_result_shape,
    assert_state,
    auto_started,
    knob,
    outline,
    store_state,
    stored_part,
    task_ids,
    task_number,
)
from reliability_wire import WireClient, frame, rss_bytes, wait_until_sleeping

from plansight.core.settings import Settings
from plansight.protocol.models import METHODS, REQUESTS
from plansight.protocol.requests import GetParams
from plansight.protocol.text import clean_content
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore

FUZZ_REQUESTS = knob("PLANSIGHT_FUZZ_REQUESTS", 5000)
STEPS = 25  # requests per Hypothesis example
# Small limits, so that generated requests run into them often.
SETTINGS = {
    "maxTasks": 12,
    "maxPhases": 4,
    "maxContentLength": 60,
    "maxNoteLength": 300,
    "maxNotesPerTask": 4,
    "maxSessions": 100_000,
    "reminderAfterRounds": 2,
}
CHANGES = (
    "plansight/apply",
    "plansight/write",
    "plansight/clear",
    "plansight/import",
    "plansight/restore",
    "plansight/ingest",
    "plansight/undo",
)
STATEFUL = (*CHANGES, "plansight/get")


def encode(message: Json, encoding: str) -> bytes:
    """JSON text of `message`; `utf-8` writes lone surrogates raw, which makes the bytes
    invalid UTF-8 on purpose."""
    deep: dict[str, str] = {}

    def flatten(value: Any) -> Any:
        if isinstance(value, Deep):
            key = f"@@deep{len(deep)}@@"
            deep[key] = value.json()
            return key
        if isinstance(value, dict):
            return {key: flatten(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [flatten(inner) for inner in value]
        return value

    text = json.dumps(flatten(message), ensure_ascii=encoding == "ascii")
    for key, value in deep.items():
        text = text.replace(json.dumps(key), value)
    return text.encode("utf-8", "surrogatepass")


class Fuzzer:
    """The client side of the fuzzing, with what it knows the server must hold."""

    def __init__(self, client: WireClient, db: Path) -> None:
        self.client = client
        self.db = db
        self.versions: dict[str, int] = {}
        self.states: dict[str, Json] = {}
        self.seen_ids: dict[str, set[str]] = {}
        # Sessions a `restore` or an `undo` changed: it brings removed tasks back, with their ids.
        self.restored: set[str] = set()
        self.top_id: dict[str, int] = {}
        self.committed: Counter[tuple[str, int]] = Counter()
        self.notified: Counter[tuple[str, int]] = Counter()
        self.counts: Counter[str] = Counter()
        self.failure: str | None = None
        self.last_params: Any = None
        self.unread_notification = False

    def pool(self) -> Pool:
        contents: list[str] = []
        ids: list[str] = []
        phases: list[str] = []
        for session in SESSIONS:
            state = self.states.get(session)
            if state is None:
                continue
            for phase in state["phases"]:
                phases.append(phase["name"])
                for task in phase["tasks"]:
                    contents.append(task["content"])
                    ids.append(task["id"])
        return Pool(tuple(contents), tuple(ids), tuple(phases))

    # ------------------------------------------------------------ one request

    def run(self, req: Request) -> None:
        self.counts["requests"] += 1
        message: Json = {"jsonrpc": "2.0", "method": req.method}
        msg_id = None
        if not req.notification:
            msg_id = self.client.new_id()
            message["id"] = msg_id
        params = self.last_params = resolve(req.params, self.pool())
        if params is not MISSING:
            message["params"] = params
        self.client.send_bytes(frame(encode(message, req.encoding)))
        if req.notification:
            self.counts["notifications"] += 1
            self.unread_notification = True
            self.check_world(None, notification=req.method)
            return
        answer = self.next_answer()
        if answer["id"] is None:
            # The message could not be read as a request at all (invalid UTF-8, nesting
            # past the parser's limit): a parse error the client can still match.
            error = assert_error_shape(answer)
            assert error["code"] in (PARSE_ERROR, INVALID_REQUEST), error
            self.scan(answer)
            self.counts[f"error {error['code']}"] += 1
            self.check_world(None)
            return
        assert answer["id"] == msg_id, (answer, msg_id)
        touched = self.check_answer(req.method, params, answer)
        self.check_world(touched)

    def next_answer(self) -> Json:
        while True:
            message = self.client.read_message()
            assert message is not None, "the server closed its output"
            if "method" in message:
                self.take_notification(message)
                continue
            return message

    def scan(self, answer: Json) -> None:
        assert_no_leak(answer, (str(self.db), self.db.name))
        self.counts["errors scanned"] += 1

    def check_answer(self, method: str, sent: Any, answer: Json) -> str | None:
        """The answer keeps the contract; returns the session it changed or showed."""
        params = sent if isinstance(sent, dict) else {}
        if "error" in answer:
            error = assert_error_shape(answer)
            self.scan(answer)
            self.counts[f"error {error['code']}"] += 1
            self.counts[f"{method} error {error['code']}"] += 1
            if method in METHODS:
                assert error["code"] in (INVALID_PARAMS, CONTENT_MODIFIED), (method, params, error)
            else:
                assert error["code"] in (METHOD_NOT_FOUND, INVALID_REQUEST, INVALID_PARAMS), error
            if error["code"] == CONTENT_MODIFIED:
                session = clean_content(params.get("session", "default"))
                assert error["data"]["currentVersion"] == self.versions.get(session, 0)
            return None
        assert method in METHODS, f"{method!r} answered with a result: {answer}"
        result = answer["result"]
        assert_result_shape(method, result)
        self.counts["results"] += 1
        if method not in STATEFUL:
            # The server uses a session name as the contract cleans it.
            name = params.get("session")
            return clean_content(name) if isinstance(name, str) else None
        assert_state(result)
        session = result["session"]
        before = self.versions.get(session, 0)
        if method in CHANGES:
            assert result["errors"] == [] or result["isError"], result
            assert result["isError"] == bool(result["errors"])
            expected = before + 1 if result["changed"] else before
            assert result["version"] == expected, (method, params, before, result["version"])
            self.counts[f"{method} {'changed' if result['changed'] else 'unchanged'}"] += 1
            if result["changed"]:
                self.committed[(session, result["version"])] += 1
                self.counts["committed changes"] += 1
        else:
            assert result["version"] == before, (before, result["version"])
        self.adopt(session, result, method)
        return session

    def adopt(self, session: str, state: Json, method: str) -> None:
        """Take in a new state of `session`, checking that its ids are unique and stable."""
        old = task_ids(self.states[session]) if session in self.states else {}
        new = task_ids(state)
        seen = self.seen_ids.setdefault(session, set())
        top = self.top_id.get(session, 0)
        if method in ("plansight/restore", "plansight/undo"):
            self.restored.add(session)
        for task_id, content in new.items():
            if task_id in old:
                # Only `write` (an item naming that id), `update` (an apply op),
                # `restore` and `undo` (an earlier content), `ingest` (an item naming
                # the task's externalId) and (v4) `import` (a line edited where it
                # stood keeps its task) may give an id another content.
                if method not in (
                    "plansight/import",
                    "plansight/write",
                    "plansight/apply",
                    "plansight/restore",
                    "plansight/undo",
                    "plansight/ingest",
                ):
                    assert content == old[task_id], (task_id, old[task_id], content)
            elif task_id in seen:
                assert session in self.restored, f"id {task_id} of a removed task came back"
            else:
                assert task_number(task_id) > top, f"id {task_id} is not new (top t{top})"
        seen.update(new)
        self.top_id[session] = max([top, *(task_number(i) for i in new)])
        self.versions[session] = state["version"]
        self.states[session] = {key: state[key] for key in ("version", "phases", "updatedAt")}

    def take_notification(self, message: Json) -> None:
        if message["method"] != "plansight/didChange":
            return
        params = message["params"]
        assert_did_change_shape(params)
        assert_state(params)
        self.notified[(params["session"], params["version"])] += 1

    # ------------------------------------------------------------ the world after it

    def call(self, method: str, params: Json) -> Json:
        msg_id = self.client.request(method, params)
        answer = self.next_answer()
        if self.unread_notification and answer["id"] is None:
            # A notification that could not be read is answered as JSON-RPC says: the
            # server cannot know it had no id.
            error = assert_error_shape(answer)
            assert error["code"] in (PARSE_ERROR, INVALID_REQUEST), error
            self.scan(answer)
            self.counts[f"error {error['code']}"] += 1
            answer = self.next_answer()
        self.unread_notification = False
        assert answer["id"] == msg_id, answer
        assert "error" not in answer, (method, params, answer)
        return answer["result"]

    def check_world(self, touched: str | None, notification: str | None = None) -> None:
        """After an answer (or a notification of `notification`, a request sent without
        id): the sessions, the touched session against the store, the round trip."""
        listed = self.call("plansight/sessions", {})["sessions"]
        stamps = [s["updatedAt"] for s in listed]
        assert stamps == sorted(stamps, reverse=True), "sessions not most recent first"
        moved = []
        for info in listed:
            session = info["session"]
            before = self.versions.get(session, 0)
            if info["version"] != before:
                # Only a notification (a request without id) changes things unanswered.
                assert notification and info["version"] == before + 1, (info, before)
                moved.append(session)
        assert len(moved) <= 1, moved
        known = {s for s, v in self.versions.items() if v > 0}
        assert known <= {info["session"] for info in listed}, "a session disappeared"
        for session in moved:
            state = self.call("plansight/get", {"session": session})
            assert_state(state)
            self.committed[(session, state["version"])] += 1
            self.counts["committed changes"] += 1
            self.adopt(session, state, notification or "")
            touched = session
        if touched is None:
            return
        state = self.call("plansight/get", {"session": touched})
        assert_state(state)
        assert state["version"] == self.versions.get(touched, 0)
        if touched in self.states:
            fresh = {k: state[k] for k in ("version", "phases", "updatedAt")}
            assert fresh == self.states[touched], (
                "a fresh get differs from the last answer: "
                + first_difference(self.states[touched], fresh)
            )
        stored = store_state(self.db, touched)
        assert stored_part(state) == stored, "get differs from the store: " + first_difference(
            stored, stored_part(state)
        )
        self.counts["store comparisons"] += 1
        if state["version"] > 0 and touched != ROUNDTRIP_SESSION:
            self.round_trip(touched, state)

    def round_trip(self, session: str, state: Json) -> None:
        """Export then import gives back phases, contents, statuses and notes, and a
        second import of the same text changes nothing."""
        as_json = self.call("plansight/export", {"session": session, "format": "json"})["text"]
        assert json.loads(as_json) == state
        text = self.call("plansight/export", {"session": session, "format": "markdown"})["text"]
        first = self.import_roundtrip(text)
        assert first["errors"] == [], (text, first["errors"])
        assert outline(first) == auto_started(state), text
        again = self.call("plansight/export", {"session": ROUNDTRIP_SESSION})["text"]
        second = self.import_roundtrip(again)
        assert second["changed"] is False, (text, again)
        self.counts["markdown round trips"] += 1

    def import_roundtrip(self, text: str) -> Json:
        result = self.call("plansight/import", {"session": ROUNDTRIP_SESSION, "markdown": text})
        assert_state(result)
        before = self.versions.get(ROUNDTRIP_SESSION, 0)
        assert result["version"] == before + (1 if result["changed"] else 0)
        if result["changed"]:
            self.committed[(ROUNDTRIP_SESSION, result["version"])] += 1
        self.adopt(ROUNDTRIP_SESSION, result, "plansight/import")
        return result


def first_difference(expected: Any, actual: Any, path: str = "") -> str:
    """Where two JSON values first differ, for a readable failure."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if expected.get(key, "<missing>") != actual.get(key, "<missing>"):
                return first_difference(
                    expected.get(key, "<missing>"), actual.get(key, "<missing>"), f"{path}.{key}"
                )
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            if left != right:
                return first_difference(left, right, f"{path}.{index}")
    return f"at {path or '<root>'}: expected {short(expected, 300)}, got {short(actual, 300)}"


@pytest.fixture
def fuzzer(tmp_path: Path) -> Any:
    folder = tmp_path
    db = folder / "plans.sqlite3"
    client = WireClient(db, log_dir=folder / "logs")
    client.initialize(SETTINGS)
    fuzzer = Fuzzer(client, db)
    fuzzer.counts["server memory at the start, MiB"] = rss_bytes(client.pid) >> 20
    yield fuzzer
    client.kill()


def short(value: Any, limit: int = 2000) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def test_every_request_is_answered_and_the_invariants_hold(
    fuzzer: Fuzzer, figures: Counter[str]
) -> None:
    # One server carries its state from example to example, so Hypothesis cannot replay
    # or shrink a failing example against the same state: the first failure is kept with
    # the request that caused it and the ones before, and reported as it happened.
    @settings(
        max_examples=math.ceil(FUZZ_REQUESTS / STEPS),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate),
    )
    @given(data=st.data())
    def fuzz(data: Any) -> None:
        sent: list[Request] = []
        for _ in range(STEPS):
            # Drawn even after a failure: Hypothesis wants every example to draw alike.
            sent.append(data.draw(request()))
            if fuzzer.failure is not None:
                continue
            try:
                fuzzer.run(sent[-1])
            except Exception:
                before = "\n".join(short(r, 300) for r in sent[:-1])
                fuzzer.failure = (
                    f"request {fuzzer.counts['requests']}: {sent[-1].method} "
                    f"{short(fuzzer.last_params)} ({sent[-1].encoding}"
                    f"{', as a notification' if sent[-1].notification else ''})\n"
                    f"{traceback.format_exc()}\nearlier in this example:\n{before}"
                )

    fuzz()
    if fuzzer.failure is not None:
        pytest.fail(fuzzer.failure, pytrace=False)

    # One more round trip: every push of a change answered before it is out by then.
    listed = fuzzer.call("plansight/sessions", {})["sessions"]
    assert fuzzer.counts["requests"] >= FUZZ_REQUESTS
    assert fuzzer.counts["committed changes"] > FUZZ_REQUESTS // 10, fuzzer.counts
    assert fuzzer.counts["error -32602"] > FUZZ_REQUESTS // 20, fuzzer.counts
    assert fuzzer.notified == fuzzer.committed
    for info in listed:
        state = fuzzer.call("plansight/get", {"session": info["session"]})
        assert stored_part(state) == store_state(fuzzer.db, info["session"])
    # The event log replays to what the server holds, ids included.
    replayed = replay_log(fuzzer.db, SETTINGS)
    assert set(replayed) == {s for s, v in fuzzer.versions.items() if v > 0}
    for session, state in replayed.items():
        assert with_ids(state) == with_ids(store_state(fuzzer.db, session)), session
    fuzzer.counts["sessions replayed from the event log"] += len(replayed)
    # Idle again after all that (a spinning loop is never seen asleep), and its memory
    # is a figure to watch.
    wait_until_sleeping(fuzzer.client.pid)
    fuzzer.counts["server memory after the fuzzing, MiB"] = rss_bytes(fuzzer.client.pid) >> 20
    assert fuzzer.client.shutdown() == 0
    for key, value in fuzzer.counts.items():
        if not key.startswith(
            ("plansight/", "$/", "textDocument/", "workspace/", "initialized", " ")
        ):
            figures[f"fuzz: {key}"] += value


# ---------------------------------------------------------------- what the fuzzing found


def replay_log(db: Path, settings: Json) -> dict[str, Json]:
    """Every session's final state after feeding the event log, in order, to a fresh
    service on an empty store."""
    store = SqliteStore(db)
    events = store.events()
    store.close()
    fresh = PlanService(SqliteStore(db.with_name("replayed.sqlite3")), Settings.validate(settings))
    run = {
        "plansight/apply": fresh.apply,
        "plansight/write": fresh.write,
        "plansight/clear": fresh.clear,
        "plansight/import": fresh.import_markdown,
        # The replayed store keeps its own plan per version: restoring from it gives
        # what the original store's restore gave only if the replay was faithful.
        "plansight/restore": fresh.restore,
        "plansight/ingest": fresh.ingest,
        # Its undo point is read from the replayed store's own history, likewise.
        "plansight/undo": fresh.undo,
    }
    replayed_db = db.with_name("replayed.sqlite3")
    for event in events:
        method, request = event.method, event.request
        if event.agent_base is not None and event.version > 1:
            # (v3) The agent's view moves with `context` answers, which the log does not
            # keep: the change is replayed from the base it was merged from.
            with sqlite3.connect(replayed_db) as base_of:
                base_of.execute(
                    "UPDATE sessions SET agent_base = ? WHERE name = ?",
                    (event.agent_base, event.session),
                )
            base_of.close()
        outcome = run[method](REQUESTS[method][0].validate(request), request)
        assert outcome.changed and outcome.result["version"] == event.version, event
    states = {s: fresh.get(GetParams(session=s)) for s in {e.session for e in events}}
    fresh.store.close()
    return states


def with_ids(state: Json) -> Any:
    return [
        (p["name"], [(t["id"], t["content"], t["status"], t["notes"]) for t in p["tasks"]])
        for p in state["phases"]
    ]


def test_a_request_that_changes_nothing_leaves_no_trace(spawn: Any, tmp_path: Path) -> None:
    """Found by the fuzzing: a batch that ends where it started (`done` then `start` of
    the current task) answered with timestamps that were never stored, and one that adds
    then removes a task used up an id that no event records, so replaying the log gave
    other ids."""
    db = tmp_path / "plans.sqlite3"
    client = spawn(db)
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["a"]}]})
    for ops in (
        [{"op": "done", "task": "a"}, {"op": "start", "task": "a"}],
        [{"op": "append", "phase": "P", "items": ["scratch"]}, {"op": "rm", "task": "scratch"}],
    ):
        result = client.result("plansight/apply", {"ops": ops})
        assert result["changed"] is False
        state = client.result("plansight/get", {})
        assert stored_part(state) == stored_part(result) == store_state(db, "default")
    added = client.result(
        "plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["b"]}]}
    )
    assert [t["id"] for t in added["phases"][0]["tasks"]] == ["t1", "t2"]
    assert with_ids(replay_log(db, {})["default"]) == with_ids(added)
