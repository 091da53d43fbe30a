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
    """`baseVersion` was given and the session has moved on (ContentModified on the wire).
    `conflicts`: a person's stale edit (`merge: true`) that changed what others
    changed too, as `{id, content, field}`; None when no merge was tried."""

    def __init__(self, current_version: int, conflicts: list[dict[str, str]] | None = None) -> None:
        message = f"The todo list changed: it is at version {current_version}"
        if conflicts:
            names = ", ".join(f'"{c["content"]}" ({c["field"]})' for c in conflicts)
            message += f"; these were changed there too: {names}"
        super().__init__(message)
        self.current_version = current_version
        self.conflicts = conflicts

    def data(self) -> dict[str, object]:
        """ContentModified's `data`."""
        if self.conflicts is None:
            return {"currentVersion": self.current_version}
        return {"currentVersion": self.current_version, "conflicts": self.conflicts}


class TooDeep(OpRefused):
    """(v4) An op would put a task deeper than `maxDepth`: an `init` so refused leaves the
    plan as it was, not even normalized."""
