"""The MCP server's stdin check on single lines: what it hands on to the SDK, and what it
refuses (the server answering each line is tested in tests/reliability/test_mcp_abuse.py)."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from plansight.mcp.stdio import MAX_DEPTH, Refusal, check_line


def call_line(arguments_json: str) -> bytes:
    return (
        '{"jsonrpc":"2.0","id":3,"method":"tools/call",'
        f'"params":{{"name":"todo_write","arguments":{arguments_json}}}}}'
    ).encode()


def handed_on(line: bytes) -> dict[str, Any]:
    checked = check_line(line)
    assert isinstance(checked, str), checked
    message: dict[str, Any] = json.loads(checked)
    return message


def nested(levels: int) -> str:
    """`levels` arrays inside the arguments object."""
    return '{"x":' + "[" * levels + "1" + "]" * levels + "}"


def test_lone_surrogate_escapes_in_either_case_become_replacement_characters() -> None:
    message = handed_on(call_line(r'{"a":"half \ud83d","b":"\uDC00 low","\uD800":"key"}'))
    assert message["params"]["arguments"] == {
        "a": "half \ufffd",
        "b": "\ufffd low",
        "\ufffd": "key",
    }


def test_a_whole_emoji_and_an_escaped_backslash_are_kept_as_they_are() -> None:
    # `\\ud83d` is a backslash and the letters "ud83d", not a surrogate.
    message = handed_on(call_line(r'{"a":"\ud83d\ude00","b":"C:\\ud83d"}'))
    assert message["params"]["arguments"] == {"a": "\U0001f600", "b": "C:\\ud83d"}


def test_nesting_up_to_the_limit_is_handed_on_and_one_level_more_is_refused() -> None:
    # The message is at depth 0, its params at 1, the arguments at 2, and the 1 inside
    # the arrays of "x" at 2 + 1 + arrays - 1 + 1.
    deepest = MAX_DEPTH - 3
    assert handed_on(call_line(nested(deepest)))["params"]["arguments"]["x"]
    refused = check_line(call_line(nested(deepest + 1)))
    assert isinstance(refused, Refusal)
    assert (refused.code, refused.id) == (types.INVALID_PARAMS, 3)


def test_brackets_inside_strings_are_text_not_nesting() -> None:
    text = "[{" * MAX_DEPTH
    assert handed_on(call_line(json.dumps({"note": text})))["params"]["arguments"] == {"note": text}
