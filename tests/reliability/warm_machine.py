"""A machine with a warm hook process of its own, for the relay's fault tests: its own
runtime folder (short enough for a socket), state folder and projects, and real
`plansight` processes run in them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plansight.protocol.requests import GetParams
from plansight.service import PlanService
from plansight.store.sqlite import SqliteStore
from plansight.warm.relay import running_pid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"
SESSION = "claude-code:5f0c2a9e-1b7d-4c3e-9a61-0d8e2f4b7c11"


@dataclass
class Run:
    code: int
    out: str
    err: str


@dataclass
class WarmMachine:
    root: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def make(cls, tmp_path: Path) -> WarmMachine:
        runtime = Path(tempfile.mkdtemp(prefix="ps-", dir="/tmp"))  # short: a socket fits
        machine = cls(root=tmp_path)
        machine.extra_env["XDG_RUNTIME_DIR"] = str(runtime)
        return machine

    @property
    def runtime(self) -> Path:
        return Path(self.extra_env["XDG_RUNTIME_DIR"])

    def env(self, **changes: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        env.update(
            XDG_STATE_HOME=str(self.root / "state"),
            HOME=str(self.root / "home"),
            PLANSIGHT_HOOK_IDLE_SECONDS="60",  # one a test missed stopping leaves soon
        )
        env.update(self.extra_env)
        env.update(changes)
        return env

    def project(self, name: str) -> Path:
        folder = self.root / name
        if not folder.exists():
            subprocess.run(["git", "init", "-q", str(folder)], check=True)
        return folder

    def plansight(
        self,
        args: list[str],
        folder: Path,
        stdin: bytes = b"",
        prefix: list[str] | None = None,
        **env: str,
    ) -> Run:
        done = subprocess.run(
            [*(prefix or []), sys.executable, "-m", "plansight", *args],
            input=stdin,
            capture_output=True,
            cwd=folder,
            env=self.env(**env),
            timeout=120,  # a guard against a hang, not a speed check
            check=False,
        )
        return Run(done.returncode, done.stdout.decode(), done.stderr.decode())

    def hook(self, event: dict[str, Any], folder: Path, **env: str) -> Run:
        run = self.plansight(["hook", "claude-code"], folder, json.dumps(event).encode(), **env)
        assert run.code == 0 and run.err == "", run
        assert len(run.out.splitlines()) == 1 and run.out.startswith("{"), run.out
        return run

    def event(self, name: str, project: Path, **changes: Any) -> dict[str, Any]:
        text = (FIXTURES / "claude-code" / f"{name}.json").read_text(encoding="utf-8")
        text = text.replace("{{project}}", str(project)).replace("{{home}}", str(self.root))
        event: dict[str, Any] = json.loads(text)
        event.update(changes)
        return event

    def created(self, project: Path, number: int) -> dict[str, Any]:
        """A recorded TaskCreate with its own id and subject."""
        event = self.event("PostToolUse-TaskCreate-1", project)
        event["tool_input"]["subject"] = f"Task {number}"
        event["tool_response"]["task"] = {"id": str(number), "subject": f"Task {number}"}
        return event

    def address(self, **env: str) -> Path:
        code = "from plansight.warm.relay import address; print(address())"
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return Path(done.stdout.strip())

    def warm_pid(self, other_than: int | None = None, **env: str) -> int:
        """The warm process of these settings, once it listens (started by a command)."""
        path = self.address(**env)
        deadline = time.monotonic() + 60  # a guard against a hang, not a speed check
        while time.monotonic() < deadline:
            pid = running_pid(f"{path}.lock")
            if pid is not None and pid != other_than and listening(path):
                return pid
            time.sleep(0.05)
        raise AssertionError("no warm process started")

    def start_warm(self, folder: Path, **env: str) -> int:
        self.plansight(["sessions"], folder, **env)
        return self.warm_pid(**env)

    def stop(self) -> None:
        for lock in self.runtime.glob("plansight/*.lock"):
            pid = running_pid(str(lock))
            if pid is not None:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.runtime, ignore_errors=True)

    def log(self) -> list[str]:
        path = self.root / "state" / "plansight" / "hook.log"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def by(self) -> list[str]:
        return [line.split(" by=")[1].split()[0] for line in self.log()]


def listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def tasks(store_path: Path, session: str = SESSION) -> list[str]:
    store = SqliteStore(store_path)
    try:
        state = PlanService(store).get(GetParams(session=session))
    finally:
        store.close()
    return [task["content"] for phase in state["phases"] for task in phase["tasks"]]


def notes(store_path: Path, session: str = "default") -> list[str]:
    store = SqliteStore(store_path)
    try:
        state = PlanService(store).get(GetParams(session=session))
    finally:
        store.close()
    return [note for phase in state["phases"] for task in phase["tasks"] for note in task["notes"]]


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
