"""Settings from `initializationOptions.plansight` and `didChangeConfiguration`: unknown
keys are ignored, a bad value is refused and reported and the old value stays."""

from __future__ import annotations

from typing import Any

import pytest

from plansight.core.settings import Settings, merge_settings


def test_the_defaults_are_the_contracts() -> None:
    assert Settings().to_wire() == {
        "maxTasks": 200,
        "maxPhases": 50,
        "maxContentLength": 500,
        "maxNoteLength": 4000,
        "maxNotesPerTask": 100,
        "maxDescriptionLength": 4000,
        "maxFilesPerTask": 100,
        "maxTitleLength": 200,
        "maxDepth": 4,
        "autoStart": True,
        "reminderAfterRounds": 3,
    }


def test_known_keys_are_merged_and_unknown_keys_ignored() -> None:
    merged, problems = merge_settings(
        Settings(), {"maxTasks": 10, "autoStart": False, "theme": "dark", "maxtasks": 1}
    )
    assert problems == []
    assert merged.max_tasks == 10
    assert merged.auto_start is False
    assert merged.max_phases == 50


def test_a_merge_keeps_earlier_values_it_does_not_name() -> None:
    first, _ = merge_settings(Settings(), {"maxTasks": 10})
    second, problems = merge_settings(first, {"reminderAfterRounds": 5})
    assert problems == []
    assert (second.max_tasks, second.reminder_after_rounds) == (10, 5)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("maxTasks", 0),
        ("maxTasks", "10"),
        ("maxTasks", 2.5),
        ("maxTasks", True),
        ("maxTasks", None),
        ("autoStart", "yes"),
        ("autoStart", 1),
        ("reminderAfterRounds", 0),
        ("maxContentLength", []),
    ],
)
def test_a_bad_value_is_reported_and_the_old_one_kept(key: str, value: Any) -> None:
    current = Settings(max_tasks=7, auto_start=False, reminder_after_rounds=2)
    merged, problems = merge_settings(current, {key: value, "maxPhases": 9})
    assert len(problems) == 1
    assert key in problems[0]
    assert merged.to_wire()[key] == current.to_wire()[key]
    assert merged.max_phases == 9  # the good keys beside it still apply


@pytest.mark.parametrize("raw", [["maxTasks", 1], "maxTasks=1", 3])
def test_settings_that_are_not_an_object_are_reported(raw: Any) -> None:
    current = Settings(max_tasks=7)
    merged, problems = merge_settings(current, raw)
    assert problems == ["Plansight settings must be an object"]
    assert merged == current


def test_no_settings_change_nothing() -> None:
    current = Settings(max_tasks=7)
    assert merge_settings(current, None) == (current, [])
    assert merge_settings(current, {}) == (current, [])


def test_a_clients_max_sessions_is_ignored_with_a_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Protocol v2: one client's maxSessions deleted every other client's sessions."""
    with caplog.at_level("INFO"):
        merged, problems = merge_settings(Settings(), {"maxSessions": 1, "maxTasks": 9})
    assert problems == []
    assert merged.max_tasks == 9
    assert "maxSessions" not in merged.to_wire()
    assert "maxSessions is ignored" in caplog.text
