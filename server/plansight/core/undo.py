"""`plansight/undo`: which version an undo goes back to, read from the changes history lists.

The undo point is not stored: it follows from the log. Each committed change that is not
an undo sets it to its own version and each undo lowers it by one, so it is the version of
the newest change that is not an undo, less the undos committed after it."""

from __future__ import annotations

from collections.abc import Sequence

from plansight.core.changes import LoggedChange

UNDO_METHOD = "plansight/undo"
NOTHING_TO_UNDO = "Nothing to undo"


def undo_target(listed: Sequence[LoggedChange]) -> int | None:
    """The version whose plan an undo brings back (0: the empty list), or None when there
    is nothing to undo. `listed` is what `history` lists, newest first."""
    for undos, change in enumerate(listed):
        if change.method != UNDO_METHOD:
            point = change.version - undos
            break
    else:
        # No change but undos is listed: the run went back past the history kept (or the
        # session has no change at all).
        return None
    if point < 1:
        return None
    target = point - 1
    if target == 0 or any(change.version == target for change in listed):
        return target
    return None  # older than the history kept
