"""pydantic's validation errors as the contract's `[{path, message}]`.

Kept apart from the language server so the CLI and the MCP server can explain a refusal
without importing pygls.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from plansight.protocol.requests import OP_NAMES

_OP_TAGS = frozenset(OP_NAMES)
_UNION_LABELS = frozenset({"str", "ItemSpec", "bool"})
_SHOULD_BE = "Input should be "


def field_path(loc: tuple[Any, ...]) -> str:
    """pydantic's location as the contract's dot-joined path (`ops.0.task`), without the
    union labels pydantic puts in it."""
    parts: list[str] = []
    for index, part in enumerate(loc):
        if isinstance(part, str) and (
            part in _UNION_LABELS
            or part.startswith("literal[")  # `merge: bool | "mine"`: one path, `merge`
            or (part in _OP_TAGS and index == 2 and loc[0] == "ops")
        ):
            continue
        parts.append(str(part))
    return ".".join(parts)


def _union_branch(loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    """Where a `str | ItemSpec` union sits in `loc`, and which member the error is from."""
    for index, part in enumerate(loc):
        if isinstance(part, str) and part in _UNION_LABELS:
            return loc[:index], part
    return None


def _applicable(errors: list[Any]) -> list[Any]:
    """An item given as an object was meant as an `ItemSpec`: what that member says about
    its fields applies; "Input should be a valid string" from the `str` member does not."""
    specific = set()
    for error in errors:
        branch = _union_branch(tuple(error["loc"]))
        if branch and branch[1] != "str" and len(error["loc"]) > len(branch[0]) + 1:
            specific.add(branch[0])
    kept = []
    for error in errors:
        branch = _union_branch(tuple(error["loc"]))
        if branch and branch[1] == "str" and branch[0] in specific:
            continue
        kept.append(error)
    return kept


def validation_errors(exc: ValidationError) -> list[dict[str, str]]:
    merged: dict[str, list[str]] = {}
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    for error in _applicable(list(errors)):
        message = error["msg"]
        if error["type"] == "union_tag_invalid":
            message = "Unknown op: expected one of " + ", ".join(sorted(OP_NAMES))
        elif error["type"] == "union_tag_not_found":
            message = "Missing op: expected one of " + ", ".join(sorted(OP_NAMES))
        path = field_path(tuple(error["loc"]))
        if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            path = f"{path}.op"
        messages = merged.setdefault(path, [])
        if message not in messages:
            messages.append(message)
    return [{"path": path, "message": _either(messages)} for path, messages in merged.items()]


def _either(messages: list[str]) -> str:
    """A union's messages as one: "Input should be a valid boolean or 'mine'"."""
    said = messages[:1]
    for message in messages[1:]:
        if said[0].startswith(_SHOULD_BE) and message.startswith(_SHOULD_BE):
            message = message[len(_SHOULD_BE) :]
        said.append(message)
    return " or ".join(said)
