"""`plansight hook-daemon`: the warm hook process `plansight hook` relays events to.

One per user, interpreter, package and settings (its socket's name says which, see
`relay.address`). It runs one request at a time, exactly as `plansight hook` would in
its own process (`run.main`, the same store, log and deadline), and the one-shot
commands relayed to it as `plansight ...` would (`cli.main`), each as its caller: in the
caller's folder, with its environment (time zone, locale, settings), umask and stdin.
It never depends on its own starting folder (it moves to `/`).

Requests are read by a thread per connection (at most `MAX_READERS`, each with a whole
deadline), so a client that trickles its bytes holds up nobody; the one worker (the main
thread: the hook's deadline is an alarm) takes them in order. The handover is the
protocol's (`warm/protocol.py`): the relay may run a request itself until it sends GO,
never after; a request is not run here before GO. A caller in another mount namespace,
root, credentials or sandbox (no_new_privs, seccomp) is told to run its requests itself:
they must never reach what that caller cannot.

It leaves:
- after ten minutes without a request (an idle wait, no wake-ups);
- when a file of the package it runs changed (an upgrade, an edit in a clone): it answers
  `stale`, the relay handles that request itself and starts a fresh one;
- when its socket is removed or replaced; on SIGTERM, once the request in hand is done
  (those queued behind it are handed back: their relays run them);
- recycled, after a request of more than `RECYCLE_AFTER_BYTES` (a `Write` of a large
  file) or once it has grown `RECYCLE_GROWTH_BYTES` past its size at the start: the
  memory such a request took stays with the process (the C allocator keeps it), so it
  starts a fresh one in its place and gives up its name (`_recycle`), answers what it
  has queued and what reaches it until the fresh one listens, then leaves. No request
  is dropped, and the next ones find a warm process as before.
A second one started at the same time finds the first one's lock held and leaves at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from plansight.folders import unsafe_folder
from plansight.hook import MAX_EVENT_BYTES
from plansight.hook.run import warm_up
from plansight.logs import log_line
from plansight.warm.protocol import (
    GO,
    OWN,
    PROGRESS,
    QUEUED,
    READY,
    STALE,
    Request,
    decode_request,
    encode_reply,
)
from plansight.warm.relay import address, running_pid
from plansight.warm.relayed import COMMANDS as RELAYED_COMMANDS

# `plansight ARGS` run in this process: `cli.main.main`, handed to `serve`.
CliMain = Callable[[list[str]], int]
_cli_main: CliMain | None = None

IDLE_SECONDS = 600.0  # PLANSIGHT_HOOK_IDLE_SECONDS overrides it
REQUEST_WAIT_SECONDS = 2.0  # a relay sends its request at once; one that stalls is dropped
GO_WAIT_SECONDS = 1.0  # a relay sends GO as soon as it reads READY
MAX_READERS = 64  # beyond it a connection is closed at once: its relay runs the request
MAX_REQUEST_BYTES = MAX_EVENT_BYTES + 1024 * 1024  # the event, the environment, the arguments
# A hook event taken over is finished here even when its relay stopped waiting; the alarm
# is only a backstop against a hang.
WARM_HOOK_DEADLINE_SECONDS = 60.0
# A request this large leaves the process three to four times its size larger (20 MB:
# from 24 to 102 MB resident, measured); growth from many smaller ones is bounded too.
RECYCLE_AFTER_BYTES = 8 * 1024 * 1024
RECYCLE_GROWTH_BYTES = 128 * 1024 * 1024
# How long a recycled process serves on while its successor starts (`relay.py`:
# a start that takes longer failed), and how often it looks whether that one listens.
SUCCESSOR_WAIT_SECONDS = 10.0
SUCCESSOR_POLL_SECONDS = 0.05
_PACKAGE = str(Path(__file__).resolve().parent.parent)


class _Queue:
    """Requests read whole, in the order they were, with their connections."""

    def __init__(self) -> None:
        self.ready = threading.Condition()
        self.items: deque[tuple[socket.socket, Request]] = deque()
        self.last_seen = time.monotonic()

    def arrived(self) -> None:
        with self.ready:
            self.last_seen = time.monotonic()

    def put(self, connection: socket.socket, request: Request) -> None:
        with self.ready:
            self.items.append((connection, request))
            self.ready.notify()

    def take(self, idle: float) -> tuple[socket.socket, Request] | None:
        """The next request; None after `idle` seconds with no connection at all."""
        with self.ready:
            while not self.items:
                left = idle - (time.monotonic() - self.last_seen)
                if left <= 0:
                    return None
                self.ready.wait(left)
            item = self.items.popleft()
            # Those behind it see the queue move: their relays keep waiting for them.
            for waiting, _ in self.items:
                _signal(waiting, PROGRESS)
            return item

    def hand_back(self, signal_byte: bytes | None) -> None:
        """Every queued request goes back to its relay, which runs it itself."""
        with self.ready:
            while self.items:
                connection, _ = self.items.popleft()
                if signal_byte is not None:
                    _signal(connection, signal_byte)
                connection.close()


def serve(cli_main: CliMain) -> int:
    """Answer relayed requests until idle, stale, stopped or replaced; always returns 0.
    `cli_main` runs a relayed command as `plansight ARGS` would (given by the entry, which
    loads the CLI at the first relayed command)."""
    global _cli_main
    _cli_main = cli_main
    idle_seconds = _idle_seconds()
    path = address()
    if unsafe_folder(os.path.dirname(path)) is not None:
        return 0
    lock = _take_lock(path + ".lock")
    if lock is None:
        # Another one is starting or running for these settings; the marker that kept
        # other hooks from starting one more is not needed to stop them now.
        with contextlib.suppress(OSError):
            os.unlink(path + ".starting")
        return 0
    os.chdir("/")  # its starting folder may be removed; requests run in their caller's
    # Loaded before it listens: an event never waits for the loading, and the files
    # watched for a change are the ones it loaded.
    warm_up()
    stamps = _source_stamps()
    started_size = _resident_bytes()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    queue = _Queue()
    bound = -1
    recycled: float | None = None  # when it gave up its name to a successor
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by one that was killed (or is recycled): the lock is ours
        old_umask = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(old_umask)
        listener.listen(64)
        bound = os.stat(path).st_ino
        with contextlib.suppress(OSError):
            os.unlink(path + ".starting")  # listening: the next hook may start another
        signal.signal(signal.SIGTERM, _leave)
        threading.Thread(target=_accept, args=(listener, queue), daemon=True).start()
        while not _state.leaving:
            _state.busy = False
            item = queue.take(idle_seconds if recycled is None else SUCCESSOR_POLL_SECONDS)
            if item is None:
                if recycled is not None and _successor_pending(path, bound, recycled):
                    continue
                break
            _state.busy = True  # a stop waits for the request in hand: it may be committing
            connection, request = item
            del item  # nothing of a request outlives it (an idle wait held the last one)
            outsized = len(request.data) > RECYCLE_AFTER_BYTES
            with connection:
                # Recycled, its successor takes the socket: what was queued here is still ours.
                ours = recycled is not None or _still_ours(path, bound)
                if not _unchanged(stamps) or not ours:
                    _signal(connection, STALE)
                    break
                _run(connection, request)
            del connection, request
            _source_stamps(into=stamps)  # what the command loaded, watched from now on
            if recycled is None and (outsized or _grown(started_size)):
                _recycle(path + ".lock", lock)
                recycled = time.monotonic()
    except _Leaving:
        pass
    finally:
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        queue.hand_back(STALE)
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == bound:
                os.unlink(path)
        # Removed while still held, then released: see the inode check in `_take_lock`.
        # (Recycled, the lock file there is its successor's.)
        _release_name(path + ".lock", lock)
        os.close(lock)
    return 0


def _resident_bytes() -> int | None:
    """The process's resident memory now (Linux: /proc), None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _grown(started_size: int | None) -> bool:
    now = _resident_bytes()
    return (
        started_size is not None and now is not None and now > started_size + (RECYCLE_GROWTH_BYTES)
    )


