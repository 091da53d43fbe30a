"""What `plansight watch` says under the panel about the workspace it runs in: doctor's
findings that silently stop plans arriving, read cheaply (no agent started) and re-read
every few seconds, so a line goes away soon after the person fixes what it names.

Today one finding: Codex does not run Plansight's hooks yet (`codex_hook_trust.py`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from plansight.codex_hook_trust import codex_home, plansight_hook_trust
from plansight.paths import workspace_root

# Read at most this often: two small files, while `watch` polls the store ten times a second.
RECHECK_SECONDS = 2.0

# Short enough for one row of a narrow terminal, the fix first; the README says more.
UNTRUSTED_CODEX = "⚠ Codex runs no Plansight hook until you trust them: /hooks in Codex"

Warnings = Callable[[], tuple[str, ...]]


def workspace_warnings(codex: Path | None = None, project: Path | None = None) -> tuple[str, ...]:
    """The warnings for the workspace, now."""
    trust = plansight_hook_trust(codex or codex_home(), project or workspace_root())
    return (UNTRUSTED_CODEX,) if trust == "untrusted" else ()


def rechecked(read: Warnings = workspace_warnings) -> Warnings:
    """`read`, asked again only once RECHECK_SECONDS have passed since it last was."""
    last: list[float] = []
    kept: tuple[str, ...] = ()

    def warnings() -> tuple[str, ...]:
        nonlocal kept
        now = time.monotonic()
        if not last or now - last[0] >= RECHECK_SECONDS:
            kept = read()
            last[:] = [now]
        return kept

    return warnings
