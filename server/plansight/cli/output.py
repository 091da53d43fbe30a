"""What a command prints: plan text made safe for the terminal, rich's console, and a
reader that closed stdout."""

from __future__ import annotations

import os
import sys
from typing import Any


def console() -> Any:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich's own exits 1: see `reader_gone`
            self.quiet = True
            reader_gone()

    return _Console(highlight=False)


def reader_gone() -> None:
    """The reader closed stdout (`plansight schema | head -1`): that is its choice, not a
    failure of the command. What is left to print goes nowhere, nothing is said, and the
    command ends with its own exit code (docs/reliability.md)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit must find a reader
        os.close(devnull)
    except (OSError, ValueError):  # no file behind stdout (the warm process's buffer)
        pass


def out(text: str, end: str = "\n") -> None:
    """Plan text for the terminal: no escape sequence from the store reaches it."""
    from plansight.protocol.text import terminal_safe

    print(terminal_safe(text), end=end)
