"""The warm hook process: `plansight hook` relays each event to it, so an agent waits a few
milliseconds instead of a Python start-up with the store's code; without one, or with a
stale or dead one, the event is still handled, exactly once, in the hook's own process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from replay import Replay

import plansight.hook.store
from plansight.paths import default_store_path
from plansight.protocol.requests import GetParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from plansight.warm.relay import running_pid


def socket_path(machine: Replay) -> Path:
    return machine.warm_address()


def listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def warm_pid(machine: Replay, other_than: int | None = None) -> int | None:
    """The pid of the warm process for the machine's settings, once it listens."""
    path = socket_path(machine)
    deadline = time.monotonic() + 30  # a guard against a hang, not a speed check
    while time.monotonic() < deadline:
        pid = running_pid(f"{path}.lock")
        if pid is not None and pid != other_than and listening(path):
            return pid
        time.sleep(0.05)
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def by(machine: Replay) -> list[str]:
    """Who handled each event, from the log: `warm` or `own`."""
    return [line.split(" by=")[1].split()[0] for line in machine.log().splitlines()]


def tasks(machine: Replay, session: str) -> list[str]:
    store = SqliteStore(default_store_path(machine.project))
    try:
        state = PlanService(store).get(GetParams(session=session))
    finally:
        store.close()
    return [task["content"] for phase in state["phases"] for task in phase["tasks"]]


def created(machine: Replay, number: int) -> dict[str, object]:
    """A recorded TaskCreate with its own id and subject."""
    event = machine.event("claude-code", "PostToolUse-TaskCreate-1")
    event["tool_input"]["subject"] = f"Task {number}"
    event["tool_response"]["task"] = {"id": str(number), "subject": f"Task {number}"}
    return event


SESSION = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


def test_the_first_event_starts_a_warm_process_that_answers_the_next(machine: Replay) -> None:
    assert machine.replay("claude-code", "UserPromptSubmit") == {}
    pid = warm_pid(machine)
    assert pid is not None and alive(pid)
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    machine.replay("claude-code", "PostToolUse-TaskCreate-2")
    # The first waits for the warm process it starts, rather than load the store's code
    # beside it (see test_warm_relay.py's thirty cold hooks).
    assert by(machine) == ["warm", "warm", "warm"]
    assert len(tasks(machine, SESSION)) == 2
    # Its socket is the user's own, in a folder nobody else may enter.
    path = socket_path(machine)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert machine.stop_warm()
    assert wait_gone(pid)
    assert not path.exists()


def test_events_at_once_each_land_once(machine: Replay) -> None:
    """Parallel tool calls: their hooks run at the same time, all relayed to one process."""
    machine.replay("claude-code", "UserPromptSubmit")
    assert warm_pid(machine) is not None
    with ThreadPoolExecutor(8) as pool:
        runs = list(pool.map(lambda n: machine.run("claude-code", created(machine, n)), range(12)))
    assert all(run.returncode == 0 and run.reply == {} for run in runs)
    assert sorted(tasks(machine, SESSION)) == sorted(f"Task {n}" for n in range(12))
    assert by(machine).count("warm") == 13


def test_a_killed_warm_process_is_replaced_and_no_event_is_lost(machine: Replay) -> None:
    machine.replay("claude-code", "UserPromptSubmit")
    pid = warm_pid(machine)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    assert socket_path(machine).exists()  # left behind: connecting to it is refused
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    assert len(tasks(machine, SESSION)) == 1
    fresh = warm_pid(machine, other_than=pid)
    assert fresh is not None and alive(fresh)
    machine.replay("claude-code", "PostToolUse-TaskCreate-2")
    assert by(machine)[-1] == "warm"
    assert len(tasks(machine, SESSION)) == 2


def test_a_warm_process_whose_code_changed_hands_the_event_back(machine: Replay) -> None:
    """An upgrade (or an edit in a clone) while it runs: it answers `stale` and leaves, the
    hook handles that event itself, and a fresh process takes the next."""
    machine.replay("claude-code", "UserPromptSubmit")
    pid = warm_pid(machine)
    assert pid is not None
    source = Path(plansight.hook.store.__file__)
    before = source.stat()
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    try:
        machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert wait_gone(pid)
    assert len(by(machine)) == 2  # handled once: by the hook itself or a fresh process
    assert len(tasks(machine, SESSION)) == 1


