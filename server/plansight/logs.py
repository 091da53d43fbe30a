"""Logging for every entry point: stderr only (stdout is the wire), quiet by default; and
the hook's log file, where the hook face (`hook/run.py`) and the warm process (`warm/`)
leave one line per event or command, since neither may print to the agent.

Standard library's cheapest modules only at import (`logging` is loaded by `configure`):
every hook loads this, and a relay when it has something to log."""

from __future__ import annotations

import os
import sys
import time

from plansight.paths import state_folder

TYPE_CHECKING = False  # not `typing`'s: the hook's relay loads this module
if TYPE_CHECKING:
    from pathlib import Path

LOG_MAX_BYTES = 1024 * 1024


def configure(default_level: str = "WARNING") -> None:
    import logging

    level = os.environ.get("PLANSIGHT_LOG_LEVEL", default_level).upper()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("plansight %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level, logging.WARNING))
    # pygls logs a full traceback for every refused request, which are answered already
    # and are the client's business; our own code logs what is really wrong.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)


def log_path() -> Path:
    """Where every run of the hook leaves one line (and a traceback when it failed)."""
    return state_folder() / "hook.log"


# The facts a log line shows, in this order (`left_out`: what of a plan was not taken).
_LOGGED_FACTS = (
    *("by", "agent", "event", "source", "tool", "session", "command", "result"),
    "left_out",
)


def log_line(facts: dict[str, str], outcome: str, seconds: float) -> None:
    """Append one line; never raises (a full disk must not hurt the agent either)."""
    try:
        path = log_path()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        fields = " ".join(f"{key}={facts[key]}" for key in _LOGGED_FACTS if key in facts)
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{stamp} {seconds * 1000:.1f}ms {fields} {outcome}\n")
    except Exception:
        pass
