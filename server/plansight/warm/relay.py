"""`plansight hook AGENT` as the agent runs it: hand the event to a warm hook process.

An agent waits for its hook on every matching tool call. Loading the store and the rules
costs a fresh Python process about 100 ms; a warm one answers in a few. So the command is
a relay: it passes the event's bytes over a Unix socket to a hook process of the same
user and the same settings (`plansight hook-daemon`, started by the first event that
finds none, which waits for it, and gone after ten idle minutes) and prints what it
answers. When there is none, or it does not take the event in time, the event is handled
in this process, exactly as the warm one would. The one-shot commands shell agents run in
a loop (`plansight apply`, `write`, `ingest`...) are relayed the same way (`run_command`),
except those that name a file: the caller opens its own files (`warm/command_line.py`).

This is the relay's side of the protocol (`warm/protocol.py`; the warm side's loop is
`warm/daemon.py`): a request is run by the relay or by the warm process, never by both
(see the handover below), and an agent never waits long on a warm process that is
stopped or stuck.

Only the standard library's cheapest modules load here: this module is the whole cost of
a relayed event (the socket is `_socket`'s, the C module under `socket`, which would
add `enum` and `selectors` to every event's start-up). `PLANSIGHT_HOOK_DAEMON=0` turns the relay off.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

from plansight.conversation_link import agent_process
from plansight.folders import unsafe_folder
from plansight.hook import MAX_EVENT_BYTES
from plansight.hook.settings import settings_name
from plansight.warm.protocol import (
    COMMAND_BUDGET,
    CONNECT_WAIT_SECONDS,
    GO,
    HOOK_BUDGET,
    MAX_REPLY_BYTES,
    OWN,
    PROGRESS,
    QUEUED,
    READY,
    STALE,
    Budget,
    Handed,
    Reply,
    encode_request,
    parse_reply,
    read_all,
)

try:
    import fcntl
except ImportError:  # no locks, no Unix sockets worth the name: every event in its own process
    fcntl = None  # type: ignore[assignment]

STARTING_SECONDS = 10.0  # a warm process not listening this long after its start failed


def enabled() -> bool:
    return (
        fcntl is not None
        and hasattr(_socket, "AF_UNIX")
        and os.environ.get("PLANSIGHT_HOOK_DAEMON", "1") != "0"
    )


# A Unix socket's path is at most 107 bytes on Linux (103 on macOS); the socket's own
# name takes 26 of them.
LONGEST_FOLDER = 72


def folder() -> str:
    """Where the warm processes' sockets live: the user's runtime folder, else (or when
    its path is too long for a socket) a folder of the user's own in /tmp."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime) and os.path.isdir(runtime):
        inside = os.path.join(runtime, "plansight")
        if len(os.fsencode(inside)) <= LONGEST_FOLDER:
            return inside
    return os.path.join("/tmp", f"plansight-{os.geteuid()}")


def address() -> str:
    """The socket of the warm process for this user, interpreter, package and settings:
    every environment variable that can change what the hook does is part of its name,
    so a warm process only ever answers for events it would handle the same way."""
    return os.path.join(folder(), f"hook-{settings_name()}.sock")


def relay(
    kind: str,
    args: list[str],
    data: bytes,
    cwd: str,
    budget: Budget,
    started: float | None = None,
) -> Reply | Handed | None:
    """What the warm process answers to one request: `kind` is `hook` (`args`: the agent)
    or `cli` (`args`: the command line), `data` what it reads on stdin. None when the
    caller must run it itself: there is no warm process, or it did not take the request
    in time (it then never runs it); `Handed` when it took it and did not answer.
    `started`: when the caller began to wait (the budget's `ready` counts from it)."""
    path = address()
    refused = unsafe_folder(os.path.dirname(path), create=False)
    if refused is not None:
        if os.path.lexists(os.path.dirname(path)):
            note_refused_folder(os.path.dirname(path), refused)
        return None
    why.given_up = None
    if started is None:
        started = time.monotonic()
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_WAIT_SECONDS)
        try:
            connection.connect(path)
        except OSError:
            return None  # none yet, or one that left its socket behind
        mask = os.umask(0o077)  # read, and put back at once: files it creates are made so
        os.umask(mask)
        request = encode_request(kind, cwd, mask, dict(os.environ), args, data)
        try:
            connection.sendall(request)
            if not _handed_over(connection, started, budget):
                return None  # closing now tells it to drop the request
        except OSError:  # it never had the whole request, or never got GO
            why.given_up = why.given_up or "warm process: closed the connection"
            return None
        connection.settimeout(budget.answer)
        try:
            reply = read_all(connection, MAX_REPLY_BYTES)
        except TimeoutError:
            return Handed(waited=True)
        except OSError:
            return Handed(waited=False)
        parsed = parse_reply(reply)
        return parsed if parsed is not None else Handed(waited=False)
    finally:
        connection.close()


