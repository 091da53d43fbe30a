"""The commands that show plans: `show`, `watch`, `sessions`, `export`, `context`,
`history` and `demo`, each declared beside its handler."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from plansight.cli.command import (
    EXIT_OK,
    BadInput,
    Command,
    names_a_file,
    session_args,
    session_flag,
    store_flags,
    viewed_session_flag,
)
from plansight.cli.output import console, out
from plansight.cli.stores import require_session, service_of


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    viewed_session_flag(parser)
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")


def _show(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ExportParams, GetParams

    service = service_of(args, read=True)
    session = require_session(service, args)
    if args.format == "json":
        out(json.dumps(service.get(GetParams(session=session)), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        out(service.export(ExportParams(session=session, format="markdown"))["text"], end="")
    else:
        from plansight.cli.panel import render_state

        console().print(render_state(service.get(GetParams(session=session))))
    return EXIT_OK


SHOW = Command(
    "show",
    "print the plan",
    _show_arguments,
    _show,
    description="Print a session's plan: the one updated last, or --session's "
    "(`plansight sessions` lists them).",
)


def _watch_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    parser.add_argument(
        "--session",
        metavar="S",
        help="follow this session only (default: the one updated last, as described above)",
    )


def _watch(args: argparse.Namespace) -> int:
    from plansight.cli.live import watch
    from plansight.cli.workspace_warnings import rechecked

    service = service_of(args, read=True)
    if args.session:
        require_session(service, args)
    with contextlib.suppress(KeyboardInterrupt):
        watch(service, args.session, console(), warnings=rechecked())
    return EXIT_OK


WATCH = Command(
    "watch",
    "the plan, live",
    _watch_arguments,
    _watch,
    description="The plan, redrawn as it changes. It follows the session updated last "
    "when it starts, and keeps following it until it has been idle for 2 minutes "
    "while another is newer; every other session written to in the last 10 minutes "
    "shows as one line underneath. In a short "
    "terminal the list scrolls to keep the task in progress in view.",
)


def _sessions_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    parser.add_argument("--json", action="store_true", help="print them as JSON")


def _sessions(args: argparse.Namespace) -> int:
    result = service_of(args, read=True).sessions()
    if args.json:
        out(json.dumps(result, indent=2, ensure_ascii=False))
    elif not result["sessions"]:
        print("No sessions yet.")
    else:
        from plansight.cli.panel import render_sessions

        console().print(render_sessions(result["sessions"]))
    return EXIT_OK


SESSIONS = Command("sessions", "list the sessions", _sessions_arguments, _sessions, relayed=True)


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    viewed_session_flag(parser)
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    names_a_file(
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="write to FILE instead of stdout"
        )
    )


def _export(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ExportParams

    service = service_of(args, read=True)
    session = require_session(service, args)
    text = service.export(ExportParams(session=session, format=args.format))["text"]
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"cannot write {args.output}: {exc.__class__.__name__}") from None
    else:
        out(text, end="")
    return EXIT_OK


EXPORT = Command(
    "export", "print the plan as markdown or JSON", _export_arguments, _export, relayed=True
)


def _context_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    session_flag(parser)
    parser.add_argument(
        "--full", action="store_true", help="with every task (after a compaction or resume)"
    )


def _context(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ContextParams

    params = ContextParams.validate(session_args(args, full=args.full))
    out(service_of(args, read=True).context(params)["text"])
    return EXIT_OK


CONTEXT = Command(
    "context", "the text an agent's loop injects", _context_arguments, _context, relayed=True
)


def _history_arguments(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    session_flag(parser)
    parser.add_argument("--limit", type=int, metavar="N", help="at most N changes")
    parser.add_argument("--json", action="store_true", help="print them as JSON")


def _history(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import HistoryParams

    if args.limit is not None and args.limit < 1:
        raise BadInput("--limit must be 1 or more")
    service = service_of(args, read=True)
    session = require_session(service, args)
    params = HistoryParams(session=session, limit=args.limit)
    events = service.history(params)["events"]
    if args.json:
        print(json.dumps({"events": events}, indent=2, ensure_ascii=False))
    elif not events:
        print("No changes yet.")
    else:
        from plansight.cli.panel import render_history

        console().print(render_history(events))
    return EXIT_OK


HISTORY = Command(
    "history", "the session's changes, newest first", _history_arguments, _history, relayed=True
)


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fast", action="store_true", help="no pauses (for tests)")


def _demo(args: argparse.Namespace) -> int:
    from plansight.cli.demo import run_demo

    return run_demo(console(), fast=args.fast)


DEMO = Command("demo", "watch a scripted agent plan and work, live", _demo_arguments, _demo)
