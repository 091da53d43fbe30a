"""The commands that start a face for an editor or an agent (`serve`, `mcp`, `hook`) and
those editors and tools ask (`store-path`, `schema`), each declared beside its handler.
The warm hook process's command (`hook-daemon`) is in `cli/main.py`: it runs the CLI."""

from __future__ import annotations

import argparse
import json

from plansight.cli.command import EXIT_OK, Command, no_arguments, store_flags


def _serve(args: argparse.Namespace) -> int:
    import gc

    # What the server imports lives as long as the process: no collector passes over it
    # while it loads (they were a tenth of the start-up); `run_stdio` freezes it all and
    # turns the collector back on.
    gc.disable()
    from plansight.lsp.server import run_stdio

    return run_stdio(args.db, args.workspace)


SERVE = Command("serve", "the language server on stdio", store_flags, _serve)


def _store_path_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace root an editor opened (default: the nearest ancestor with .git)",
    )


def _store_path(args: argparse.Namespace) -> int:
    """The store `serve` opens for the same `--db` and root: one rule, `store_location`
    (a team store's URL is printed without its password)."""
    from plansight.store.location import shown_location, store_location

    print(shown_location(store_location(args.db, args.root)))
    return EXIT_OK


STORE_PATH = Command(
    "store-path",
    "print the store file the server would use (editors ask this, never hash it)",
    _store_path_arguments,
    _store_path,
)


def _schema(args: argparse.Namespace) -> int:
    from plansight.protocol.models import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


SCHEMA = Command(
    "schema", "the JSON Schema of every request and notification", no_arguments, _schema
)


def _mcp_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    parser.add_argument(
        "--session",
        metavar="S",
        help="the session (default: $PLANSIGHT_SESSION, else the same client's list written "
        'to in the last 5 minutes that no running server holds, else "<client> <start time>")',
    )
    parser.add_argument(
        "--agent",
        metavar="AGENT",
        help="also offer that agent's own plan tool (Codex: update_plan); "
        "Codex clients get it without this",
    )


def _mcp(args: argparse.Namespace) -> int:
    from plansight.mcp.server import run_mcp

    return run_mcp(args.db, args.session, args.workspace, args.agent)


MCP = Command("mcp", "an MCP server for terminal agents (stdio)", _mcp_arguments, _mcp)


def _hook_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", choices=("claude-code", "codex", "gemini", "copilot"))


# `plansight.warm.entry` runs it before the parser is built (the agent waits for it); it is
# declared for `--help` and for bad arguments.
HOOK = Command(
    "hook",
    "read one agent hook event on stdin (what `plansight setup` installs)",
    _hook_arguments,
    None,
)