def test_a_warm_process_leaves_when_idle(machine: Replay) -> None:
    machine.extra_env["PLANSIGHT_HOOK_IDLE_SECONDS"] = "0.5"
    machine.replay("claude-code", "UserPromptSubmit")
    pid = warm_pid(machine)
    assert pid is not None
    assert wait_gone(pid)
    assert not socket_path(machine).exists()


def test_each_setting_has_its_own_warm_process(machine: Replay, tmp_path: Path) -> None:
    """A store named by PLANSIGHT_DB is another warm process's: one never writes where the
    hook's own settings would not."""
    machine.replay("claude-code", "UserPromptSubmit")
    first = warm_pid(machine)
    machine.extra_env["PLANSIGHT_DB"] = str(tmp_path / "chosen.sqlite3")
    machine.replay("claude-code", "UserPromptSubmit")
    second = warm_pid(machine)
    assert first is not None and second is not None and first != second
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    assert (tmp_path / "chosen.sqlite3").exists()
    assert not default_store_path(machine.project).exists()
    machine.stop_warm()
    machine.extra_env.pop("PLANSIGHT_DB")


def test_no_warm_process_when_turned_off(machine: Replay) -> None:
    machine.extra_env["PLANSIGHT_HOOK_DAEMON"] = "0"
    machine.replay("claude-code", "UserPromptSubmit")
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    assert by(machine) == ["own", "own"]
    assert not socket_path(machine).exists()


def test_a_folder_others_may_enter_is_never_used_and_the_log_says_why_once(
    machine: Replay, short_folder: Path
) -> None:
    runtime = short_folder  # short: a long one is passed over for /tmp (see below)
    (runtime / "plansight").mkdir(mode=0o700)
    (runtime / "plansight").chmod(0o777)
    machine.extra_env["XDG_RUNTIME_DIR"] = str(runtime)
    for _ in range(3):
        machine.replay("claude-code", "UserPromptSubmit")
    # A hook that starts a warm process marks it in that folder before it exits (and the
    # warm process makes its lock there): nothing to wait for once the hooks are done.
    assert by(machine) == ["relay", "own", "own", "own"]
    reason = machine.log().splitlines()[0]
    assert f"its folder {runtime / 'plansight'} is writable by other users" in reason
    assert list((runtime / "plansight").iterdir()) == []


@pytest.mark.parametrize("payload", [b"", b"{not json", json.dumps([1]).encode()])
def test_bad_input_through_the_warm_process(machine: Replay, payload: bytes) -> None:
    machine.replay("claude-code", "UserPromptSubmit")
    assert warm_pid(machine) is not None
    run = machine.run("claude-code", payload)
    assert (run.returncode, run.reply) == (0, {})
    assert by(machine)[-1] == "warm"


def test_a_runtime_folder_too_long_for_a_socket_is_passed_over(
    machine: Replay, tmp_path: Path
) -> None:
    runtime = tmp_path / ("r" * 60) / ("u" * 40)
    runtime.mkdir(parents=True, mode=0o700)
    machine.extra_env["XDG_RUNTIME_DIR"] = str(runtime)
    machine.replay("claude-code", "UserPromptSubmit")
    pid = warm_pid(machine)
    assert pid is not None
    assert socket_path(machine).parent == Path("/tmp", f"plansight-{os.geteuid()}")
    machine.replay("claude-code", "PostToolUse-TaskCreate-1")
    assert by(machine) == ["warm", "warm"]


def loaded(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(m for m in sys.modules if 'plansight' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_relays_start_up_loads_the_warm_process_s_client_side_only() -> None:
    """The relay's start-up loads the relay and the protocol, and of the hook face only its
    settings' name; a command's, the table of what may be relayed too (never the CLI's
    parser). The hook face loads nothing of the warm process, which stands above it."""
    hook_event = {
        "plansight",
        "plansight.folders",
        "plansight.hook",  # the largest event a hook takes
        "plansight.hook.settings",  # the settings' name: the warm process's socket
        "plansight.warm",
        "plansight.warm.entry",
        "plansight.warm.protocol",
        "plansight.warm.relay",
        "plansight.conversation_link",  # the agent's process, named in the one it ran
    }
    assert loaded("plansight.warm.entry") == hook_event
    assert loaded("plansight.warm.entry, plansight.warm.command_line") == hook_event | {
        "plansight.warm.command_line",
        "plansight.warm.relayed",
    }
    assert not {m for m in loaded("plansight.hook.run") if m.startswith("plansight.warm")}
