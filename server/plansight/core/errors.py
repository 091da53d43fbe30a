"""Why a request or one operation was refused, in words an agent can act on."""

from __future__ import annotations

from dataclasses import dataclass


class OpRefused(Exception):
    """One `apply` operation is skipped; its lines join the result's `errors`."""

    def __init__(self, *lines: str) -> None:
        super().__init__("; ".join(lines))
        self.lines = list(lines)


@dataclass(frozen=True, slots=True)
class FieldError:
    path: str
    message: str


class RequestRefused(Exception):
    """The whole request is refused and nothing changes (InvalidParams on the wire)."""

    def __init__(self, errors: list[FieldError], message: str | None = None) -> None:
        self.errors = errors
        self.message = message or "; ".join(
            f"{e.path}: {e.message}" if e.path else e.message for e in errors
        )
        super().__init__(self.message)


class VersionConflict(Exception):
    """`baseVersion` was given and the session has moved on (ContentModified on the wire)."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"The todo list changed: it is at version {current_version}")
        self.current_version = current_version
