"""The fence around pygls's private names: every name used is in the installed pygls, and
none is used outside `plansight.lsp.pygls_private`."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest
from pygls.server import JsonRPCServer

from plansight.lsp import pygls_private
from plansight.lsp.pygls_private import PRIVATE_METHODS, FencedProtocol
from plansight.lsp.server import build_server

PACKAGE = Path(pygls_private.__file__).resolve().parent.parent
# Every private name of pygls or asyncio the fence uses, as written at a use.
FENCED = re.compile(
    r"\b_send_data\b|\b_handle_request\b|\b_send_response\b|\b_serialize_message\b"
    r"|\b_report_server_error\b|\b_include_headers\b|\b_shutdown\b|\._server\b|\._buffer\b"
    r"|\.fm\b|\bis_thread_function\b|\b_converter\b|\b_request_futures\b"
)


def test_every_private_name_the_fast_paths_use_is_in_the_installed_pygls() -> None:
    missing = pygls_private.problems()
    assert missing == [], (
        "pygls changed under the server's fast paths (plansight/lsp/pygls_private.py): "
        + "; ".join(missing)
    )


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    PRIVATE_METHODS,
    ids=[f"{owner.__name__}.{name}" for owner, name, _ in PRIVATE_METHODS],
)
def test_private_method_is_there_with_the_parameters_used(
    owner: type, name: str, parameters: tuple[str, ...]
) -> None:
    import inspect

    method = getattr(owner, name, None)
    assert callable(method), f"{owner.__name__}.{name} is gone from pygls"
    assert tuple(inspect.signature(method).parameters) == parameters


def test_a_server_takes_the_fast_paths_on_the_installed_pygls() -> None:
    protocol = build_server().protocol
    assert isinstance(protocol, FencedProtocol)
    assert protocol.fast
    for name in pygls_private.PRIVATE_ATTRIBUTES:
        assert hasattr(protocol, name), f"pygls's protocol no longer has {name}"
    # The instance's send and request paths are the fast ones.
    assert protocol._send_data == protocol._send_data_fast
    assert protocol._handle_request == protocol._handle_request_fast


def test_the_installed_pygls_version_is_read() -> None:
    version = pygls_private.pygls_version()
    assert version is not None and version.split(".")[0] == pygls_private.TESTED_MAJOR


def test_the_stream_reader_keeps_its_buffer_where_the_transport_looks() -> None:
    # Without the buffer `more_buffered` says True for an empty reader (its safe default),
    # so an empty reader's False shows the transport sees the installed Python's buffer.
    async def look() -> tuple[bool, bool]:
        reader = asyncio.StreamReader()
        empty = pygls_private.more_buffered(reader)
        reader.feed_data(b"Content-Length: 2\r\n")
        return empty, pygls_private.more_buffered(reader)

    assert asyncio.run(look()) == (False, True)


def test_a_missing_name_turns_the_fast_paths_off_with_one_log_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delattr(JsonRPCServer, "_report_server_error")
    pygls_private.fast_paths_usable.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger=pygls_private.__name__):
            protocol = build_server().protocol
            build_server()  # a second server: nothing more is said
        assert isinstance(protocol, FencedProtocol) and not protocol.fast
        assert "_send_data" not in protocol.__dict__
        assert pygls_private.request_runner(protocol) is None
        lines = [r.getMessage() for r in caplog.records if r.name == pygls_private.__name__]
        assert len(lines) == 1
        assert "JsonRPCServer._report_server_error is gone" in lines[0]
        assert "public" in lines[0]
    finally:
        monkeypatch.undo()
        pygls_private.fast_paths_usable.cache_clear()


def test_no_private_name_of_pygls_is_used_outside_the_fence() -> None:
    uses = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "pygls_private.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if FENCED.search(line)
    ]
    assert uses == []
