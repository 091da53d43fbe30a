"""Logging for every entry point: stderr only (stdout is the wire), quiet by default."""

from __future__ import annotations

import logging
import os
import sys


def configure(default_level: str = "WARNING") -> None:
    level = os.environ.get("PLANSIGHT_LOG_LEVEL", default_level).upper()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("plansight %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level, logging.WARNING))
    # pygls logs a full traceback for every refused request, which are answered already
    # and are the client's business; our own code logs what is really wrong.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
