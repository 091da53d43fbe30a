"""A name for the settings a hook runs with: the warm process's socket and the spool of
events are one per name, so each serves only events it would handle the same way.

Standard library's cheapest modules only: a relayed event's start-up loads this.
"""

from __future__ import annotations

import os
import sys
import zlib


def settings_name(*more: str) -> str:
    """A name for this interpreter, package and settings (and `more`): the same for two
    processes only when they would handle an event the same way."""
    settings = sorted(
        (key, value)
        for key, value in os.environ.items()
        if key.startswith(("PLANSIGHT_", "XDG_")) or key in ("HOME", "PYTHONPATH")
    )
    identity = "\0".join(
        [sys.executable, os.path.dirname(os.path.abspath(__file__)), *more]
        + [f"{key}={value}" for key, value in settings]
    ).encode("utf-8", "surrogateescape")
    # Not a secret, only a name: two checksums make a clash of two settings unlikely.
    return f"{zlib.crc32(identity):08x}{zlib.adler32(identity):08x}"
