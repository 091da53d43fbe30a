"""An agent's CLI run interactively, in a pseudo-terminal, as a person types into it.

The agents' slash commands (`/branch`, `/clear`, `/compress`...) exist only in their
interactive UIs: `-p "/clear"` goes to the model as a prompt. This runs the CLI on a
pseudo-terminal of its own, reads what it draws, and types into it. Nothing here sleeps
to let the CLI catch up: every step waits, with a deadline, for what shows it happened
(a text drawn, a request the scripted model received, a hook heard), and reads the
terminal meanwhile, so the CLI never blocks on a full terminal.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

# Generous: a guard against a hang on a loaded machine, never a speed check.
DEADLINE = 120.0
# How long a submitted line may show no sign of being taken before Enter is pressed again,
# as a person does: a CLI can drop an Enter that comes while it redraws between states
# (Gemini CLI 0.61 once left "Go on" in its prompt for two minutes under a CI load).
PRESS_AGAIN_AFTER = 10.0
# Escape sequences (colours, cursor moves, OSC titles) and other control characters.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]"
)
_TITLE = re.compile(r"\x1b\][02];([^\x07\x1b]*)(?:\x07|\x1b\\)")
# Questions a terminal answers: where the cursor is (DSR), what it is (DA).
_CURSOR_ASKED = b"\x1b[6n"
_DEVICE_ASKED = (b"\x1b[c", b"\x1b[0c")
END, ENTER = b"\x1b[F", b"\r"
# What tells a CLI it runs in a CI job (and so, to some, not interactively).
_CI_VARIABLES = frozenset({"CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION"})


class TerminalTimeout(AssertionError):
    """What was waited for did not happen before the deadline."""


class Terminal:
    """`command` on a pseudo-terminal of `rows` x `columns`, in `cwd` with `env`."""

    def __init__(
        self,
        command: list[str],
        cwd: Path,
        env: dict[str, str],
        rows: int = 50,
        columns: int = 200,
    ) -> None:
        leader, follower = os.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        # A person's terminal, not a CI job's: Gemini CLI 0.61 runs headless, whatever its
        # terminal, when `CI` or `GITHUB_ACTIONS` is "true" (`isHeadlessMode` in its bundle),
        # so under CI it answered and exited before its UI was ever drawn.
        env = {k: v for k, v in env.items() if k not in _CI_VARIABLES}
        env |= {"TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            start_new_session=True,  # its own process group: closed whole
        )
        os.close(follower)
        self._fd = leader
        self._raw = bytearray()
        self.read = 0  # how much of `text` a step has already waited past

    @property
    def titles(self) -> list[str]:
        """Every window title the CLI set so far, in order (OSC 0 / 2): where a CLI says
        whether it is busy (Gemini CLI: "◇  Ready" when idle)."""
        return _TITLE.findall(self._raw.decode("utf-8", "replace"))

    @property
    def text(self) -> str:
        """Everything the CLI drew so far, without escape sequences."""
        return _CONTROL.sub("", self._raw.decode("utf-8", "replace"))

    def _pump(self, wait: float) -> bool:
        """Read what the CLI wrote within `wait` seconds; False once it closed."""
        ready, _, _ = select.select([self._fd], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self._fd, 65536)
        except OSError:  # EIO: the CLI exited and the terminal closed
            return False
        if not chunk:
            return False
        self._raw += chunk
        # Answer the terminal's questions as a terminal would, or the UI may wait.
        if _CURSOR_ASKED in chunk:
            os.write(self._fd, b"\x1b[1;1R")
        if any(asked in chunk for asked in _DEVICE_ASKED):
            os.write(self._fd, b"\x1b[?62;22c")
        return True

    def wait_until(
        self, happened: Callable[[], bool], what: str, deadline: float = DEADLINE
    ) -> None:
        """Read the terminal until `happened()` holds; fail after `deadline` seconds."""
        ends = time.monotonic() + deadline
        while not happened():
            if time.monotonic() > ends:
                raise TerminalTimeout(
                    f"{what}: not within {deadline:.0f} s; the screen:\n{self.tail()}"
                )
            if not self._pump(0.1) and not happened():
                raise TerminalTimeout(f"{what}: the CLI exited; the screen:\n{self.tail()}")

    def expect(self, pattern: str, deadline: float = DEADLINE) -> str:
        """Wait until the CLI draws `pattern` (a regular expression) after what the last
        step waited past; returns the match, and later steps look after it."""
        compiled = re.compile(pattern)
        found: list[re.Match[str]] = []

        def drawn() -> bool:
            match = compiled.search(self.text, self.read)
            if match is not None:
                found.append(match)
            return match is not None

        self.wait_until(drawn, f"the CLI drawing {pattern!r}", deadline)
        self.read = found[0].end()
        return found[0].group(0)

    def type(self, text: str) -> None:
        """Type `text` (no Enter)."""
        os.write(self._fd, text.encode())

    def submit(self, line: str) -> None:
        """Type `line` and press Enter, once the line is echoed. Between them goes the End
        key: Gemini CLI 0.61 takes an Enter within 30 ms of a typed character for a
        newline (its `bufferFastReturn`, for pastes a terminal does not mark), and a key
        that types nothing resets that clock, whenever the Enter comes."""
        self.type(line)
        self.wait_until(lambda: line in self.text[self.read :], f"the line {line!r} echoed")
        os.write(self._fd, END + ENTER)

    def submit_until(self, line: str, taken: Callable[[], bool]) -> None:
        """`submit` the line, then wait until `taken()` shows the CLI took it, pressing
        Enter again each `PRESS_AGAIN_AFTER` seconds it shows no sign. Only for a CLI where
        an Enter on an empty prompt does nothing: once taken, the line has left the prompt."""
        self.submit(line)
        ends = time.monotonic() + DEADLINE
        pressed = time.monotonic()
        while not taken():
            now = time.monotonic()
            if now > ends:
                raise TerminalTimeout(
                    f"the line {line!r} taken: not within {DEADLINE:.0f} s; the screen:\n"
                    f"{self.tail()}"
                )
            if now - pressed > PRESS_AGAIN_AFTER:
                os.write(self._fd, END + ENTER)
                pressed = now
            if not self._pump(0.1) and not taken():
                raise TerminalTimeout(f"the line {line!r}: the CLI exited;\n{self.tail()}")

    def tail(self, characters: int = 3000) -> str:
        return self.text[-characters:]

    def close(self) -> None:
        """End the CLI (its whole process group) and the terminal."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        os.close(self._fd)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