def _recycle(lock_path: str, lock: int) -> None:
    """Give up the name and start a fresh warm process in its place: it takes the lock
    (a new file at the same path) and then the socket, and this one leaves once its
    queue is empty and the socket is the fresh one's (`_successor_pending`)."""
    from plansight.warm.relay import start_warm_process

    _release_name(lock_path, lock)
    log_line({"by": "warm"}, "recycled: a fresh warm process takes over", 0.0)
    start_warm_process()


def _release_name(lock_path: str, lock: int) -> None:
    """Remove the lock file if it is still this process's own."""
    with contextlib.suppress(OSError):
        if os.stat(lock_path).st_ino == os.fstat(lock).st_ino:
            os.unlink(lock_path)


def _successor_pending(path: str, bound: int, recycled: float) -> bool:
    """Whether a recycled process serves on: its socket is still its own (its successor
    does not listen yet), for `SUCCESSOR_WAIT_SECONDS` at most."""
    waited = time.monotonic() - recycled
    return _still_ours(path, bound) and waited < SUCCESSOR_WAIT_SECONDS


def stop() -> bool:
    """Stop the warm process for this environment's settings, if one runs; True when
    there was one."""
    pid = running_pid(address() + ".lock")
    if pid is None:
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return False
    return True


def _idle_seconds() -> float:
    try:
        seconds = float(os.environ.get("PLANSIGHT_HOOK_IDLE_SECONDS", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS
    return seconds if 0 < seconds < 86400 else IDLE_SECONDS


class _Leaving(BaseException):
    """Raised by SIGTERM while waiting for an event (a BaseException: nothing swallows it)."""


class _State:
    busy = False
    leaving = False


_state = _State()


def _leave(signum: int, frame: object) -> None:
    _state.leaving = True
    if not _state.busy:
        raise _Leaving()


def _accept(listener: socket.socket, queue: _Queue) -> None:
    readers = threading.BoundedSemaphore(MAX_READERS)
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            return  # closed: it is leaving
        queue.arrived()
        if not readers.acquire(blocking=False):
            connection.close()  # too many at once: their relays run them themselves
            continue
        threading.Thread(target=_receive, args=(connection, queue, readers), daemon=True).start()


def _receive(connection: socket.socket, queue: _Queue, readers: threading.BoundedSemaphore) -> None:
    """Read one request whole within its deadline and queue it (or send the caller back)."""
    try:
        queued = False
        try:
            request = _read_request(connection, time.monotonic() + REQUEST_WAIT_SECONDS)
            if request is None:
                return
            connection.settimeout(REQUEST_WAIT_SECONDS)
            # Read whole first, so that the relay reads the answer rather than a reset.
            if not _same_place(connection):
                connection.sendall(OWN)
                return
            connection.sendall(QUEUED)
            queue.put(connection, request)
            queued = True
        except OSError:
            pass  # the relay went away, or it was too slow: it runs the request itself
        finally:
            if not queued:
                connection.close()
    finally:
        readers.release()


def _signal(connection: socket.socket, byte: bytes) -> None:
    with contextlib.suppress(OSError):
        connection.settimeout(0.2)
        connection.sendall(byte)


def _run(connection: socket.socket, request: Request) -> None:
    """Run one request as its caller would in its own process, once it is handed over."""
    args = request.args
    # A hook's arguments: its agent, and the agent's process when its relay named it.
    if request.kind == "hook" and len(args) in (1, 2):
        run = _run_hook
    elif request.kind == "cli" and args and args[0] in RELAYED_COMMANDS:
        run = _run_command
    else:
        _signal(connection, OWN)  # not a request of ours: the relay runs it itself
        return
    try:
        with _as_caller(request):
            if not _handed_over(connection):
                what = {"agent": args[0]} if request.kind == "hook" else {"command": args[0]}
                log_line({"by": "warm", **what}, "not run here: its relay ran it itself", 0.0)
                return
            code, out, err = run(args, request.cwd, request.data)
    except OSError:  # the caller's folder is gone: its own process says what that means
        _signal(connection, OWN)
        return
    with contextlib.suppress(OSError):
        connection.settimeout(REQUEST_WAIT_SECONDS)
        connection.sendall(encode_reply(code, out, err))


def _handed_over(connection: socket.socket) -> bool:
    """READY, then GO from the relay: only then is the request ours to run. A relay too
    slow to answer READY loses it (it runs the request itself): shutting our reading side
    makes its GO fail to send from then on, and a GO sent before is still read here."""
    try:
        connection.settimeout(GO_WAIT_SECONDS)
        connection.sendall(READY)
        try:
            answer = connection.recv(1)
        except TimeoutError:
            connection.shutdown(socket.SHUT_RD)
            answer = connection.recv(1, socket.MSG_DONTWAIT)
    except OSError:
        return False
    return answer == GO


@contextlib.contextmanager
def _as_caller(request: Request) -> Iterator[None]:
    """The process as the caller's own would be: its folder, environment (`TZ` and the
    locale included), umask; everything put back after, so nothing of one request
    reaches the next. OSError when its folder cannot be entered."""
    saved = dict(os.environ)
    mask = os.umask(request.umask)
    try:
        os.environ.clear()
        os.environ.update(request.env)
        time.tzset()
        os.chdir(request.cwd)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        time.tzset()
        os.umask(mask)
        with contextlib.suppress(OSError):
            os.chdir("/")


def _run_hook(args: list[str], cwd: str, data: bytes) -> tuple[int, bytes, bytes]:
    from plansight.hook.run import main

    out = io.StringIO()
    code = main(
        args[:1],
        stdin=io.BytesIO(data),
        stdout=out,
        cwd=cwd,
        warm=True,
        deadline=WARM_HOOK_DEADLINE_SECONDS,
        agent_process=args[1] if len(args) > 1 else None,
    )
    return code, out.getvalue().encode("utf-8", "surrogateescape"), b""


def _run_command(args: list[str], cwd: str, data: bytes) -> tuple[int, bytes, bytes]:
    """`plansight ARGS` as it runs in its own process: in the caller's folder (entered by
    `_as_caller`), with its stdin, its output and its exit code (argparse's and `_fail`'s
    SystemExit included)."""
    import logging

    main = _cli_main
    assert main is not None, "serve() sets it before any request"
    started = time.perf_counter()
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr, logging.getLogger().handlers[:]
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        code = main(args)
    except SystemExit as leaving:
        code = _exit_code(leaving.code, err)
    except Exception as exc:  # the command's own handler let a bug through
        err.write(f"plansight: internal error ({exc.__class__.__name__})\n")
        code = 2
    finally:
        sys.stdin, sys.stdout, sys.stderr, handlers = saved
        logging.getLogger().handlers[:] = handlers
    # The command alone: its arguments may hold a plan, which the store holds, not the log.
    log_line({"by": "warm", "command": args[0]}, f"exit {code}", time.perf_counter() - started)
    encode = "utf-8", "surrogateescape"
    return code, out.getvalue().encode(*encode), err.getvalue().encode(*encode)


def _exit_code(code: object, err: io.StringIO) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err.write(f"{code}\n")
    return 1


def _read_request(connection: socket.socket, deadline: float) -> Request | None:
    """`<length>\n` and the request's bytes, all before `deadline`; None when cut off,
    malformed or too large (TimeoutError when too slow)."""
    received = bytearray()
    length = -1
    while length < 0 or len(received) < length:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        connection.settimeout(left)
        chunk = connection.recv(min(65536, length - len(received)) if length >= 0 else 32)
        if not chunk:
            return None
        received += chunk
        if length < 0:
            head, newline, rest = bytes(received).partition(b"\n")
            if not newline:
                if len(received) > 20:
                    return None
                continue
            if not head.isdigit() or int(head) > MAX_REQUEST_BYTES:
                return None
            length = int(head)
            received = bytearray(rest)
    return decode_request(received)


def _same_place(connection: socket.socket) -> bool:
    """The folder is the user's own already; where the system says who is on the other
    end, it must also have the same credentials and see the same files with the same
    rights: the same mount namespace and root, and no sandbox of its own (a caller under
    no_new_privs or seccomp, as agents' sandboxes are, may be denied what we are not)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    import struct

    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    pid, uid, gid = struct.unpack("3i", credentials)
    if uid != os.geteuid() or gid != os.getegid():
        return False
    if not os.path.isdir("/proc/self"):
        return True
    return _where(str(pid)) == _where("self")


def _where(pid: str) -> tuple[object, ...] | None:
    """What decides which files a process reaches: None when it cannot be read."""
    try:
        namespace = os.readlink(f"/proc/{pid}/ns/mnt")
        root = os.stat(f"/proc/{pid}/root")
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            limits = [
                line.split()
                for line in status
                if line.startswith(("NoNewPrivs:", "Seccomp:", "CapEff:", "Gid:", "Uid:"))
            ]
    except OSError:
        return ("unreadable", pid)  # never equal to ours: its requests run in its own process
    return namespace, root.st_dev, root.st_ino, limits


def _take_lock(path: str) -> int | None:
    """The lock that makes this the one warm process for its settings, or None when
    another holds it. It is removed when its holder leaves, so a lock taken on a file
    that is no longer at `path` guards nothing: then it is taken again."""
    for _ in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except OSError:
            os.close(fd)
            return None
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            return fd
        os.close(fd)
    return None


def _unchanged(stamps: dict[str, int]) -> bool:
    """No file the process loaded at start changed since."""
    for source, stamp in stamps.items():
        try:
            if os.stat(source).st_mtime_ns != stamp:
                return False
        except OSError:
            return False
    return True


def _source_stamps(into: dict[str, int] | None = None) -> dict[str, int]:
    """When each loaded file of the package last changed (`into`: adding those not in it)."""
    stamps: dict[str, int] = {} if into is None else into
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if source and source.startswith(_PACKAGE) and source not in stamps:
            try:
                stamps[source] = os.stat(source).st_mtime_ns
            except OSError:
                stamps[source] = -1
    return stamps


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False
