"""Settings a client may send in `initializationOptions.plansight`: limits and behaviour."""

from __future__ import annotations

import dataclasses
import logging
from typing import Annotated, Any

from plansight.core.context import DEFAULT_REMINDER_AFTER_ROUNDS
from plansight.protocol.shape import Bounds, WireShape, camel

log = logging.getLogger(__name__)

# Protocol version 1 let a client set how many sessions the store holds, and one client's
# value deleted everyone's sessions; version 2 keeps it a property of the store.
_IGNORED = frozenset({"maxSessions"})

AtLeastOne = Annotated[int, Bounds(ge=1)]
NotNegative = Annotated[int, Bounds(ge=0)]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings(WireShape):
    max_tasks: AtLeastOne = 200  # most tasks a session may hold
    max_phases: AtLeastOne = 50  # most phases a session may hold
    max_content_length: AtLeastOne = 500  # longest task content or phase name
    max_note_length: AtLeastOne = 4000  # longest note
    max_notes_per_task: NotNegative = 100  # most notes on one task
    max_description_length: NotNegative = 4000  # longest task description
    max_files_per_task: NotNegative = 100  # most files recorded on one task
    max_title_length: AtLeastOne = 200  # longest session title
    max_depth: AtLeastOne = 4  # (v4) deepest a subtask may be (the top level is 1)
    auto_start: bool = True  # start the first pending task when none is in progress
    # consecutive plansight/context calls without an agent change before the reminder
    reminder_after_rounds: AtLeastOne = DEFAULT_REMINDER_AFTER_ROUNDS


def merge_settings(current: Settings, raw: Any) -> tuple[Settings, list[str]]:
    """Apply the keys of `raw` over `current`; a bad value keeps the old one and is reported."""
    if raw is None:
        return current, []
    if not isinstance(raw, dict):
        return current, ["Plansight settings must be an object"]
    from pydantic import ValidationError

    accepted = current.to_wire()
    problems: list[str] = []
    snake = {field.name: camel(field.name) for field in dataclasses.fields(Settings)}
    for key, value in raw.items():
        key = snake.get(key, key)  # a field's own name is taken as its wire name
        if key in _IGNORED:
            log.warning("the setting %s is ignored: the store holds its own count of sessions", key)
            continue
        if key not in accepted:
            continue  # unknown keys are ignored, as the contract says
        try:
            Settings.validate({**accepted, key: value})
        except ValidationError as exc:
            problems.append(f"Plansight setting {key}: {exc.errors()[0]['msg']}")
            continue
        accepted[key] = value
    return Settings.validate(accepted), problems
