"""`plansight show` and `watch` as a person at a terminal meets them: what `--session`
does, a short terminal, long task text, and two agents writing at once.

`watch` draws to a Rich console of a fixed size here; the store is a real SQLite file
written by the same service the CLI uses."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from plansight.cli.live import watch
from plansight.cli.workspace_warnings import UNTRUSTED_CODEX, rechecked
from plansight.codex_hook_trust import plansight_hooks
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore


def plansight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "plans.sqlite3")


@pytest.fixture
def service(db: str) -> Iterator[PlanService]:
    svc = PlanService(SqliteStore(db))
    yield svc
    svc.store.close()


def apply(service: PlanService, session: str, ops: list[dict[str, Any]]) -> None:
    result = service.apply(
        ApplyParams.validate({"session": session, "ops": ops}),
        {"session": session, "ops": ops},
    )
    assert not result.result["isError"], result.result["summary"]


def long_plan(current: int = 25, total: int = 30) -> list[dict[str, Any]]:
    items = [
        {
            "content": f"Task {i:02d}",
            "activeForm": f"Working on task {i:02d}",
            "status": "completed" if i < current else "in_progress" if i == current else "pending",
        }
        for i in range(1, total + 1)
    ]
    return [{"op": "init", "list": [{"phase": "Build", "items": items}]}]


def final_frame(service: PlanService, width: int, height: int, pinned: str | None = None) -> str:
    """What `watch` leaves on a terminal of this size (its last frame)."""
    out = io.StringIO()
    console = Console(file=out, width=width, height=height, color_system=None, record=True)
    stop = threading.Event()
    stop.set()
    watch(service, pinned, console, stop)
    return console.export_text()


# ---------------------------------------------------------------- --session


@pytest.mark.parametrize("command", ["show", "watch", "export"])
def test_help_says_what_session_defaults_to(command: str) -> None:
    shown = plansight(command, "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    assert "the one updated last" in text
    assert 'default: "default"' not in text


@pytest.mark.parametrize("command", ["show", "watch", "export"])
def test_an_unknown_session_lists_the_sessions_that_exist(
    db: str, service: PlanService, command: str
) -> None:
    apply(service, "claude-code 2026-11-23 12:52", long_plan(2, 3))
    apply(service, "gemini", long_plan(1, 2))
    shown = plansight(command, "--db", db, "--session", "default")
    assert shown.returncode == 2
    line = shown.stderr.strip()
    assert line.startswith('plansight: no session named "default" in this store; its sessions: ')
    assert '"gemini"' in line and '"claude-code 2026-11-23 12:52"' in line
    assert "\n" not in line and "Traceback" not in line
    assert shown.stdout == ""


# ---------------------------------------------------------------- a short terminal


def test_a_short_terminal_keeps_header_current_task_and_border(service: PlanService) -> None:
    apply(service, "agent", long_plan(current=25, total=34))
    lines = final_frame(service, 44, 14).rstrip("\n").split("\n")
    assert len(lines) < 14, "\n".join(lines)  # one row is left for the cursor
    assert lines[0].startswith("╭─ Plansight · agent")
    assert "24/34" in lines[1]  # the header
    assert lines[-1].startswith("╰") and lines[-1].endswith("╯")  # the bottom border
    assert any("● Working on task 25" in line for line in lines)
    assert "..." not in "\n".join(lines)
    # The rest scrolls around the current task: some done before it, what comes next
    # after it, and markers say what is hidden.
    assert any("✓ Task 24" in line for line in lines)
    assert any("○ Task 26" in line for line in lines)
    assert any("↑ 2" in line and "more tasks" in line for line in lines)
    assert any("↓" in line and "more tasks" in line for line in lines)


def test_the_whole_plan_shows_when_it_fits(service: PlanService) -> None:
    apply(service, "agent", long_plan(current=2, total=4))
    text = final_frame(service, 60, 40)
    for i in range(1, 5):
        assert f"Task {i:02d}" in text or f"task {i:02d}" in text
    assert "more task" not in text


def test_wrapped_task_text_is_indented_under_its_text(service: PlanService) -> None:
    long = "Refactor the store so that every read runs inside one transaction"
    items = ["First", long]
    apply(service, "agent", [{"op": "init", "list": [{"phase": "P", "items": items}]}])
    lines = final_frame(service, 44, 30).split("\n")
    first = next(i for i, line in enumerate(lines) if "Refactor" in line)
    column = lines[first].index("Refactor")
    following = lines[first + 1]
    assert following[1:column].strip() == "", f"continuation starts left of the text:\n{following}"
    assert following[column] != " "


# ---------------------------------------------------------------- two agents


# How long a wait for something `watch` does may last before the test gives up: a guard
# against a hang, never a speed check (a loaded machine may take seconds per frame).
GIVE_UP_SECONDS = 120


class CountedLooks(PlanService):
    """The service `watch` reads, counting its looks at the store: each poll reads the
    sessions once, so a test can wait for polls to have happened instead of for a time."""

    def __init__(self, store: SqliteStore) -> None:
        super().__init__(store)
        self.looks = 0
        self.looked = threading.Condition()

    def sessions(self) -> dict[str, Any]:
        found = super().sessions()
        with self.looked:
            self.looks += 1
            self.looked.notify_all()
        return found

    def wait_for_looks(self, count: int) -> None:
        with self.looked:
            assert self.looked.wait_for(lambda: self.looks >= count, GIVE_UP_SECONDS), (
                f"watch looked at the store {self.looks} times, never {count}"
            )


class LiveWatch:
    """`watch` running in a thread on a fixed-size terminal-like console."""

    def __init__(self, service: PlanService, pinned: str | None = None) -> None:
        self.looks = CountedLooks(service.store)  # the same store, its looks counted
        self.out = io.StringIO()
        self.console = Console(
            file=self.out, width=60, height=20, force_terminal=True, color_system=None
        )
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=watch, args=(self.looks, pinned, self.console, self.stop)
        )

    def __enter__(self) -> LiveWatch:
        self.thread.start()
        # The first frame is whole once `watch` polls for the first time: the look for
        # the first frame, then the first poll's (the screen is written between them).
        self.looks.wait_for_looks(2)
        assert "Plansight" in self.out.getvalue(), "watch drew nothing"
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=GIVE_UP_SECONDS)

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + GIVE_UP_SECONDS
        while text not in self.out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert text in self.out.getvalue(), f"never drawn: {text}"


def test_two_agents_writing_do_not_flip_the_panel(service: PlanService) -> None:
    apply(service, "agent-a", long_plan(current=2, total=4))
    with LiveWatch(service) as live:
        for i in range(3):
            apply(service, "agent-b", long_plan(current=i + 1, total=3))
            live.wait_for(f"Working on task {i + 1:02d}")
            apply(service, "agent-a", [{"op": "note", "text": f"note {i}"}])
            live.wait_for(f"note {i}")
    drawn = live.out.getvalue()
    assert "Plansight · agent-a" in drawn
    assert "Plansight · agent-b" not in drawn, "the panel flipped to the other agent"
    # The other agent shows as a line of its own, with what it is doing.
    last = drawn.rsplit("Plansight · agent-a", 1)[1]
    assert "agent-b" in last and "Working on task 03" in last


def test_a_session_emptied_last_does_not_take_the_panel_from_a_plan(
    service: PlanService,
) -> None:
    """Issue 30, item 7: the editors' rule, sessions with tasks first (before, `watch`
    followed whichever session changed last, even an empty one)."""
    apply(service, "agent-a", long_plan(current=2, total=4))
    apply(service, "emptied", long_plan(current=1, total=2))
    apply(service, "emptied", [{"op": "rm"}])
    drawn = final_frame(service, 60, 20)
    assert "Plansight · agent-a" in drawn
    assert "Working on task 02" in drawn


def test_session_pins_the_panel_to_one_session(service: PlanService) -> None:
    apply(service, "agent-a", long_plan(current=2, total=4))
    apply(service, "agent-b", long_plan(current=1, total=3))
    with LiveWatch(service, pinned="agent-a") as live:
        apply(service, "agent-b", long_plan(current=2, total=3))
        live.wait_for("Working on task 02")
    assert "Plansight · agent-b" not in live.out.getvalue()


def test_nothing_is_redrawn_while_nothing_changes(service: PlanService) -> None:
    apply(service, "agent", long_plan(current=2, total=4))
    with LiveWatch(service) as live:
        drawn = len(live.out.getvalue())
        # Twenty polls with no change: a periodic refresh would rewrite the screen.
        live.looks.wait_for_looks(live.looks.looks + 20)
        assert len(live.out.getvalue()) == drawn, "redrawn with nothing changed (flicker)"
        apply(service, "agent", [{"op": "start", "task": "Task 03"}])
        live.wait_for("Working on task 03")


def test_json_show_still_reads_the_named_session(db: str, service: PlanService) -> None:
    apply(service, "agent", long_plan(current=2, total=4))
    shown = plansight("show", "--db", db, "--session", "agent", "--format", "json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["session"] == "agent"


# ---------------------------------------------------------------- the workspace's warnings


def _codex_set_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's home with `plansight setup codex` done, `watch` run in their project."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "setup", "codex"],
        cwd=project,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(project)
    return home / ".codex"


def _watched(service: PlanService, height: int = 20) -> list[str]:
    """The last frame of `watch` as the command runs it, with the workspace's warnings."""
    out = io.StringIO()
    console = Console(file=out, width=80, height=height, color_system=None, record=True)
    stop = threading.Event()
    stop.set()
    watch(service, None, console, stop, warnings=rechecked())
    return console.export_text().rstrip("\n").split("\n")


def test_watch_says_when_codex_does_not_run_the_hooks(
    service: PlanService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 6: until the person trusts Plansight's hooks in Codex's `/hooks`,
    nothing arrives by itself; `watch` says so under the panel, and no longer once they
    are trusted (as `/hooks` records it in Codex's config.toml)."""
    codex = _codex_set_up(tmp_path, monkeypatch)
    assert _watched(service)[-1] == UNTRUSTED_CODEX  # before any plan, under "Waiting…"
    apply(service, "agent", long_plan(current=25, total=34))
    lines = _watched(service, height=14)
    assert lines[-1] == UNTRUSTED_CODEX and len(lines) < 14, "\n".join(lines)
    assert lines[-2].startswith("╰") and "● Working on task 25" in "\n".join(lines)

    config = codex / "config.toml"
    config.write_text(
        config.read_text()
        + "".join(
            f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(value)}\n"
            for key, value in plansight_hooks(codex / "hooks.json")
        )
    )
    assert UNTRUSTED_CODEX not in "\n".join(_watched(service))


def test_watch_says_nothing_of_codex_where_it_is_not_set_up(
    service: PlanService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    apply(service, "agent", long_plan(current=2, total=4))
    assert _watched(service)[-1].startswith("╰")
