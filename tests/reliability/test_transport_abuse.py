"""Transport abuse: what a broken or hostile client writes to the server's stdin.

Every case ends in an error answer and a server that keeps serving, or in a clean exit;
never a hang, a spin, a crash or memory that grows with what was sent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_checks import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    assert_error_shape,
    assert_no_leak,
    assert_result_shape,
)
from reliability_wire import WireClient, encode, frame, rss_bytes, wait_until_sleeping

MIB = 1024 * 1024
SERVER_NOT_INITIALIZED = -32002


def request_bytes(msg_id: Any, method: str, params: Any = None) -> bytes:
    return frame(encode({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))


def assert_serving(client: WireClient) -> None:
    """A normal request still gets its normal answer."""
    result = client.result("plansight/get", {"session": "abuse"})
    assert_result_shape("plansight/get", result)


def expect_error(client: WireClient, code: int, msg_id: Any = None) -> dict[str, Any]:
    message = client.response(msg_id)
    error = assert_error_shape(message)
    assert error["code"] == code, message
    assert_no_leak(message)
    return error


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireClient]:
    """One server that takes every recoverable abuse in turn."""
    folder = tmp_path_factory.mktemp("abuse")
    client = WireClient(folder / "plans.sqlite3", log_dir=folder / "logs")
    client.initialize()
    client.result(
        "plansight/apply",
        {"session": "abuse", "ops": [{"op": "append", "phase": "P", "items": ["x"]}]},
    )
    yield client
    assert client.shutdown() == 0
    client.cleanup()


def invalid_json(client: WireClient) -> None:
    client.send_bytes(frame(b'{"jsonrpc": "2.0", "id": 1, "method": '))
    expect_error(client, PARSE_ERROR)


def not_an_object(client: WireClient) -> None:
    for body in (b"[]", b"42", b'"plansight/get"', b"null", b"[{}, {}]"):
        client.send_bytes(frame(body))
        expect_error(client, INVALID_REQUEST)


def not_json_rpc(client: WireClient) -> None:
    client.send({"id": 5, "method": "plansight/get", "params": {}})
    expect_error(client, INVALID_REQUEST, 5)
    client.send({"jsonrpc": "1.0", "id": 6, "method": "plansight/get", "params": {}})
    expect_error(client, INVALID_REQUEST, 6)
    client.send({"jsonrpc": "2.0", "id": 7, "method": 12, "params": {}})
    expect_error(client, INVALID_REQUEST, 7)


def invalid_utf8(client: WireClient) -> None:
    client.send_bytes(
        frame(b'{"jsonrpc": "2.0", "id": 8, "method": "plansight/get", "x": "\xff\xfe"}')
    )
    expect_error(client, PARSE_ERROR)


def nesting_past_any_parser(client: WireClient) -> None:
    client.send_bytes(frame(b"[" * 200_000 + b"]" * 200_000))
    expect_error(client, PARSE_ERROR)
    body = b'{"jsonrpc": "2.0", "id": 9, "method": "plansight/get", "params": {"x": '
    client.send_bytes(frame(body + b'{"k":' * 50_000 + b"1" + b"}" * 50_001 + b"}"))
    expect_error(client, PARSE_ERROR)


def number_too_long_to_read(client: WireClient) -> None:
    body = b'{"jsonrpc": "2.0", "id": 10, "method": "plansight/get", "params": {"x": '
    client.send_bytes(frame(body + b"9" * 100_000 + b"}}"))
    expect_error(client, PARSE_ERROR)


def content_length_too_small(client: WireClient) -> None:
    body = encode({"jsonrpc": "2.0", "id": 11, "method": "plansight/get", "params": {}})
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % (len(body) - 10) + body)
    expect_error(client, PARSE_ERROR)
    # The rest of that body is junk in front of the next header: found and served.
    assert_serving(client)


def content_length_too_large(client: WireClient) -> None:
    body = encode({"jsonrpc": "2.0", "id": 14, "method": "plansight/get", "params": {}})
    # The body runs into what follows: here junk, which makes the message unreadable.
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % (len(body) + 20) + body + b"x" * 20)
    expect_error(client, PARSE_ERROR)


def garbage_between_messages(client: WireClient) -> None:
    client.send_bytes(b"\x00\xff garbage\r\nmore garbage\r\n\r\n\r\n")
    client.send_bytes(b"junk before the header Content-Length: 2\r\n\r\n{}")
    expect_error(client, INVALID_REQUEST)
    assert_serving(client)


def unusual_but_valid_headers(client: WireClient) -> None:
    body = encode({"jsonrpc": "2.0", "id": 12, "method": "plansight/get", "params": {}})
    client.send_bytes(
        b"content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
        % len(body)
        + body
    )
    assert "result" in client.response(12)
    client.send_bytes(b"\r\n\r\n" + b"Content-Length:%d\n\n" % len(body) + body)
    assert "result" in client.response(12)


def body_of_twenty_megabytes(client: WireClient) -> None:
    assert_serving(client)
    before = rss_bytes(client.pid)
    for _ in range(3):
        padding = b"x" * (20 * MIB)
        client.send_bytes(
            frame(
                b'{"jsonrpc": "2.0", "id": 13, "method": "plansight/get", "x": "' + padding + b'"}'
            )
        )
        error = expect_error(client, INVALID_REQUEST)
        assert "limit" in error["message"]
        assert_serving(client)
    # Skipped unread, so the server's memory does not grow with what was sent.
    assert rss_bytes(client.pid) - before < 8 * MIB


def requests_without_params(client: WireClient) -> None:
    answer = client.call("plansight/get", omit_params=True)
    assert answer["result"]["session"] == "default"
    answer = client.call("plansight/sessions", omit_params=True)
    assert_result_shape("plansight/sessions", answer["result"])
    error = expect_error(
        client, INVALID_PARAMS, client.request("plansight/apply", omit_params=True)
    )
    assert error["data"]["errors"][0]["path"] == "ops"


def params_not_an_object(client: WireClient) -> None:
    for params in ([], ["x"], 3, "s", True):
        expect_error(client, INVALID_PARAMS, client.request("plansight/get", params))
    # A null `params` means "no arguments", as a missing one does.
    assert client.result("plansight/get", None)["session"] == "default"


def unknown_methods(client: WireClient) -> None:
    for method in ("plansight/nope", "", "textDocument/hover", "workspace/symbol"):
        msg_id = client.request(method, {})
        message = client.response(msg_id)
        error = assert_error_shape(message)
        assert error["code"] in (METHOD_NOT_FOUND, INVALID_REQUEST, INVALID_PARAMS), message


def notifications_sent_as_requests(client: WireClient) -> None:
    """A notification method with an id is a request nobody serves: it must still be
    answered, or the client waits forever."""
    for method, params in (
        ("initialized", {}),
        ("$/cancelRequest", {"id": 1}),
        ("$/setTrace", {"value": "off"}),
        ("workspace/didChangeConfiguration", {"settings": {}}),
        ("plansight/didChange", {}),
    ):
        message = client.response(client.request(method, params))
        error = assert_error_shape(message)
        assert error["code"] in (METHOD_NOT_FOUND, INVALID_REQUEST), message


def unsolicited_responses(client: WireClient) -> None:
    client.send({"jsonrpc": "2.0", "id": 99, "result": {"x": 1}})
    client.send({"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}})
    client.send({"jsonrpc": "2.0", "id": 97, "error": "not an error object"})
    assert_serving(client)


def notifications_of_our_methods(client: WireClient) -> None:
    """A plansight request sent without id gets no answer (it is a notification), and
    broken ones of them cost nothing either."""
    client.send({"jsonrpc": "2.0", "method": "plansight/get", "params": {"session": 5}})
    client.send({"jsonrpc": "2.0", "method": "plansight/apply", "params": None})
    client.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": None})
    client.send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": None})
    assert_serving(client)


RECOVERABLE: list[Callable[[WireClient], None]] = [
    invalid_json,
    not_an_object,
    not_json_rpc,
    invalid_utf8,
    nesting_past_any_parser,
    number_too_long_to_read,
    content_length_too_small,
    content_length_too_large,
    garbage_between_messages,
    unusual_but_valid_headers,
    body_of_twenty_megabytes,
    requests_without_params,
    params_not_an_object,
    unknown_methods,
    notifications_sent_as_requests,
    unsolicited_responses,
    notifications_of_our_methods,
]


@pytest.mark.parametrize("abuse", RECOVERABLE, ids=lambda f: f.__name__)
def test_a_recoverable_abuse_is_answered_and_the_server_keeps_serving(
    server: WireClient, abuse: Callable[[WireClient], None], figures: Counter[str]
) -> None:
    abuse(server)
    assert_serving(server)
    wait_until_sleeping(server.pid)
    figures["transport: recoverable abuses answered"] += 1


# ---------------------------------------------------------------- hopeless framing


def assert_closed_cleanly(client: WireClient) -> None:
    assert client.wait_exit() == 0
    log = client.stderr_text()
    assert "Traceback" not in log, log


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: -5\r\n\r\n{}",
        b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}",
        b"Content-Length: 99999999999999999999999\r\n\r\n{}",
        b"X-Header: " + b"y" * 20_000 + b"\r\n\r\n",
        b"no newline at all " * 2000,
    ],
    ids=["not-a-number", "negative", "5000-digits", "absurdly-large", "long-header", "no-newline"],
)
def test_hopeless_framing_is_answered_then_the_server_closes(
    spawn: Any, tmp_path: Path, header: bytes, figures: Counter[str]
) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.send_bytes(header)
    message = client.read_message()
    assert message is not None, "closed without a word"
    error = assert_error_shape(message)
    assert error["code"] in (PARSE_ERROR, INVALID_REQUEST), message
    assert client.read_message() is None
    assert_closed_cleanly(client)
    figures["transport: hopeless framings closed cleanly"] += 1


def test_an_oversized_message_is_refused_before_its_body_arrives(
    spawn: Any, tmp_path: Path
) -> None:
    """The size limit is enforced on the header: the client hears of it without sending
    the body, and the server then skips exactly that many bytes."""
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % (5 * MIB))
    error = expect_error(client, INVALID_REQUEST)
    assert "limit" in error["message"]
    client.send_bytes(b" " * (5 * MIB))
    assert_serving(client)


@pytest.mark.parametrize(
    "last_words",
    [
        b"",
        b"Content-Len",
        b"Content-Length: 200\r\n",
        b"Content-Length: 200\r\n\r\n" + b'{"jsonrpc": "2.0", "id": 1, "meth',
        b"Content-Length: %d\r\n\r\n" % (30 * MIB) + b"x" * MIB,
    ],
    ids=["nothing", "half-a-header", "headers-only", "half-a-body", "half-an-oversized-body"],
)
def test_a_client_that_vanishes_mid_message_lets_the_server_exit_cleanly(
    spawn: Any, tmp_path: Path, last_words: bytes, figures: Counter[str]
) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    client.send_bytes(last_words)
    client.close_input()
    assert_closed_cleanly(client)
    figures["transport: vanished clients, clean exits"] += 1


# ---------------------------------------------------------------- life cycle


def test_requests_before_initialize_are_refused_and_then_served(spawn: Any, tmp_path: Path) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    for method in ("plansight/get", "plansight/apply", "plansight/sessions", "plansight/context"):
        message = client.call(method, {"ops": [{"op": "start"}]})
        error = assert_error_shape(message)
        assert error["code"] == SERVER_NOT_INITIALIZED, message
        assert_no_leak(message)
    client.initialize()
    assert client.result("plansight/get", {})["version"] == 0


def test_a_second_initialize_is_refused_and_changes_nothing(spawn: Any, tmp_path: Path) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    other = tmp_path / "other.sqlite3"
    message = client.call(
        "initialize", {"processId": None, "rootUri": other.parent.as_uri(), "capabilities": {}}
    )
    error = assert_error_shape(message)
    assert error["code"] == INVALID_REQUEST, message
    assert client.result("plansight/get", {})["version"] == 1


def test_requests_after_shutdown_are_refused_and_exit_still_works(
    spawn: Any, tmp_path: Path
) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    assert "error" not in client.call("shutdown", None)
    for method in ("plansight/get", "plansight/apply", "shutdown"):
        message = client.call(method, {})
        error = assert_error_shape(message)
        assert error["code"] == INVALID_REQUEST, message
    client.notify("exit", None)
    assert_closed_cleanly(client)


def test_pipelined_requests_are_all_answered_in_order(spawn: Any, tmp_path: Path) -> None:
    """A burst written in one go, broken requests among good ones."""
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize({"maxTasks": 1000})
    burst = bytearray()
    for n in range(1, 501):
        params: Any = {"ops": [{"op": "append", "phase": "P", "items": [f"task {n}"]}]}
        if n % 7 == 0:
            params = {"ops": "not a list"}
        if n % 11 == 0:
            burst += frame(b"{broken")
        burst += request_bytes(n, "plansight/apply" if n % 3 else "plansight/get", params)
    client.send_bytes(bytes(burst))
    answered = []
    while len(answered) < 500:
        message = client.read_message()
        assert message is not None
        if "method" in message:
            continue
        if message["id"] is None:
            assert message["error"]["code"] == PARSE_ERROR
            continue
        answered.append(message["id"])
    assert answered == list(range(1, 501))
    state = client.result("plansight/get", {})
    changed = [n for n in range(1, 501) if n % 3 and n % 7]
    assert state["version"] == len(changed)
    assert [t["content"] for t in state["phases"][0]["tasks"]] == [f"task {n}" for n in changed]


# ---------------------------------------------------------------- ids and depth


@pytest.mark.parametrize(
    "raw_id",
    ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "true", "false", "[1]", "{}", "1.5"],
)
def test_an_id_that_is_not_a_string_or_an_integer_is_refused_with_a_null_id(
    server: WireClient, raw_id: str, figures: Counter[str]
) -> None:
    """Echoed verbatim, `1e999` came back as `Infinity`, which is not JSON."""
    body = b'{"jsonrpc":"2.0","id":%s,"method":"plansight/get","params":{}}' % raw_id.encode()
    server.send_bytes(frame(body))
    message = server.read_message()
    assert message is not None and "result" not in message, message
    assert message["id"] is None
    assert message["error"]["code"] in (INVALID_REQUEST, PARSE_ERROR)
    if raw_id in ("NaN", "Infinity", "-Infinity"):
        assert message["error"]["code"] == PARSE_ERROR  # not JSON at all
    else:
        assert message["error"]["code"] == INVALID_REQUEST
    assert_serving(server)
    figures["transport: bad ids refused"] += 1


def test_deep_nesting_in_an_unknown_field_is_invalid_params_and_never_logged(
    server: WireClient, figures: Counter[str]
) -> None:
    # Written by hand: this process's own encoder would run out of stack as well.
    deep = b"[" * 975 + b'"x"' + b"]" * 975
    msg_id = server.new_id()
    server.send_bytes(
        frame(
            b'{"jsonrpc":"2.0","id":%d,"method":"plansight/apply","params":{"session":"abuse",'
            b'"ops":[{"op":"append","phase":"P","items":["deep"]}],"extra":%s}}' % (msg_id, deep)
        )
    )
    answer = server.response(msg_id)
    error = expect_error_of(answer, INVALID_PARAMS)
    assert error["data"]["errors"][0]["path"].startswith("extra.0.0")
    assert "nested deeper" in error["message"]
    state = server.result("plansight/get", {"session": "abuse"})
    assert "deep" not in [t["content"] for p in state["phases"] for t in p["tasks"]]
    assert_serving(server)
    figures["transport: deep nesting refused"] += 1


def expect_error_of(message: dict[str, Any], code: int) -> dict[str, Any]:
    error = assert_error_shape(message)
    assert error["code"] == code, message
    assert_no_leak(message)
    return error
