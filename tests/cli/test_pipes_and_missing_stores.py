"""Two things a person at a shell meets: a reader that stops early (`plansight schema |
head -1`) is no error, and a read of a store that does not exist says so instead of
showing an empty plan (and creates nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(
    *args: str, env: dict[str, str] | None = None, stdout_closed: bool = False
) -> tuple[int, str, str]:
    """`plansight ARGS`; with `stdout_closed`, its reader closes the pipe before a byte
    was written (as `head` does once it has its line), so every write finds it gone."""
    command = [sys.executable, "-m", "plansight", *args]
    full_env = {**os.environ, **(env or {})}
    if not stdout_closed:
        done = subprocess.run(command, capture_output=True, text=True, env=full_env, timeout=120)
        return done.returncode, done.stdout, done.stderr
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the process has even imported plansight
    err = process.stderr.read()
    return process.wait(timeout=120), "", err


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "plans.sqlite3")
    items = [f"Task {i} " + "x" * 200 for i in range(60)]
    todos = [{"content": t, "status": "pending", "activeForm": t} for t in items]
    code, _, err = run("write", "--db", path, "--session", "s", "--todos", json.dumps(todos))
    assert code == 0, err
    return path


PRINTING = [
    ["schema"],
    ["--help"],
    ["show"],
    ["show", "--format", "json"],
    ["sessions"],
    ["sessions", "--json"],
    ["export"],
    ["history"],
    ["context", "--session", "s"],
    ["store-path"],
    ["apply", "--session", "s", "--json", "--ops", '[{"op": "append", "items": ["more"]}]'],
]


@pytest.mark.parametrize("relay", ["relayed", "own process"])
@pytest.mark.parametrize("args", PRINTING, ids=lambda args: " ".join(args[:2]))
def test_a_reader_that_stops_early_is_no_error(db: str, args: list[str], relay: str) -> None:
    env = {"PLANSIGHT_HOOK_DAEMON": "1" if relay == "relayed" else "0"}
    store = [] if args[0] in ("schema", "--help") else ["--db", db]
    code, _, err = run(*args, *store, env=env, stdout_closed=True)
    assert err == ""  # no "internal error (BrokenPipeError)", no "Exception ignored"
    assert code == 0


MISSING = "/nonexistent/dir/plans.sqlite3"


@pytest.mark.parametrize(
    "args",
    [["show"], ["sessions"], ["export"], ["history"], ["context"], ["watch"]],
    ids=lambda args: args[0],
)
def test_a_read_of_a_store_that_does_not_exist_says_so(args: list[str]) -> None:
    for given in (["--db", MISSING], []):
        env = {} if given else {"PLANSIGHT_DB": MISSING}
        code, out, err = run(*args, *given, env=env)
        assert code == 2, out + err
        assert err.startswith(f"plansight: no plan store at {MISSING} (from ")
        assert "--db" in err if given else "PLANSIGHT_DB" in err
        assert "\n" not in err.strip() and out == ""
    assert not Path("/nonexistent").exists()


@pytest.mark.parametrize("command", ["show", "sessions", "export", "history"])
def test_a_read_never_creates_the_store_it_was_given(tmp_path: Path, command: str) -> None:
    store = tmp_path / "typo.sqlite3"
    code, _, err = run(command, "--db", str(store))
    assert code == 2 and "no plan store at" in err
    assert list(tmp_path.iterdir()) == []


def test_context_before_the_first_write_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    """An agent's loop asks for the context on every turn, from before its first plan."""
    store = tmp_path / "plans.sqlite3"
    code, _, err = run("context", "--db", str(store))
    assert code == 0, err
    assert list(tmp_path.iterdir()) == []


def test_the_default_store_of_a_new_project_reads_as_empty(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    code, out, err = run("sessions", env=env)
    assert (code, out, err) == (0, "No sessions yet.\n", "")
    assert not (tmp_path / "state").exists()