class _Why:
    """Why the last `relay` call left its request to the caller, for the caller's log
    line (None: there was no warm process to ask)."""

    given_up: str | None = None


why = _Why()


def _handed_over(connection: _socket.socket, started: float, budget: Budget) -> bool:
    """Wait for READY as long as the warm process shows it is alive and its queue moves,
    then send GO; False (and nothing sent, the reason in `why`) when it is not to have
    the request."""
    alive = False
    while True:
        left = budget.ready - (time.monotonic() - started)
        wait = min(budget.stall if alive else budget.alive, left)
        if wait <= 0:
            why.given_up = f"warm process: not its turn within {budget.ready:g} s"
            return False
        connection.settimeout(wait)
        try:
            signal = connection.recv(1)
        except TimeoutError:
            why.given_up = (
                f"warm process: its queue did not move for {budget.stall:g} s"
                if alive
                else f"warm process: no sign of life within {budget.alive:g} s"
            )
            return False
        if signal == READY:
            why.given_up = "warm process: gone before it was handed the request"
            connection.sendall(GO)  # fails when it gave up on us first: then it is ours
            why.given_up = None
            return True
        if signal not in (QUEUED, PROGRESS):
            why.given_up = _REFUSALS.get(signal, "warm process: gone")
            return False
        alive = True


_REFUSALS = {
    STALE: "warm process: its code changed",
    OWN: "warm process: runs nothing for this caller (another folder view, sandbox or user)",
}


def note_refused_folder(folder_path: str, reason: str) -> None:
    """Log once (per folder and reason) why no warm process may run: every hook then runs
    in its own process, and a person wondering why should find it said."""
    from plansight.logs import log_line
    from plansight.paths import state_folder

    marker = state_folder() / "warm-refused"
    said = f"{folder_path} {reason}"
    try:
        if marker.read_text(encoding="utf-8", errors="replace") == said:
            return
    except OSError:
        pass
    try:
        marker.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        marker.write_text(said, encoding="utf-8")
    except OSError:
        return  # not logged every time either: a state folder that cannot be written
    log_line({"by": "relay"}, f"no warm process: its folder {folder_path} {reason}", 0.0)


def wait_listening(seconds: float) -> bool:
    """Wait until the warm process another hook is starting listens (True), at most
    `seconds`. Hooks of many tool calls at once are then answered one by one by it
    instead of each loading the store's code in its own process at the same time."""
    path = address()
    marker = path + ".starting"
    if not os.path.lexists(marker):
        return False  # nobody is starting one
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return True
        except OSError:
            if not os.path.lexists(marker):
                # Gone: it listens now (removed just after), or the start failed.
                return _listening(path)
            if _failed_start(marker, path + ".lock"):
                return False
        finally:
            probe.close()
        time.sleep(0.02)
    return False


LOCKED_WITHIN_SECONDS = 3.0  # a warm process takes its lock before it loads anything


def _failed_start(marker: str, lock: str) -> bool:
    """The process a hook started is not running: none holds the lock long after."""
    try:
        age = time.time() - os.lstat(marker).st_mtime
    except OSError:
        return False
    return age > LOCKED_WITHIN_SECONDS and running_pid(lock) is None


def _listening(path: str) -> bool:
    probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def start_warm_process() -> bool:
    """Start `plansight hook-daemon` on its own, detached from the agent's hook: in a
    session of its own, with none of the agent's pipes (the agent waits for the hook's
    output to close, never for it). Hooks of parallel tool calls start one between them:
    a marker says one is starting, until it listens (or it is older than a start takes).
    True when this call started it."""
    if not _mark_starting(address() + ".starting"):
        return False
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    command = [sys.executable, "-m", "plansight", "hook-daemon"]
    try:
        try:
            os.posix_spawn(sys.executable, command, os.environ, file_actions=quiet, setsid=True)
        except NotImplementedError:  # no new session here: in the agent's, then
            os.posix_spawn(sys.executable, command, os.environ, file_actions=quiet)
    except (AttributeError, OSError):
        _forget(address() + ".starting")  # nobody waits for one that never started
        return False
    return True


def _forget(path: str) -> None:
    """Remove `path` if it is there (`contextlib` is not loaded on a relay's path)."""
    try:
        os.unlink(path)
    except OSError:
        return


def _mark_starting(marker: str) -> bool:
    """True when this hook is the one to start the warm process."""
    if unsafe_folder(os.path.dirname(marker)) is not None:
        return False
    if running_pid(marker.removesuffix(".starting") + ".lock") is not None:
        return False  # one holds the lock: it is about to listen
    for _ in range(2):
        try:
            os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            return True
        except FileExistsError:
            try:
                if time.time() - os.lstat(marker).st_mtime < STARTING_SECONDS:
                    return False  # another hook started one a moment ago
                os.unlink(marker)  # that one never came up: try again
            except FileNotFoundError:
                return False  # it came up just now
            except OSError:
                return False
        except OSError:
            return False
    return False


