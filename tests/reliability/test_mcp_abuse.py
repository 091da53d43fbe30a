"""`plansight mcp` fed what a broken or hostile client writes: every line gets the JSON-RPC
answer a client expects, and the server keeps serving (issue #10, item 7)."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_checks import assert_no_leak

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
WAIT_SECONDS = 20  # far beyond any answer; a hang fails the test instead of blocking it


class McpPipe:
    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "plansight", "mcp", "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._buffer = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self.proc.stdout], [], [], WAIT_SECONDS)
            assert ready, "no answer: the client would wait for ever"
            chunk = self.proc.stdout.read1(1 << 16)
            assert chunk, "the server closed its output"
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode())
        return self.answer()

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(WAIT_SECONDS)


def initialize(pipe: McpPipe, client_name: str = "abuse") -> dict[str, Any]:
    answer = pipe.call(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": client_name, "version": "1"},
            },
        }
    )
    pipe.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    return answer


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpPipe]:
    server = McpPipe(tmp_path_factory.mktemp("mcp-abuse") / "plans.sqlite3")
    assert "result" in initialize(server)
    yield server
    assert server.close() == 0


def assert_still_serving(pipe: McpPipe) -> None:
    answer = pipe.call({"jsonrpc": "2.0", "id": "after", "method": "tools/list"})
    assert answer["id"] == "after" and "result" in answer, answer


DEEP = b"[" * 975 + b"1" + b"]" * 975

CASES: list[tuple[str, bytes, int, Any]] = [
    ("not JSON", b"hello there", PARSE_ERROR, None),
    ("invalid UTF-8", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"\xff}', PARSE_ERROR, None),
    ("an array", b"[1, 2]", INVALID_REQUEST, None),
    ("no jsonrpc", b'{"id": 1, "method": "tools/list"}', INVALID_REQUEST, None),
    ("no method", b'{"jsonrpc": "2.0", "id": 1}', INVALID_REQUEST, None),
    (
        "params a number",
        b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":5}',
        INVALID_REQUEST,
        7,
    ),
    ("id 1e999", b'{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}', INVALID_REQUEST, None),
    ("id 1.5", b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', INVALID_REQUEST, None),
    ("id true", b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', INVALID_REQUEST, None),
    ("id [1]", b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', INVALID_REQUEST, None),
    ("id {}", b'{"jsonrpc":"2.0","id":{},"method":"tools/list"}', INVALID_REQUEST, None),
    ("id NaN", b'{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}', PARSE_ERROR, None),
    (
        "975 levels in the arguments",
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"todo","arguments":{"x":'
        + DEEP
        + b"}}}",
        INVALID_PARAMS,
        8,
    ),
    ("975 levels, no id", b'{"jsonrpc":"2.0","x":' + DEEP + b"}", INVALID_REQUEST, None),
]


@pytest.mark.parametrize(
    ("line", "code", "answer_id"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_gets_the_error_a_client_expects(
    pipe: McpPipe, line: bytes, code: int, answer_id: Any, figures: Counter[str]
) -> None:
    pipe.send(line)
    answer = pipe.answer()
    if line.count(b"[") > 900 and answer["error"]["code"] == PARSE_ERROR:
        # Past the parser's own recursion limit (how close depends on the stack the
        # line is parsed on): not readable at all, so the id cannot be known.
        code, answer_id = PARSE_ERROR, None
    assert answer["id"] == answer_id, answer
    assert answer["error"]["code"] == code, answer
    assert_no_leak(answer)
    assert_still_serving(pipe)
    figures["mcp: bad lines answered"] += 1


def test_a_lone_surrogate_in_tool_arguments_is_answered(pipe: McpPipe) -> None:
    line = (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"todo",'
        b'"arguments":{"ops":[{"op":"append","phase":"P","items":["broken \\ud83d emoji"]}]}}}'
    )
    pipe.send(line)
    answer = pipe.answer()
    assert answer["id"] == 9 and "result" in answer, answer
    text = answer["result"]["content"][0]["text"]
    assert "broken" in text and "\ud83d" not in text
    assert_still_serving(pipe)


def test_a_line_over_4_mib_is_refused_and_skipped(pipe: McpPipe, figures: Counter[str]) -> None:
    big = (
        b'{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"x":"'
        + b"a" * (5 << 20)
        + b'"}}'
    )
    pipe.send(big)
    answer = pipe.answer()
    assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST, answer
    assert "4194304 byte limit" in answer["error"]["message"]
    assert_still_serving(pipe)
    figures["mcp: oversized lines refused"] += 1


def test_a_lone_surrogate_in_the_client_name_is_answered(tmp_path: Path) -> None:
    server = McpPipe(tmp_path / "plans.sqlite3")
    try:
        server.send(
            b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"agent \\ud83d","version":"1"}}}'
        )
        assert "result" in server.answer()
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        answer = server.call(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "todo_read"}}
        )
        assert answer["result"]["isError"] is False, answer
        assert server.close() == 0
    finally:
        server.proc.kill()
        server.proc.wait()
