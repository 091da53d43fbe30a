"""One-shot commands (`plansight apply`, `write`, `ingest`...) answered by the warm hook
process: a shell agent calling them in a loop waits a relay's start-up, not a Python
process loading the store's code. Whatever the command, what the person or the agent
sees is exactly what the command prints in its own process: output, errors, exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plansight.warm.relay import running_pid
from timeless import timeless

MARKDOWN = "# Ship it\n\n## Build\n- [x] Configure\n- [ ] Run the tests\n"
# Each step: arguments, and what stdin holds (None: nothing).
SCRIPT: list[tuple[list[str], str | None]] = [
    (
        ["apply", "--ops", json.dumps([{"op": "init", "list": [{"phase": "A", "items": ["x"]}]}])],
        None,
    ),
    (["apply", "--ops", json.dumps([{"op": "done", "task": "nope"}])], None),  # exit 1
    (["apply", "--ops", json.dumps([{"op": "bogus"}])], None),  # exit 2, one line
    (["apply", "--ops", "-"], json.dumps([{"op": "append", "phase": "A", "items": ["y"]}])),
    (["apply", "--ops", "-"], "not json"),
    (["apply"], None),  # argparse: --ops is required
    (
        [
            "write",
            "--todos",
            json.dumps([{"content": "w", "activeForm": "W", "status": "pending"}]),
        ],
        None,
    ),
    (["ingest", "--format", "markdown", "-"], json.dumps({"markdown": MARKDOWN})),
    (["import", "plan.md", "--session", "docs"], None),  # a path: opened by the caller itself
    (["import", "--session", "stdin", "-"], MARKDOWN),  # stdin: relayed with the request
    (["context"], None),
    (["export", "--session", "docs"], None),
    (["sessions"], None),
    (["history", "--limit", "2"], None),
    (["undo"], None),
    (["clear", "--session", "docs"], None),
    (["export", "--session", "ünïcödé \u202e"], None),
]


def environment(tmp_path: Path, relayed: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
    env.update(
        XDG_STATE_HOME=str(tmp_path / "state"),
        HOME=str(tmp_path),
        PLANSIGHT_DB="plans.sqlite3",  # relative: the caller's folder must be the command's
        PLANSIGHT_HOOK_IDLE_SECONDS="60",
    )
    if not relayed:
        env["PLANSIGHT_HOOK_DAEMON"] = "0"
    return env


def plansight(
    args: list[str], stdin: str | None, folder: Path, env: dict[str, str]
) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        input=(stdin or "").encode(),
        capture_output=True,
        cwd=folder,
        env=env,
        timeout=60,  # a guard against a hang, not a speed check
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def warm_lock(env: dict[str, str]) -> str:
    code = "from plansight.warm.relay import address; print(address())"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip() + ".lock"


def wait_warm(env: dict[str, str]) -> int:
    lock = warm_lock(env)
    socket_path = lock.removesuffix(".lock")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pid = running_pid(lock)
        if (
            pid is not None
            and os.path.exists(socket_path)
            and not os.path.exists(socket_path + ".starting")
        ):
            return pid
        time.sleep(0.05)
    raise AssertionError("no warm process started")


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    own, relayed = tmp_path / "own", tmp_path / "relayed"
    for folder in (own, relayed):
        folder.mkdir()
        (folder / "plan.md").write_text(MARKDOWN, encoding="utf-8")
    return own, relayed


def test_every_command_prints_what_it_prints_in_its_own_process(
    tmp_path: Path, folders: tuple[Path, Path]
) -> None:
    own, relayed = folders
    own_env = environment(tmp_path / "a", relayed=False)
    warm_env = environment(tmp_path / "b", relayed=True)
    # The first command starts the warm process; it answers every one after it. (Not a
    # read that needs the store: PLANSIGHT_DB names one that does not exist yet.)
    assert plansight(["context"], None, relayed, warm_env)[0] == 0
    pid = wait_warm(warm_env)
    try:
        for args, stdin in SCRIPT:
            expected = plansight(args, stdin, own, own_env)
            got = plansight(args, stdin, relayed, warm_env)
            assert timeless(got) == timeless(expected), args
        log = (tmp_path / "b" / "state" / "plansight" / "hook.log").read_text(encoding="utf-8")
        commands = [
            line.split(" command=")[1].split()[0]
            for line in log.splitlines()
            if " by=warm command=" in line
        ]
        # A command naming a file is never relayed: the caller opens it (see test_warm_relay.py).
        assert commands == [args[0] for args, _ in SCRIPT if args[1:2] != ["plan.md"]]
        assert (relayed / "plans.sqlite3").exists() and not (
            tmp_path / "b" / "plans.sqlite3"
        ).exists()
    finally:
        os.kill(pid, signal.SIGTERM)


def test_help_and_long_running_commands_are_never_relayed(
    tmp_path: Path, folders: tuple[Path, Path]
) -> None:
    _, relayed = folders
    env = environment(tmp_path, relayed=True)
    assert plansight(["context"], None, relayed, env)[0] == 0
    pid = wait_warm(env)
    try:
        code, out, _ = plansight(["apply", "--help"], None, relayed, env)
        assert code == 0 and "--ops" in out
        assert plansight(["schema"], None, relayed, env)[0] == 0
        assert not (tmp_path / "state" / "plansight" / "hook.log").exists()  # nothing relayed
        assert plansight(["context"], None, relayed, env)[0] == 0
        log = (tmp_path / "state" / "plansight" / "hook.log").read_text(encoding="utf-8")
        assert " command=context " in log
    finally:
        os.kill(pid, signal.SIGTERM)
