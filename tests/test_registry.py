"""The registry (`protocol/registry.py`) is the one declaration of each request: what it
names exists, and what the faces keep written out for their start-up's sake (the method
names announced at `initialize`) matches it; every command that changes a plan is one the
warm process answers."""

from __future__ import annotations

import inspect

import pytest

from plansight.cli.main import COMMANDS, _parser
from plansight.lsp.server import request_handlers
from plansight.protocol.methods import METHODS
from plansight.protocol.models import REQUESTS as MODELS
from plansight.protocol.registry import BY_METHOD, REQUESTS, Request
from plansight.service import Outcome, PlanService


def test_the_registry_lists_the_methods_the_server_announces() -> None:
    assert tuple(BY_METHOD) == METHODS == tuple(MODELS)


@pytest.mark.parametrize("request_", REQUESTS, ids=[r.method for r in REQUESTS])
def test_each_request_names_a_service_method_that_takes_its_params(request_: Request) -> None:
    method = getattr(PlanService, request_.service)
    parameters = list(inspect.signature(method).parameters)
    assert parameters[:2] == ["self", "params"]
    if request_.changes:  # a change gets the raw params too: the history keeps them
        assert parameters[2] == "request"
        assert inspect.signature(method).return_annotation in (Outcome, "Outcome")
    assert MODELS[request_.method][0] is request_.params


def test_the_language_server_answers_every_request_of_the_registry() -> None:
    assert set(request_handlers()) == set(BY_METHOD)


def test_the_warm_process_relays_every_command_that_changes_a_plan() -> None:
    """Agents and scripts run them in a loop: each must be answered warm."""
    relayed = {command.name for command in COMMANDS if command.relayed}
    assert {r.command for r in REQUESTS if r.changes} <= relayed


def test_every_command_the_registry_names_is_a_cli_command() -> None:
    parser = _parser()
    commands = next(
        action.choices
        for action in parser._actions
        if action.__class__.__name__ == "_SubParsersAction"
    )
    assert {r.command for r in REQUESTS if r.command is not None} <= set(commands)
