"""Why a store cannot be used right now, in words a person can act on.

Every backend raises `StoreError` for a fault of the storage itself (not a bug): the
faces turn it into `-32803 RequestFailed` with `data.reason` (the language server), an
error tool result (MCP) or one line on stderr and exit code 2 (the CLI).
"""

from __future__ import annotations

from typing import Literal

StoreFault = Literal["diskFull", "readOnly", "busy", "unavailable"]

_ADVICE: dict[StoreFault, str] = {
    "diskFull": "the disk holding the plan store is full: free some space and try again",
    "readOnly": (
        "the plan store is read-only: make the file and its folder writable "
        "(or point PLANSIGHT_DB elsewhere) to change plans; reading still works"
    ),
    "busy": (
        "the plan store is locked by another program for too long: "
        "try again, or end the program holding it"
    ),
    "unavailable": (
        "the plan store cannot be used (removed, moved, damaged or not a Plansight store): "
        "check the file and its folder, then try again"
    ),
}


class StoreError(Exception):
    """The store cannot be opened, read or written now; nothing was changed.

    `reason` is one of the contract's `RequestFailed` reasons; the message is safe to
    show a person (no path, no SQL) and says what they can do."""

    def __init__(
        self, reason: StoreFault, detail: str | None = None, advice: str | None = None
    ) -> None:
        self.reason: StoreFault = reason
        message = advice or _ADVICE[reason]
        if detail:
            message = f"{detail}: {message}"
        super().__init__(message[0].upper() + message[1:])
        self.message = str(self)
