"""A text attribute of `Task` (`core.model.attribute`: `owner` today) flows through every
request with no code of its own: written by `write` and `apply`'s items and `update`,
cleared by a null, shown and read back by markdown, worded in the history, merged by
steering. A new field declared that way is covered by these tests as it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plansight.core.model import ATTRIBUTES
from plansight.core.steering import MERGED_FIELDS
from plansight.protocol.requests import (
    ApplyParams,
    ExportParams,
    HistoryParams,
    ImportParams,
    WriteParams,
)
from plansight.protocol.shape import camel
from plansight.service import PlanService
from plansight.store import open_store

Json = dict[str, Any]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[PlanService]:
    store = open_store(str(tmp_path / "plans.sqlite3"), str(tmp_path))
    yield PlanService(store)
    store.close()


def write(service: PlanService, todos: list[Json], session: str = "s") -> Json:
    raw = {"session": session, "todos": todos}
    return service.write(WriteParams.validate(raw), raw).result


def apply(service: PlanService, ops: list[Json], session: str = "s") -> Json:
    raw = {"session": session, "ops": ops}
    return service.apply(ApplyParams.validate(raw), raw).result


def tasks(result: Json) -> list[Json]:
    return [task for phase in result["phases"] for task in phase["tasks"]]


def test_there_is_a_text_attribute_to_test() -> None:
    assert ATTRIBUTES == {"owner": "Owner"}


@pytest.mark.parametrize(("name", "label"), ATTRIBUTES.items())
def test_a_text_attribute_flows_through_every_request(
    service: PlanService, name: str, label: str
) -> None:
    key = camel(name)
    item = {"content": "Read", "activeForm": "Reading", "status": "pending", key: " one\tline "}
    assert tasks(write(service, [item]))[0][key] == "one line"  # cleaned as a name

    result = apply(
        service,
        [
            {"op": "update", "task": "Read", key: "changed"},
            {"op": "append", "items": [{"content": "Fix", key: "another"}]},
        ],
    )
    assert [task[key] for task in tasks(result)] == ["changed", "another"]

    markdown = service.export(ExportParams(session="s"))["text"]
    assert f"  {label}: changed" in markdown.splitlines()
    raw = {"session": "copy", "markdown": markdown}
    copied = service.import_markdown(ImportParams.validate(raw), raw).result
    assert [task[key] for task in tasks(copied)] == ["changed", "another"]

    cleared = apply(service, [{"op": "update", "task": "Read", key: None}])
    assert tasks(cleared)[0][key] is None
    words = [
        line
        for event in service.history(HistoryParams(session="s"))["events"]
        for line in event["changes"]
    ]
    assert any("changed" in line and "Read" in line for line in words), words
    assert name in MERGED_FIELDS
