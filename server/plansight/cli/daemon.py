"""`plansight hook-daemon`: the warm hook process `plansight hook` relays events to.

One per user, interpreter, package and settings (its socket's name says which, see
`relay.address`). It handles one event at a time, exactly as `plansight hook` would in
its own process (`run.main`, the same store, log and deadline), and the one-shot
commands relayed to it as `plansight ...` would (`cli.main`, in the caller's folder, with
its stdin, output and exit code). It leaves:
- after ten minutes without an event (an idle wait, no wake-ups);
- when a file of the package it runs changed (an upgrade, an edit in a clone): it answers
  `stale`, the relay handles that event itself and starts a fresh one;
- when its socket is removed or replaced.
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
from pathlib import Path
from typing import NamedTuple

from plansight.folders import unsafe_folder
from plansight.hook.relay import (
    MAX_EVENT_BYTES,
    RELAYED_COMMANDS,
    STALE,
    address,
    read_all,
    running_pid,
)
from plansight.hook.run import warm_up

IDLE_SECONDS = 600.0  # PLANSIGHT_HOOK_IDLE_SECONDS overrides it
REQUEST_WAIT_SECONDS = 5.0  # a relay sends its event at once; one that stalls is dropped
_PACKAGE = str(Path(__file__).resolve().parent.parent)


def serve() -> int:
    """Answer relayed events until idle, stale, stopped or replaced; always returns 0."""
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
    # Loaded before it listens: an event never waits for the loading, and the files
    # watched for a change are the ones it loaded.
    warm_up()
    stamps = _source_stamps()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound = -1
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by one that was killed: the lock says none is running
        old_umask = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(old_umask)
        listener.listen(64)
        bound = os.stat(path).st_ino
        with contextlib.suppress(OSError):
            os.unlink(path + ".starting")  # listening: the next hook may start another
        listener.settimeout(idle_seconds)
        signal.signal(signal.SIGTERM, _leave)
        while not _state.leaving:
            _state.busy = False
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                break
            _state.busy = True  # a stop waits for the event in hand: it may be committing
            with connection:
                fresh = _unchanged(stamps)
                _answer(connection, fresh)
            _source_stamps(into=stamps)  # what the command loaded, watched from now on
            if not fresh or not _still_ours(path, bound):
                break
    except _Leaving:
        pass
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == bound:
                os.unlink(path)
        # Removed while still held, then released: see the inode check in `_take_lock`.
        with contextlib.suppress(OSError):
            os.unlink(path + ".lock")
        os.close(lock)
    return 0


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


def _answer(connection: socket.socket, fresh: bool) -> None:
    connection.settimeout(REQUEST_WAIT_SECONDS)
    try:
        if not _same_user(connection):
            return
        request = _read_request(connection)
        if request is None:
            return
        if not fresh:
            connection.sendall(STALE)
            return
        args = request.args
        if request.kind == "hook" and len(args) == 1:
            run = _run_hook
        elif request.kind == "cli" and args and args[0] in RELAYED_COMMANDS:
            run = _run_command
        else:
            return  # not a request of ours: the relay runs it itself
        mask = os.umask(request.umask)
        try:
            code, out, err = run(args, request.cwd, request.data)
        finally:
            os.umask(mask)
        connection.sendall(b"%d %d\n" % (code, len(out)) + out + err)
    except OSError:
        pass  # the relay went away; it prints `{}` or runs the command itself


def _run_hook(args: list[str], cwd: str, data: bytes) -> tuple[int, bytes, bytes]:
    from plansight.hook.run import main

    out = io.StringIO()
    code = main(args, stdin=io.BytesIO(data), stdout=out, cwd=cwd, warm=True)
    return code, out.getvalue().encode("utf-8", "surrogateescape"), b""


def _run_command(args: list[str], cwd: str, data: bytes) -> tuple[int, bytes, bytes]:
    """`plansight ARGS` as it runs in its own process: in the caller's folder, with its
    stdin, its output and its exit code (argparse's and `_fail`'s SystemExit included)."""
    import logging
    import time

    from plansight.cli.main import main
    from plansight.hook.run import log_line

    started = time.perf_counter()
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr, logging.getLogger().handlers[:]
    here = os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        os.chdir(cwd)
        code = main(args)
    except SystemExit as leaving:
        code = _exit_code(leaving.code, err)
    except OSError:  # the caller's folder is gone: as its own process would have failed
        err.write("plansight: the current folder cannot be used\n")
        code = 2
    except Exception as exc:  # the command's own handler let a bug through
        err.write(f"plansight: internal error ({exc.__class__.__name__})\n")
        code = 2
    finally:
        sys.stdin, sys.stdout, sys.stderr, handlers = saved
        logging.getLogger().handlers[:] = handlers
        os.chdir(here)
    # The command alone: its arguments may hold a plan, which the store keeps, not the log.
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


class Request(NamedTuple):
    """What a relay sends: `kind\0cwd\0umask\0count\0arg\0...arg\0` then stdin's bytes."""

    kind: str  # `hook` or `cli`
    cwd: str  # the caller's folder
    umask: int  # the caller's: a store the command creates is made as the caller would
    args: list[str]
    data: bytes


def _read_request(connection: socket.socket) -> Request | None:
    limit = MAX_EVENT_BYTES + 65536  # the event, and the command line before it
    received = read_all(connection, limit)
    if len(received) > limit:
        return None
    fields = received.split(b"\0", 4)
    if len(fields) != 5 or not fields[2].isdigit() or not fields[3].isdigit():
        return None
    kind, cwd, mask, count, rest = fields
    parts = rest.split(b"\0", int(count))
    if len(parts) != int(count) + 1:
        return None
    args = [os.fsdecode(part) for part in parts[:-1]]
    return Request(os.fsdecode(kind), os.fsdecode(cwd), int(mask) & 0o777, args, parts[-1])


def _same_user(connection: socket.socket) -> bool:
    """The folder is the user's own already; where the system says who is on the other
    end, it must be the same user too."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    import struct

    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    _, uid, _ = struct.unpack("3i", credentials)
    return int(uid) == os.geteuid()


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
