"""Requests run through the service, the way every face of Plansight runs them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from plansight.protocol.requests import ApplyParams, ImportParams, WriteParams
from plansight.service import PlanService

Json = dict[str, Any]
Request = Callable[..., Json]


@pytest.fixture
def apply(service: PlanService) -> Request:
    """`apply(op, op, ..., session=..., origin=...)` -> the ApplyResult dict."""

    def run(*ops: Json, **params: Any) -> Json:
        request = {"ops": list(ops), **params}
        return service.apply(ApplyParams.validate(request), request).result

    return run


@pytest.fixture
def write(service: PlanService) -> Request:
    """`write([item, ...], session=..., origin=...)` -> the ApplyResult dict."""

    def run(todos: list[Json], **params: Any) -> Json:
        request = {"todos": todos, **params}
        return service.write(WriteParams.validate(request), request).result

    return run


@pytest.fixture
def import_markdown(service: PlanService) -> Request:
    """`import_markdown(text, session=..., origin=...)` -> the ApplyResult dict."""

    def run(markdown: str, **params: Any) -> Json:
        request = {"markdown": markdown, **params}
        return service.import_markdown(ImportParams.validate(request), request).result

    return run
