"""The registry (`protocol/registry.py`) is the one declaration of each request: what it
names exists, each request is bound once to the service method that answers it
(`bindings.py`), with its params shape, and what the faces keep written out for their
start-up's sake (the method names announced at `initialize`) matches it; every command
that changes a plan is one the warm process answers."""

from __future__ import annotations

import pytest

from plansight.bindings import CHANGES, READS, Change, Read, _by_method
from plansight.cli.main import COMMANDS, _parser
from plansight.lsp.server import request_handlers
from plansight.protocol.methods import METHODS
from plansight.protocol.models import REQUESTS as MODELS
from plansight.protocol.registry import BY_METHOD, REQUESTS, Request
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService


def test_the_registry_lists_the_methods_the_server_announces() -> None:
    assert tuple(BY_METHOD) == METHODS == tuple(MODELS)


def test_each_request_is_bound_once_to_a_service_method_of_its_kind() -> None:
    """Every request of the registry has one binding (`bindings.py`), a change's among
    the changes (it answers an Outcome, a push follows) and a read's among the reads."""
    assert set(CHANGES) == {r.method for r in REQUESTS if r.changes}
    assert set(READS) == {r.method for r in REQUESTS if not r.changes}
    assert not set(CHANGES) & set(READS)


@pytest.mark.parametrize("request_", REQUESTS, ids=[r.method for r in REQUESTS])
def test_each_binding_takes_the_params_shape_of_its_request(request_: Request) -> None:
    binding = (CHANGES if request_.changes else READS)[request_.method]
    assert isinstance(binding, Change if request_.changes else Read)
    assert binding.method == request_.method
    assert binding.params is request_.params is MODELS[request_.method][0]
    # A method of the service itself, as the faces once named it (`PlanService.apply`).
    assert getattr(PlanService, binding.run.__name__) is binding.run


def test_a_request_bound_twice_is_refused() -> None:
    apply = Change("plansight/apply", ApplyParams, PlanService.apply)
    with pytest.raises(ImportError, match="bound twice"):
        _by_method(apply, apply)


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
