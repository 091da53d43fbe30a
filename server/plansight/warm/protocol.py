"""The warm hook process's protocol, both sides: what a relay (`warm/relay.py`) sends
and what the warm process (`warm/daemon.py`) answers, in one place.

Standard library's cheapest modules only: a relayed event's start-up loads this.
"""

from __future__ import annotations

import _socket
import os

# A request's stdin is at most the hook's largest event (`plansight.hook.MAX_EVENT_BYTES`).
MAX_REPLY_BYTES = 16 * 1024 * 1024
Reply = tuple[int, bytes, bytes]  # exit code, stdout, stderr

# One request per connection, both sides' bytes written here (the warm process is
# `warm/daemon.py`). The relay sends `<length>\n` and that many bytes: NUL-ended fields
# `kind, cwd, umask, n, n × KEY=VALUE (its environment), m, m × argument`, then stdin's
# bytes. The warm process answers with single bytes:
#   QUEUED   it has read the request whole (a live process: not stopped, not stuck reading)
#   PROGRESS it started the request queued before this one (the queue moves)
#   READY    this one is next: the relay hands it over with GO, or gives up by closing
#   STALE / OWN  run it yourself (its code changed / it never runs this caller's requests)
# and after GO with `<code> <stdout length>\n<stdout><stderr>`. Before GO only the relay
# may run the request; GO is the one moment ownership passes, and it passes atomically:
# the warm process that waited too long for GO shuts its reading side, after which a GO
# either is already in its buffer (it runs the request) or fails to send (the relay runs
# it). So a request is never run by both, nor dropped by both while both live.
QUEUED, PROGRESS, READY, GO, STALE, OWN = b"q", b".", b"R", b"G", b"S", b"O"


class Budget:
    """How long a relay waits at each step: a warm process that is stopped shows no
    QUEUED within `alive`; one stuck on a request shows no PROGRESS within `stall`;
    `ready` bounds the wait for READY from the start, `answer` the wait for the answer
    after GO. Hooks: the agents' timeout (what setup writes) is 10 s, and an event
    falling back to its own process still needs a few of them under load."""

    def __init__(self, alive: float, stall: float, ready: float, answer: float) -> None:
        self.alive, self.stall, self.ready, self.answer = alive, stall, ready, answer


HOOK_BUDGET = Budget(alive=0.5, stall=1.5, ready=4.0, answer=2.0)
COMMAND_BUDGET = Budget(alive=0.5, stall=3.0, ready=10.0, answer=30.0)
CONNECT_WAIT_SECONDS = 0.5


class Handed:
    """The warm process took the request (GO was sent) and then did not answer: `waited`
    it is still at it (it finishes it and logs it); else it went away while running it."""

    def __init__(self, waited: bool) -> None:
        self.waited = waited


def encode_request(
    kind: str, cwd: str, umask: int, env: dict[str, str], args: list[str], data: bytes
) -> bytes:
    fields = [kind, cwd, str(umask), str(len(env))]
    fields += [f"{key}={value}" for key, value in env.items()]
    fields += [str(len(args)), *args]
    body = b"".join(os.fsencode(field) + b"\0" for field in fields) + data
    return b"%d\n" % len(body) + body


class Request:
    """One relayed request, as the warm process reads it."""

    def __init__(
        self, kind: str, cwd: str, umask: int, env: dict[str, str], args: list[str], data: bytes
    ) -> None:
        self.kind, self.cwd, self.umask, self.env = kind, cwd, umask, env
        self.args, self.data = args, data


def decode_request(body: bytes | bytearray) -> Request | None:
    """The request in `body` (what follows the length line), None when malformed. Its
    fields are read where they lie and stdin's bytes copied once: taking each field off
    the front of the rest copied a large event once per field (60 MB about 60 times)."""
    position = 0

    def take() -> bytes:
        nonlocal position
        end = body.find(b"\0", position)
        if end < 0:
            raise ValueError("cut off")
        field = bytes(body[position:end])
        position = end + 1
        return field

    try:
        kind, cwd, mask = take(), take(), take()
        env_count = int(take())
        env_fields = [take() for _ in range(env_count)]
        arg_count = int(take())
        fields = [take() for _ in range(arg_count)]
    except ValueError:
        return None
    if not mask.isdigit():
        return None
    env = {}
    for pair in env_fields:
        key, equals, value = pair.partition(b"=")
        if not equals or not key:
            return None
        env[os.fsdecode(key)] = os.fsdecode(value)
    args = [os.fsdecode(field) for field in fields]
    data = bytes(memoryview(body)[position:])
    return Request(os.fsdecode(kind), os.fsdecode(cwd), int(mask) & 0o777, env, args, data)


def encode_reply(code: int, out: bytes, err: bytes) -> bytes:
    return b"%d %d\n" % (code, len(out)) + out + err


def parse_reply(reply: bytes) -> Reply | None:
    """`<exit code> <stdout length>\n<stdout><stderr>`; None for a reply cut off."""
    head, newline, body = reply.partition(b"\n")
    parts = head.split(b" ")
    if not newline or len(parts) != 2 or not all(part.isdigit() for part in parts):
        return None
    code, length = int(parts[0]), int(parts[1])
    if length > len(body):
        return None
    return code, body[:length], body[length:]


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