def running_pid(lock_path: str) -> int | None:
    """The pid of the warm process holding `lock_path`, or None when none holds it (a pid
    left in the file may belong to another process by now: only a held lock counts)."""
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return int(pid) if pid.isdigit() and int(pid) > 0 else None
        return None  # the lock was free: nobody runs
    finally:
        os.close(fd)


def run_hook(agent: str) -> int:
    """Read one event on stdin, print the one JSON object to answer it; always 0."""
    started = time.monotonic()
    try:
        event = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    except OSError:
        event = b""
    cwd = _cwd()
    # Named here, in the process the agent ran: the warm process is nobody's child.
    linked = agent_process()
    args = [agent] if linked is None else [agent, linked]
    relayed = enabled() and len(event) <= MAX_EVENT_BYTES and cwd is not None
    if relayed:
        assert cwd is not None
        reply = relay("hook", args, event, cwd, HOOK_BUDGET, started)
        # None answered: this hook starts one, and it and the hooks of tool calls at once
        # wait for it rather than each load the store's code beside it (the same work as
        # the warm process's start: on a loaded machine they all ran out of time).
        if reply is None:
            start_warm_process()
            # The budget counts from the hook's start: waiting for the start included.
            if wait_listening(HOOK_BUDGET.ready - (time.monotonic() - started)):
                reply = relay("hook", args, event, cwd, HOOK_BUDGET, started)
        if isinstance(reply, Handed) and reply.waited:
            _log_relay(agent, "handed to the warm process, no answer yet: it finishes it")
            reply = (0, b"{}\n", b"")  # the agent goes on; the warm process logs the rest
        if isinstance(reply, Handed):  # it went away running the event: run it here
            # Safe to run again: a plan tool call carries the plan's new state and an
            # edit its files, so an event applied twice leaves the store as once.
            _log_relay(agent, "the warm process left while running it: run here")
            reply = None
        if reply is not None:  # answered by the warm process: never run again here
            good = reply[1].startswith(b"{") and reply[1].endswith(b"\n")
            _write(sys.stdout, reply[1] if good else b"{}\n")
            return 0
    import io

    from plansight.hook.run import DEADLINE_SECONDS, main

    # What the relay waited is taken off the deadline: the agent's own limit is the same.
    left = max(DEADLINE_SECONDS - (time.monotonic() - started), 1.0)
    return main(
        [agent], stdin=io.BytesIO(event), deadline=left, note=why.given_up, agent_process=linked
    )


def _log_relay(agent: str, outcome: str) -> None:
    from plansight.logs import log_line

    log_line({"by": "relay", "agent": agent}, outcome, 0.0)


def run_command(args: list[str]) -> int | None:
    """A `relayable` command (`warm/command_line.py`) answered by the warm process: its
    exit code, its output printed; None when it must run here."""
    cwd = _cwd()
    if cwd is None:
        return None  # its own process says what a folder that is gone means
    data = b""
    if "-" in args:  # the command reads stdin: the warm process gets it whole
        try:
            data = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
        except OSError:
            return None
        too_big = len(data) > MAX_EVENT_BYTES
        if too_big:
            data += sys.stdin.buffer.read()
        sys.stdin = _Replayed(data)  # read again by the command if it runs here after all
        if too_big:
            return None
    reply = relay("cli", args, data, cwd, COMMAND_BUDGET)
    if reply is None:
        if why.given_up is not None:
            from plansight.logs import log_line

            log_line({"by": "relay", "command": args[0]}, f"run here: {why.given_up}", 0.0)
        return None
    if isinstance(reply, Handed):
        if reply.waited:
            said = b"has not answered within %d s; it will still apply it" % COMMAND_BUDGET.answer
        else:
            said = b"stopped while running it; it may or may not have been applied"
        _write(
            sys.stderr,
            b"plansight: the warm hook process took the command and " + said + b": "
            b"`plansight history` says (do not run it again blindly)\n",
        )
        return EXIT_HANDED
    code, out, err = reply
    _write(sys.stdout, out)
    _write(sys.stderr, err)
    return code


EXIT_HANDED = 3  # neither done (0, 1) nor refused (2): taken, its outcome not known yet


class _Replayed:
    """stdin, already read for the warm process, read again by the command run here."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)

    def read(self, size: int = -1) -> str:
        return self.buffer.read(size).decode()


def _write(stream: object, data: bytes) -> None:
    try:
        stream.buffer.write(data)  # type: ignore[attr-defined]
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError):
        pass  # the reader closed the pipe: nothing to tell it


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None
