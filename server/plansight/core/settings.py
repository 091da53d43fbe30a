"""Settings a client may send in `initializationOptions.plansight`: limits and behaviour."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from plansight.core.context import DEFAULT_REMINDER_AFTER_ROUNDS

log = logging.getLogger(__name__)

# Protocol version 1 let a client set how many sessions the store keeps, and one client's
# value deleted everyone's sessions; version 2 keeps it a property of the store.
_IGNORED = frozenset({"maxSessions"})


class Settings(BaseModel):
    # defer_build: its validator is built on first use, not at import (start-up time).
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        strict=True,
        defer_build=True,
    )

    max_tasks: int = Field(200, ge=1, description="Most tasks a session may hold.")
    max_phases: int = Field(50, ge=1, description="Most phases a session may hold.")
    max_content_length: int = Field(500, ge=1, description="Longest task content or phase name.")
    max_note_length: int = Field(4000, ge=1, description="Longest note.")
    max_notes_per_task: int = Field(100, ge=0, description="Most notes on one task.")
    max_description_length: int = Field(4000, ge=0, description="Longest task description.")
    max_files_per_task: int = Field(100, ge=0, description="Most files recorded on one task.")
    max_title_length: int = Field(200, ge=1, description="Longest session title.")
    auto_start: bool = Field(
        True, description="Start the first pending task when none is in progress."
    )
    reminder_after_rounds: int = Field(
        DEFAULT_REMINDER_AFTER_ROUNDS,
        ge=1,
        description="Consecutive plansight/context calls without an agent change before the reminder.",
    )


def merge_settings(current: Settings, raw: Any) -> tuple[Settings, list[str]]:
    """Apply the keys of `raw` over `current`; a bad value keeps the old one and is reported."""
    if raw is None:
        return current, []
    if not isinstance(raw, dict):
        return current, ["Plansight settings must be an object"]
    fields = {info.alias or name: name for name, info in Settings.model_fields.items()}
    accepted: dict[str, Any] = current.model_dump()
    problems: list[str] = []
    for key, value in raw.items():
        name = fields.get(key) or (key if key in Settings.model_fields else None)
        if key in _IGNORED:
            log.warning("the setting %s is ignored: the store keeps its own count of sessions", key)
            continue
        if name is None:
            continue  # unknown keys are ignored, as the contract says
        try:
            Settings.model_validate({**accepted, name: value})
        except ValidationError as exc:
            problems.append(f"Plansight setting {fields_alias(name)}: {exc.errors()[0]['msg']}")
            continue
        accepted[name] = value
    return Settings.model_validate(accepted), problems


def fields_alias(name: str) -> str:
    return Settings.model_fields[name].alias or name
