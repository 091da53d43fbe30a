"""A small synchronous LSP client that speaks raw bytes to a real `plansight serve`.

The reliability tests need to send things no well-behaved client would (broken framing,
invalid JSON, lone surrogates), and to pipeline thousands of requests over one process,
so this client writes bytes itself and reads the answers back with a hang guard.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

# Only a guard against a server that stopped answering; never a measure of speed.
HANG_SECONDS = 60.0

Json = dict[str, Any]


class ServerHung(AssertionError):
    """The server sent nothing for HANG_SECONDS while an answer was due."""


class ServerGone(AssertionError):
    """The server closed its output while an answer was due."""


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(payload: Any) -> bytes:
    return json.dumps(payload).encode()


def server_command(db: str | os.PathLike[str] | None) -> list[str]:
    command = [sys.executable, "-m", "plansight", "serve"]
    if db is not None:
        command += ["--db", str(db)]
    return command


class WireClient:
    """One `plansight serve` process and the raw pipes to it.

    Started cold (`python -m plansight serve`, the way an editor starts it) unless made
    by a `Zygote`, which forks the same entry point from a process that has already
    imported everything (for the crash loop, which starts hundreds of servers).
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None,
        *,
        log_dir: Path,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.stderr_path = _log_path(log_dir)
        self._stderr = self.stderr_path.open("wb")
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            server_command(db),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._attach(self.proc.pid, self.proc.stdin, self.proc.stdout.fileno())

    def _attach(self, pid: int, stdin: BinaryIO, stdout_fd: int) -> None:
        self._pid = pid
        self._in = stdin
        self._out = stdout_fd
        self._buffer = bytearray()
        self._next_id = 0
        self.notifications: list[Json] = []
        self.eof = False

    @property
    def pid(self) -> int:
        return self._pid

    # ------------------------------------------------------------ sending

    def send_bytes(self, data: bytes) -> None:
        self._in.write(data)
        self._in.flush()

    def send(self, payload: Any) -> None:
        self.send_bytes(frame(encode(payload)))

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        msg_id = self.new_id()
        message: Json = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------ receiving

    def _fill(self, timeout: float) -> bool:
        """Read what the server wrote; False at the end of its output."""
        ready, _, _ = select.select([self._out], [], [], timeout)
        if not ready:
            raise ServerHung(f"no answer from the server in {timeout:.0f} s")
        chunk = os.read(self._out, 1 << 20)
        if not chunk:
            self.eof = True
            return False
        self._buffer += chunk
        return True

    def read_message(self, timeout: float = HANG_SECONDS, killed: bool = False) -> Json | None:
        """The next framed message, or None when the server closed its output. Only a
        server that was `killed` may have left half a message behind."""
        while True:
            end = self._buffer.find(b"\r\n\r\n")
            if end >= 0:
                header = bytes(self._buffer[:end]).decode("ascii")
                fields = dict(line.split(": ", 1) for line in header.split("\r\n") if line.strip())
                length = int(fields["Content-Length"])
                start = end + 4
                if len(self._buffer) >= start + length:
                    body = bytes(self._buffer[start : start + length])
                    del self._buffer[: start + length]
                    return json.loads(body)
            if self.eof or not self._fill(timeout):
                half = self._buffer.strip()
                assert killed or not half, f"the server left half a message: {half[:300]!r}"
                return None

    def response(self, msg_id: Any, timeout: float = HANG_SECONDS) -> Json:
        """Wait for the answer to `msg_id`, keeping the notifications that come first."""
        while True:
            message = self.read_message(timeout)
            if message is None:
                raise ServerGone(f"the server closed before answering request {msg_id!r}")
            if "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            if "method" in message:
                continue  # a request from the server (none expected); not ours to answer
            assert message.get("id") == msg_id, f"answer for {message.get('id')!r}, not {msg_id!r}"
            return message

    def responses(self, ids: Iterable[Any]) -> list[Json]:
        return [self.response(msg_id) for msg_id in ids]

    def call(self, method: str, params: Any = None, **kwargs: Any) -> Json:
        return self.response(self.request(method, params, **kwargs))

    def result(self, method: str, params: Any = None) -> Any:
        answer = self.call(method, params)
        assert "error" not in answer, answer
        return answer["result"]

    # ------------------------------------------------------------ life cycle

    def initialize(self, options: Json | None = None, root: str | None = None) -> Json:
        params: Json = {"processId": os.getpid(), "rootUri": None, "capabilities": {}}
        if root is not None:
            params["rootUri"] = Path(root).as_uri()
        if options is not None:
            params["initializationOptions"] = {"plansight": options}
        answer = self.call("initialize", params)
        assert "result" in answer, answer
        self.notify("initialized", {})
        return answer["result"]

    def shutdown(self) -> int:
        """The polite end: shutdown, exit, and the exit code."""
        answer = self.call("shutdown", None)
        assert "error" not in answer, answer
        self.notify("exit", None)
        return self.wait_exit()

    def close_input(self) -> None:
        with contextlib.suppress(BrokenPipeError):
            self._in.close()

    def wait_exit(self, timeout: float = HANG_SECONDS) -> int | None:
        """The exit code once the process is gone (None when it was not our child)."""
        if self.proc is not None:
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                raise ServerHung(f"the server did not exit within {timeout:.0f} s") from None
        deadline = time.monotonic() + timeout
        while _alive(self._pid):
            if time.monotonic() > deadline:
                raise ServerHung(f"the server did not exit within {timeout:.0f} s")
            time.sleep(0.002)
        return None

    def kill(self) -> None:
        """SIGKILL, then wait until the process is gone."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        self.wait_exit()
        self.cleanup()

    def cleanup(self) -> None:
        with contextlib.suppress(OSError):
            self._in.close()
        if self.proc is not None:
            assert self.proc.stdout is not None
            self.proc.stdout.close()
        elif self._out >= 0:
            os.close(self._out)
            self._out = -1
        self._stderr.close()

    def stderr_text(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def _log_path(log_dir: Path) -> Path:
    log_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkstemp(prefix="server-", suffix=".log", dir=log_dir)[1])


def proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line)


def rss_bytes(pid: int) -> int:
    return int(proc_status(pid)["VmRSS"].split()[0]) * 1024


def wait_until_sleeping(pid: int) -> None:
    """The process blocks waiting for input: a busy loop would never be seen sleeping."""
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        if proc_status(pid)["State"].strip().startswith("S"):
            return
        time.sleep(0.005)
    raise AssertionError("the server never went idle: it spins")


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] not in ("Z", "X")


ZYGOTE = Path(__file__).with_name("reliability_zygote.py")


class Zygote:
    """A process that has imported Plansight and forks `plansight serve` on demand:
    the same code from `main(["serve", ...])` on, without the interpreter's start-up."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, str(ZYGOTE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(workdir / "zygote.log").open("wb"),
        )
        self._lock = threading.Lock()
        self._count = 0
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == b"ready\n"

    def spawn(self, db: str | os.PathLike[str]) -> WireClient:
        with self._lock:
            self._count += 1
            fifo_in = self.workdir / f"in-{self._count}"
            fifo_out = self.workdir / f"out-{self._count}"
            os.mkfifo(fifo_in)
            os.mkfifo(fifo_out)
            log = _log_path(self.workdir / "logs")
            # Our reading end first, so the child's open for writing does not block.
            out_fd = os.open(fifo_out, os.O_RDONLY | os.O_NONBLOCK)
            order = {"in": str(fifo_in), "out": str(fifo_out), "db": str(db), "log": str(log)}
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps(order).encode() + b"\n")
            self.proc.stdin.flush()
            pid = int(self.proc.stdout.readline())
        # The child opens its end of `out`, then of `in`: once we can open `in` for
        # writing, both pipes are connected.
        deadline = time.monotonic() + HANG_SECONDS
        while True:
            try:
                in_fd = os.open(fifo_in, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as exc:
                if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise
                if not _alive(pid):
                    raise ServerGone("the forked server died before it started") from None
                time.sleep(0.001)
        os.set_blocking(in_fd, True)
        os.set_blocking(out_fd, True)
        fifo_in.unlink()
        fifo_out.unlink()
        client = WireClient.__new__(WireClient)
        client.proc = None
        client.stderr_path = log
        client._stderr = log.open("ab")
        client._attach(pid, os.fdopen(in_fd, "wb"), out_fd)
        return client

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(HANG_SECONDS)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
