"""Reading an agent's JSON payload by path, gathering every problem before refusing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.model import PRIORITIES, Priority, TaskStatus

T = TypeVar("T")


class PayloadReader:
    """Collects what is wrong with a payload; `done()` refuses the request if anything is."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def fail(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message))

    def done(self) -> None:
        if self.errors:
            raise RequestRefused(self.errors)

    def object(self, value: Any, path: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.fail(path, "Expected an object")
        return None

    def items(self, parent: Mapping[str, Any], key: str, path: str) -> list[Any] | None:
        """A required array member."""
        value = parent.get(key)
        if isinstance(value, list):
            return value
        self.fail(f"{path}.{key}", "Field required" if key not in parent else "Expected an array")
        return None

    def entries(
        self, parent: Mapping[str, Any], key: str, path: str
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """The objects of a required array member, each with its path (`payload.todos.2`);
        an item that is not an object is refused."""
        for index, item in enumerate(self.items(parent, key, path) or []):
            item_path = f"{path}.{key}.{index}"
            entry = self.object(item, item_path)
            if entry is not None:
                yield item_path, entry

    def task(
        self,
        entry: Mapping[str, Any],
        path: str,
        content_key: str,
        statuses: Mapping[str, TaskStatus],
    ) -> tuple[str, TaskStatus] | None:
        """An item's content and status (both required), or None when either is wrong."""
        content = self.text(entry, content_key, path)
        status = self.choice(entry, "status", path, statuses)
        if content is None or status is None:
            return None
        return content, status

    def text(self, parent: Mapping[str, Any], key: str, path: str) -> str | None:
        """A required string member."""
        value = parent.get(key)
        if isinstance(value, str):
            return value
        self.fail(f"{path}.{key}", "Field required" if key not in parent else "Expected a string")
        return None

    def optional_text(self, parent: Mapping[str, Any], key: str, path: str) -> str | None:
        """A string member that may be absent (or null)."""
        value = parent.get(key)
        if value is None or isinstance(value, str):
            return value
        self.fail(f"{path}.{key}", "Expected a string")
        return None

    def text_list(self, parent: Mapping[str, Any], key: str, path: str) -> list[str]:
        """An optional array of strings."""
        value = parent.get(key)
        if value is None:
            return []
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        self.fail(f"{path}.{key}", "Expected an array of strings")
        return []

    def choice(
        self, parent: Mapping[str, Any], key: str, path: str, meanings: Mapping[str, T]
    ) -> T | None:
        """A required member whose value must be one of `meanings`' keys."""
        value = parent.get(key)
        if isinstance(value, str) and value in meanings:
            return meanings[value]
        expected = "expected one of " + ", ".join(meanings)
        if key not in parent:
            self.fail(f"{path}.{key}", "Field required")
        elif isinstance(value, str):
            self.fail(f"{path}.{key}", f'Unknown {key} "{value}": {expected}')
        else:
            self.fail(f"{path}.{key}", f"Expected a string: {expected}")
        return None


def priority_of(value: Any) -> Priority | None:
    """An agent's priority in the contract's three. Agents whose own schema allows any
    string here (OpenCode, ACP v2's custom values) may send others: those are not kept."""
    for priority in PRIORITIES:
        if value == priority:
            return priority
    return None
