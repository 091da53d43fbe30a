"""`plansight hook AGENT` as the agent runs it: hand the event to a warm hook process.

An agent waits for its hook on every matching tool call. Loading the store and the rules
costs a fresh Python process about 100 ms; a warm one answers in a few. So the command is
a relay: it passes the event's bytes over a Unix socket to a hook process of the same
user and the same settings (`plansight hook-daemon`, started by the first event that
finds none and gone after ten idle minutes) and prints what it answers. When there is
none, or it does not answer as it should, the event is handled in this process, exactly
as the warm one would, and a warm one is started for the next event. The one-shot
commands shell agents run in a loop (`plansight apply`, `write`, `ingest`...) are relayed
the same way (`run_command`).

Only the standard library's cheapest modules load here: this module is the whole cost of
a relayed event (the socket is `_socket`'s, the C module under `socket`, which would
add `enum` and `selectors` to every event's start-up). `PLANSIGHT_HOOK_DAEMON=0` turns the relay off.
"""

from __future__ import annotations

import _socket
import os
import sys
import time
import zlib

from plansight.folders import unsafe_folder

try:
    import fcntl
except ImportError:  # no locks, no Unix sockets worth the name: every event in its own process
    fcntl = None  # type: ignore[assignment]

MAX_EVENT_BYTES = 64 * 1024 * 1024  # a Write of a large file carries its whole content
MAX_REPLY_BYTES = 16 * 1024 * 1024
# Longer than the warm process's own deadline (`run.DEADLINE_SECONDS`): it always answers
# first, even when it gives up; past this the relay prints `{}` rather than run the event
# a second time (the warm process may still commit it).
REPLY_WAIT_SECONDS = 10.0
CONNECT_WAIT_SECONDS = 0.5
COMMAND_WAIT_SECONDS = 60  # a one-shot command has no deadline of its own
STALE = b"stale"  # the warm process's code changed since it started: it exits
# One-shot commands agents and scripts run in a loop, answered by the warm process too;
# never the long-running or interactive ones (serve, mcp, watch, show, demo, setup).
RELAYED_COMMANDS = frozenset(
    {"apply", "write", "ingest", "clear", "import", "context", "history", "restore", "undo"}
    | {"export", "sessions"}
)
Reply = tuple[int, bytes, bytes]  # exit code, stdout, stderr
TIMED_OUT: Reply = (-1, b"", b"")
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
    settings = sorted(
        (key, value)
        for key, value in os.environ.items()
        if key.startswith(("PLANSIGHT_", "XDG_")) or key in ("HOME", "PYTHONPATH")
    )
    identity = "\0".join(
        [sys.executable, os.path.dirname(os.path.abspath(__file__))]
        + [f"{key}={value}" for key, value in settings]
    ).encode("utf-8", "surrogateescape")
    # Not a secret, only a name: two checksums make a clash of two settings unlikely.
    name = f"hook-{zlib.crc32(identity):08x}{zlib.adler32(identity):08x}.sock"
    return os.path.join(folder(), name)


def relay(kind: str, args: list[str], data: bytes, cwd: str, wait: float) -> Reply | None:
    """What the warm process answers to one command: `kind` is `hook` (`args`: the agent)
    or `cli` (`args`: the command line), `data` what it reads on stdin. None when there is
    no warm process that answers as it should (the caller then runs the command itself);
    `TIMED_OUT` when it has the command but did not answer within `wait` seconds."""
    path = address()
    if unsafe_folder(os.path.dirname(path), create=False) is not None:
        return None
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_WAIT_SECONDS)
        try:
            connection.connect(path)
        except OSError:
            return None  # none yet, or one that left its socket behind
        mask = os.umask(0o077)  # read, and put back at once: files it creates are made so
        os.umask(mask)
        fields = [kind, cwd, str(mask), str(len(args)), *args]
        header = b"".join(os.fsencode(field) + b"\0" for field in fields)
        try:
            connection.settimeout(wait)
            connection.sendall(header + data)
            connection.shutdown(_socket.SHUT_WR)
            reply = read_all(connection, MAX_REPLY_BYTES)
        except TimeoutError:
            return TIMED_OUT  # it has the command and may still commit it: never run it twice
        except OSError:
            return None  # it went away before it read the command
        return _parse_reply(reply)
    finally:
        connection.close()


def _parse_reply(reply: bytes) -> Reply | None:
    """`<exit code> <stdout length>\n<stdout><stderr>`; None for `stale` or a reply cut off."""
    head, newline, body = reply.partition(b"\n")
    parts = head.split(b" ")
    if not newline or len(parts) != 2 or not all(part.isdigit() for part in parts):
        return None
    code, length = int(parts[0]), int(parts[1])
    if length > len(body):
        return None
    return code, body[:length], body[length:]


def start_warm_process() -> None:
    """Start `plansight hook-daemon` on its own, detached from the agent's hook: in a
    session of its own, with none of the agent's pipes (the agent waits for the hook's
    output to close, never for it). Hooks of parallel tool calls start one between them:
    a marker says one is starting, until it listens (or it is older than a start takes)."""
    if not _mark_starting(address() + ".starting"):
        return
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    command = [sys.executable, "-m", "plansight", "hook-daemon"]
    try:
        try:
            os.posix_spawn(sys.executable, command, os.environ, file_actions=quiet, setsid=True)
        except NotImplementedError:  # no new session here: in the agent's, then
            os.posix_spawn(sys.executable, command, os.environ, file_actions=quiet)
    except (AttributeError, OSError):
        pass  # the event was handled; only the next one will be slower


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
    try:
        event = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    except OSError:
        event = b""
    relayed = enabled() and len(event) <= MAX_EVENT_BYTES
    if relayed:
        reply = relay("hook", [agent], event, _cwd(), REPLY_WAIT_SECONDS)
        if reply is TIMED_OUT:
            reply = (0, b"{}\n", b"")  # the agent goes on; the warm process logs the rest
        if reply is not None and reply[1].startswith(b"{") and reply[1].endswith(b"\n"):
            _write(sys.stdout, reply[1])
            return 0
    import io

    from plansight.hook.run import main

    code = main([agent], stdin=io.BytesIO(event))
    if relayed:
        start_warm_process()
    return code


def relayable(args: list[str]) -> bool:
    """A one-shot command the warm process may answer (not a request for its help, which
    fits the caller's terminal)."""
    return (
        bool(args)
        and args[0] in RELAYED_COMMANDS
        and enabled()
        and not {"-h", "--help"} & set(args)
    )


def run_command(args: list[str]) -> int | None:
    """A `relayable` command answered by the warm process: its exit code, its output
    printed; None when it must run here."""
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
    reply = relay("cli", args, data, _cwd(), COMMAND_WAIT_SECONDS)
    if reply is None:
        return None
    if reply is TIMED_OUT:
        _write(
            sys.stderr,
            b"plansight: no answer within %d s; whether the change was made, "
            b"`plansight show` says\n" % COMMAND_WAIT_SECONDS,
        )
        return 2
    code, out, err = reply
    _write(sys.stdout, out)
    _write(sys.stderr, err)
    return code


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


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return "/"


def read_all(connection: _socket.socket, limit: int) -> bytes:
    """What the other end sends until it shuts its side, stopping once past `limit`."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = connection.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
