"""The contract's version, method names and ingest formats: what a server announces in
its `initialize` answer, importable without pydantic or the request shapes, so the language server can
answer `initialize` before it loads them (cold start, docs/performance.md).
`plansight.protocol.models` pairs each method with its shapes and checks it against
this list when it is imported."""

from __future__ import annotations

from typing import Literal, get_args

PROTOCOL_VERSION = 4
DID_CHANGE = "plansight/didChange"
DID_PRUNE = "plansight/didPrune"

# Every request method, in the order they were added to the contract.
METHODS: tuple[str, ...] = (
    "plansight/apply",
    "plansight/write",
    "plansight/get",
    "plansight/sessions",
    "plansight/clear",
    "plansight/export",
    "plansight/import",
    "plansight/context",
    "plansight/history",
    "plansight/restore",
    "plansight/ingest",
    "plansight/undo",
)

# Every agent format `plansight/ingest` reads (one adapter each in `plansight.agents`).
Format = Literal[
    "claude-todowrite",
    "claude-tasks",
    "codex-plan",
    "gemini-todos",
    "opencode-todos",
    "acp-plan",
    "vscode-todos",
    "roo-todos",
    "markdown",
]
FORMATS: tuple[str, ...] = get_args(Format)
