"""The bytes the server keeps and splices are the JSON the contract describes."""

from __future__ import annotations

import json
import random

from plansight.lsp.encoded import Encoded, StateEncoder, encode_tree, extend
from plansight.protocol.requests import ApplyParams
from plansight.service import PlanService
from plansight.wire import state_json


def random_ops(rng: random.Random, contents: list[str]) -> list[dict[str, object]]:
    name = rng.choice(contents)
    return rng.choice(
        [
            [{"op": "start", "task": name}],
            [{"op": "done", "task": name}],
            [{"op": "drop", "task": name}],
            [
                {
                    "op": "note",
                    "task": name,
                    "text": rng.choice(['é ✓ "quoted"', "line\nbreak", "x"]),
                }
            ],
            [{"op": "rm", "task": name}],
            [
                {
                    "op": "append",
                    "phase": rng.choice(["A", "B ✓"]),
                    "items": [f"task {rng.random()}"],
                }
            ],
        ]
    )


def test_kept_state_bytes_equal_a_fresh_encoding(service: PlanService) -> None:
    rng = random.Random(7)
    encoder = StateEncoder()
    first = {"ops": [{"op": "append", "phase": "A", "items": ["one", "two \u2028 three"]}]}
    service.apply(ApplyParams.validate(first), first)
    for _ in range(300):
        plan = service.store.load("default")
        contents = [task.content for task in plan.tasks()] or ["one"]
        request = {"ops": random_ops(rng, contents)}
        service.apply(ApplyParams.validate(request), request)
        plan = service.store.load("default")
        kept = encoder.cached(plan) or encoder.state(plan, keep=True)
        assert json.loads(kept) == state_json(plan)
        assert encoder.cached(plan) == kept


def test_splicing_keeps_members_and_escapes() -> None:
    inner = Encoded(b'{"a":1}')
    data = encode_tree({"x": inner, "y": ["\u00e9", None, True, 3], "z": "\u2028"})
    assert json.loads(data) == {"x": {"a": 1}, "y": ["\u00e9", None, True, 3], "z": "\u2028"}
    assert json.loads(extend(b'{"a":1}', {"b": [1]})) == {"a": 1, "b": [1]}
    assert extend(b"{}", {"b": 2}) == b'{"b":2}'


def test_a_key_that_is_no_string_encodes_as_json_would() -> None:
    """The dict path looks at each key as it goes: a key that is not a string, after some
    that are (seen before or not), still gives what `json.dumps` gives for the whole."""
    value = {"session": "s", "new key \u00e9": [1], 7: None, "progress": {"total": 2}}
    assert encode_tree(value) == json.dumps(value, separators=(",", ":")).encode()
    assert encode_tree({1: {"a": 2}}) == b'{"1":{"a":2}}'
    assert encode_tree({"x": {}, "y": [{}]}) == b'{"x":{},"y":[{}]}'
