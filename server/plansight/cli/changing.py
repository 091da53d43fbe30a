"""The commands that change a plan: `apply`, `write`, `ingest`, `clear`, `import` and
`restore`, each declared beside its handler (a person's verbs, `undo` among them, are
`cli/person.py`'s). Each runs its request through its binding to the service
(`bindings.py`); its flags stay written by hand."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from plansight.cli.command import (
    EXIT_OK,
    EXIT_RESULT_ERROR,
    BadInput,
    Command,
    change_flags,
    names_a_file,
    read_json,
    session_args,
    session_flag,
    store_flags,
)
from plansight.cli.output import out
from plansight.cli.stores import service_of


def _print_result(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        out(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        out(result["summary"])
    return EXIT_RESULT_ERROR if result["isError"] else EXIT_OK


def _change(args: argparse.Namespace, method: str, params: dict[str, Any]) -> int:
    """A changing request, validated and run by the service method it is bound to
    (`bindings.py`)."""
    from plansight.bindings import CHANGES

    outcome = CHANGES[method].answer(service_of(args), params)
    return _print_result(outcome.result, args.json)


def _changing(parser: argparse.ArgumentParser) -> None:
    """The flags of every command that changes a session's list."""
    store_flags(parser)
    session_flag(parser)
    change_flags(parser)


_MERGE_HELP = (
    "with --origin user and an older --base-version: merge with what changed since, "
    "or fail listing the conflicts"
)
_MERGE_MINE_HELP = (
    "as --merge, but each conflict takes this edit's side (merge: \"mine\", an editor's "
    "Overwrite); what others changed that conflicts with nothing here stays"
)


def _stale_edit_arguments(parser: argparse.ArgumentParser) -> None:
    """`--base-version`, and how a stale edit is merged: `--merge` or `--merge-mine`."""
    parser.add_argument("--base-version", type=int, metavar="N")
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--merge", dest="merge", action="store_const", const=True, default=False, help=_MERGE_HELP
    )
    how.add_argument(
        "--merge-mine", dest="merge", action="store_const", const="mine", help=_MERGE_MINE_HELP
    )


def _stale_edit(args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """`--base-version` and `--merge` / `--merge-mine` as the request's params."""
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    if args.merge:
        params["merge"] = args.merge  # true, or "mine"
    return params


def _apply_arguments(parser: argparse.ArgumentParser) -> None:
    _changing(parser)
    parser.add_argument(
        "--ops", required=True, metavar="JSON|-", help="a JSON list of ops, or - for stdin"
    )
    parser.add_argument("--base-version", type=int, metavar="N")


def _apply(args: argparse.Namespace) -> int:
    ops = read_json(args.ops, "--ops")
    if isinstance(ops, dict):
        ops = ops.get("ops", [ops])
    params = session_args(args, ops=ops, origin=args.origin)
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    return _change(args, "plansight/apply", params)


APPLY = Command(
    "apply", "apply ordered operations (as the agent)", _apply_arguments, _apply, relayed=True
)


def _write_arguments(parser: argparse.ArgumentParser) -> None:
    _changing(parser)
    parser.add_argument(
        "--todos", required=True, metavar="JSON|-", help="a JSON list of todos, or - for stdin"
    )
    _stale_edit_arguments(parser)


def _write(args: argparse.Namespace) -> int:
    todos = read_json(args.todos, "--todos")
    if isinstance(todos, dict) and "todos" in todos:
        todos = todos["todos"]
    params = session_args(args, todos=todos, origin=args.origin)
    return _change(args, "plansight/write", _stale_edit(args, params))


WRITE = Command(
    "write",
    "replace the list (TodoWrite, as the agent)",
    _write_arguments,
    _write,
    relayed=True,
)


def _ingest_arguments(parser: argparse.ArgumentParser) -> None:
    _changing(parser)
    parser.add_argument(
        "--format",
        required=True,
        metavar="F",
        # Written out so that `--help` needs no import; a test checks it against FORMATS.
        help="claude-todowrite, claude-tasks, codex-plan, gemini-todos, opencode-todos, "
        "acp-plan, vscode-todos, roo-todos, markdown or gemini-tracker",
    )
    parser.add_argument("--title", metavar="T", help="the session's title")
    parser.add_argument("--base-version", type=int, metavar="N")
    parser.add_argument("payload", metavar="PAYLOAD|-", help="the payload as JSON, or - for stdin")


def _ingest(args: argparse.Namespace) -> int:
    params = session_args(
        args, format=args.format, payload=read_json(args.payload, "PAYLOAD"), origin=args.origin
    )
    if args.title is not None:
        params["title"] = args.title
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    return _change(args, "plansight/ingest", params)


INGEST = Command(
    "ingest",
    "replace or change the list from an agent's own plan payload (as the agent)",
    _ingest_arguments,
    _ingest,
    relayed=True,
)


def _clear(args: argparse.Namespace) -> int:
    return _change(args, "plansight/clear", session_args(args, origin=args.origin))


CLEAR = Command("clear", "empty the list", _changing, _clear, relayed=True)


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    _changing(parser)
    names_a_file(
        parser.add_argument(
            "file",
            metavar="FILE",
            help="a markdown checklist or a Taskmaster tasks.json, or - for stdin",
        )
    )
    _stale_edit_arguments(parser)


def _import(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {args.file}: {exc.__class__.__name__}") from None
    # A Taskmaster tasks.json goes as it is: the server reads it (agents/taskmaster.py).
    params = session_args(args, markdown=text, origin=args.origin)
    return _change(args, "plansight/import", _stale_edit(args, params))


IMPORT = Command(
    "import", "replace the list from markdown", _import_arguments, _import, relayed=True
)


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    _changing(parser)
    parser.add_argument("version", type=int, metavar="VERSION", help="a version from `history`")


def _restore(args: argparse.Namespace) -> int:
    params = session_args(args, version=args.version, origin=args.origin)
    return _change(args, "plansight/restore", params)


RESTORE = Command(
    "restore",
    "bring the list back to what it was right after VERSION",
    _restore_arguments,
    _restore,
    relayed=True,
)
