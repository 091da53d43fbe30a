"""The `plansight` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from plansight import __version__

EXIT_OK, EXIT_RESULT_ERROR, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    """Printed as one line on stderr; exit 2."""


class _Parser(argparse.ArgumentParser):
    """Bad flags get the one clear line every other bad input gets, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see `{self.prog} --help`)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="plansight",
        description="See and steer an AI coding agent's plan: server, viewer and shell tools.",
    )
    parser.add_argument("--version", action="version", version=f"plansight {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    store = _Parser(add_help=False)
    store.add_argument(
        "--db",
        metavar="PATH|URL",
        help="the store file, or a postgresql:// URL (default: per workspace, or $PLANSIGHT_DB)",
    )
    store.add_argument(
        "--workspace",
        metavar="KEY",
        help="a team store's workspace (default: $PLANSIGHT_WORKSPACE, else from git's origin)",
    )
    session = _Parser(add_help=False)
    session.add_argument("--session", metavar="S", help='the session (default: "default")')
    # Reading commands look at what the agents wrote last, not at a fixed name.
    viewed = _Parser(add_help=False)
    viewed.add_argument(
        "--session", metavar="S", help="the session (default: the one updated last)"
    )
    change = _Parser(add_help=False)
    change.add_argument(
        "--origin",
        choices=("agent", "user"),
        default="agent",
        help="who makes the change (default: agent)",
    )
    change.add_argument("--json", action="store_true", help="print the whole result as JSON")

    serve = commands.add_parser("serve", parents=[store], help="the language server on stdio")
    serve.set_defaults(run=_serve)

    show = commands.add_parser(
        "show",
        parents=[store, viewed],
        help="print the plan",
        description="Print a session's plan: the one updated last, or --session's "
        "(`plansight sessions` lists them).",
    )
    show.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    show.set_defaults(run=_show)

    watch = commands.add_parser(
        "watch",
        parents=[store],
        help="the plan, live",
        description="The plan, redrawn as it changes. It follows the session updated last "
        "when it starts, and keeps following it until it has been idle for 2 minutes "
        "while another is newer; every other session written to in the last 10 minutes "
        "shows as one line underneath. In a short "
        "terminal the list scrolls to keep the task in progress in view.",
    )
    watch.add_argument(
        "--session",
        metavar="S",
        help="follow this session only (default: the one updated last, as described above)",
    )
    watch.set_defaults(run=_watch)

    apply = commands.add_parser(
        "apply", parents=[store, session, change], help="apply ordered operations"
    )
    apply.add_argument(
        "--ops", required=True, metavar="JSON|-", help="a JSON list of ops, or - for stdin"
    )
    apply.add_argument("--base-version", type=int, metavar="N")
    apply.set_defaults(run=_apply)

    write = commands.add_parser(
        "write", parents=[store, session, change], help="replace the list (TodoWrite)"
    )
    write.add_argument(
        "--todos", required=True, metavar="JSON|-", help="a JSON list of todos, or - for stdin"
    )
    write.add_argument("--base-version", type=int, metavar="N")
    write.add_argument("--merge", action="store_true", help=_MERGE_HELP)
    write.set_defaults(run=_write)

    ingest = commands.add_parser(
        "ingest",
        parents=[store, session, change],
        help="replace or change the list from an agent's own plan payload",
    )
    ingest.add_argument(
        "--format",
        required=True,
        metavar="F",
        # Written out so that `--help` needs no import; a test checks it against FORMATS.
        help="claude-todowrite, claude-tasks, codex-plan, gemini-todos, opencode-todos, "
        "acp-plan, vscode-todos, roo-todos or markdown",
    )
    ingest.add_argument("--title", metavar="T", help="the session's title")
    ingest.add_argument("--base-version", type=int, metavar="N")
    ingest.add_argument("payload", metavar="PAYLOAD|-", help="the payload as JSON, or - for stdin")
    ingest.set_defaults(run=_ingest)

    clear = commands.add_parser("clear", parents=[store, session, change], help="empty the list")
    clear.set_defaults(run=_clear)

    sessions = commands.add_parser("sessions", parents=[store], help="list the sessions")
    sessions.add_argument("--json", action="store_true", help="print them as JSON")
    sessions.set_defaults(run=_sessions)

    export = commands.add_parser(
        "export", parents=[store, viewed], help="print the plan as markdown or JSON"
    )
    export.add_argument("--format", choices=("markdown", "json"), default="markdown")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    export.set_defaults(run=_export)

    imp = commands.add_parser(
        "import", parents=[store, session, change], help="replace the list from markdown"
    )
    imp.add_argument("file", metavar="FILE", help="a markdown checklist, or - for stdin")
    imp.add_argument("--base-version", type=int, metavar="N")
    imp.add_argument("--merge", action="store_true", help=_MERGE_HELP)
    imp.set_defaults(run=_import)

    context = commands.add_parser(
        "context", parents=[store, session], help="the text an agent's loop injects"
    )
    context.add_argument(
        "--full", action="store_true", help="with every task (after a compaction or resume)"
    )
    context.set_defaults(run=_context)

    history = commands.add_parser(
        "history", parents=[store, session], help="the session's changes, newest first"
    )
    history.add_argument("--limit", type=int, metavar="N", help="at most N changes")
    history.add_argument("--json", action="store_true", help="print them as JSON")
    history.set_defaults(run=_history)

    restore = commands.add_parser(
        "restore",
        parents=[store, session, change],
        help="bring the list back to what it was right after VERSION",
    )
    restore.add_argument("version", type=int, metavar="VERSION", help="a version from `history`")
    restore.set_defaults(run=_restore)

    undo = commands.add_parser(
        "undo",
        parents=[store, session],
        help="step back one change (as the user); again steps back one more",
    )
    undo.add_argument("--json", action="store_true", help="print the whole result as JSON")
    undo.set_defaults(run=_undo)

    where = commands.add_parser(
        "store-path",
        parents=[store],
        help="print the store file the server would use (editors ask this, never hash it)",
    )
    where.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace root an editor opened (default: the nearest ancestor with .git)",
    )
    where.set_defaults(run=_store_path)

    schema = commands.add_parser("schema", help="the JSON Schema of every request and notification")
    schema.set_defaults(run=_schema)

    demo = commands.add_parser("demo", help="watch a scripted agent plan and work, live")
    demo.add_argument("--fast", action="store_true", help="no pauses (for tests)")
    demo.set_defaults(run=_demo)

    migrate = commands.add_parser(
        "migrate", help="copy a local store's sessions and history into a team store"
    )
    migrate.add_argument(
        "--from",
        dest="source",
        metavar="SQLITE_PATH",
        help="the local store (default: this project's, or $PLANSIGHT_DB when it is a file)",
    )
    migrate.add_argument("--to", required=True, metavar="URL", help="a postgresql:// URL")
    migrate.add_argument(
        "--workspace",
        metavar="KEY",
        help="the team store's workspace (default: $PLANSIGHT_WORKSPACE, else from git's origin)",
    )
    migrate.set_defaults(run=_migrate)

    mcp = commands.add_parser(
        "mcp", parents=[store], help="an MCP server for terminal agents (stdio)"
    )
    mcp.add_argument(
        "--session",
        metavar="S",
        help="the session (default: $PLANSIGHT_SESSION, else the same client's list written "
        'to in the last 5 minutes that no running server holds, else "<client> <start time>")',
    )
    mcp.add_argument(
        "--agent",
        metavar="AGENT",
        help="also offer that agent's own plan tool (Codex: update_plan); "
        "Codex clients get it without this",
    )
    mcp.set_defaults(run=_mcp)

    # `plansight.cli.entry` runs it before this parser is built (the agent waits for it);
    # it is here for `--help` and for bad arguments.
    hook = commands.add_parser(
        "hook", help="read one agent hook event on stdin (what `plansight setup` installs)"
    )
    hook.add_argument("agent", choices=("claude-code", "codex", "gemini", "copilot"))

    # Started by `plansight hook` itself; `plansight.cli.entry` runs it before this parser
    # is built when it has no argument or only `--stop`: here for `--help` and bad ones.
    daemon = commands.add_parser(
        "hook-daemon",
        help="the warm process that answers hooks and one-shot commands (starts by itself)",
        description="Run the warm hook process of the current settings in the foreground "
        "(the hooks start it by themselves; it leaves after ten idle minutes), or stop it.",
    )
    daemon.add_argument(
        "--stop", action="store_true", help="stop the one of the current settings, if one runs"
    )
    daemon.set_defaults(run=_hook_daemon)

    setup = commands.add_parser(
        "setup", help="install Plansight into an agent's hooks or an editor, in one line"
    )
    setup.add_argument(
        "target",
        choices=("claude-code", "codex", "gemini", "opencode", "copilot", "vscode", "nvim"),
    )
    setup.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="every project of this user (default), or only the project in the current folder",
    )
    setup.add_argument(
        "--dry-run", action="store_true", help="print what would change, change nothing"
    )
    setup.add_argument("--remove", action="store_true", help="take Plansight's entries out again")
    setup.set_defaults(run=_setup)

    doctor = commands.add_parser(
        "doctor",
        help="what of Plansight is installed and working for each agent and editor found",
    )
    doctor.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help="only these agents, claude-code, codex, gemini, opencode or copilot (and the "
        "store); default: every agent and editor found",
    )
    doctor.add_argument(
        "--json",
        action="store_true",
        help="the same findings as JSON, for editors: {ok, agents, store, editors}",
    )
    doctor.set_defaults(run=_doctor)
    return parser


# ---------------------------------------------------------------- helpers


# The stores a command opened, closed when it ends: as its own process would at exit,
# and in the warm process, which runs one command after another.
_opened: list[Any] = []


def _service(args: argparse.Namespace, read: bool = False) -> Any:
    """The service over the store the command names; a `read` of a store file that was
    named (`--db`, `PLANSIGHT_DB`) and does not exist is refused, never created."""
    from plansight.service import PlanService
    from plansight.store import open_store
    from plansight.store.location import store_location

    location = store_location(args.db, None)
    if read:
        _check_store_exists(args, location)
    service = PlanService(open_store(location, None, args.workspace))
    _opened.append(service)
    return service


# Reads that run before an agent's first write, by design: the live view, and the text an
# agent's loop injects on every turn. Their store file may be made later (its folder not).
_BEFORE_FIRST_WRITE = frozenset({"watch", "context"})


def _check_store_exists(args: argparse.Namespace, location: str) -> None:
    """A mistyped `--db` must not read as an empty plan. The default store of a project
    may not exist yet (nothing was written): that one reads as empty."""
    from plansight.store.location import is_postgres_url

    named = "--db" if args.db else "PLANSIGHT_DB" if os.environ.get("PLANSIGHT_DB") else None
    if named is None or is_postgres_url(location):
        return
    path = Path(location)
    if not (path.parent if args.command in _BEFORE_FIRST_WRITE else path).exists():
        raise BadInput(
            f"no plan store at {location} (from {named}): a read never creates one; "
            "a store is made by its first change"
        )


def _close_stores() -> None:
    while _opened:
        with contextlib.suppress(Exception):  # closing must not hide what the command said
            _opened.pop().close()


def _read_json(value: str, what: str) -> Any:
    text = sys.stdin.read() if value == "-" else value
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{what} is not valid JSON: {exc}") from None


def _console() -> Any:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich's own exits 1: see `_reader_gone`
            self.quiet = True
            _reader_gone()

    return _Console(highlight=False)


def _reader_gone() -> None:
    """The reader closed stdout (`plansight schema | head -1`): that is its choice, not a
    failure of the command. What is left to print goes nowhere, nothing is said, and the
    command ends with its own exit code (docs/reliability.md)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit must find a reader
        os.close(devnull)
    except (OSError, ValueError):  # no file behind stdout (the warm process's buffer)
        pass


def _out(text: str, end: str = "\n") -> None:
    """Plan text for the terminal: no escape sequence from the store reaches it."""
    from plansight.protocol.text import terminal_safe

    print(terminal_safe(text), end=end)


def _print_result(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        _out(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _out(result["summary"])
    return EXIT_RESULT_ERROR if result["isError"] else EXIT_OK


def _session_args(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    params = dict(extra)
    if args.session is not None:
        params["session"] = args.session
    return params


def _change(args: argparse.Namespace, method: str, params: dict[str, Any]) -> int:
    """A changing request, validated and run as the registry says (`protocol/registry.py`)."""
    from plansight.protocol.registry import BY_METHOD

    request = BY_METHOD[method]
    outcome = getattr(_service(args), request.service)(request.params.validate(params), params)
    return _print_result(outcome.result, args.json)


def _require_session(service: Any, args: argparse.Namespace) -> str:
    from plansight.cli.live import pick_session

    name = pick_session(service, args.session)
    if name is None:
        return args.session or "default"
    known = [s.session for s in service.summaries()]
    if args.session and name not in known:
        listed = ", ".join(f'"{s}"' for s in known) if known else "none yet"
        raise BadInput(f'no session named "{name}" in this store; its sessions: {listed}')
    return name


# ---------------------------------------------------------------- commands


def _serve(args: argparse.Namespace) -> int:
    import gc

    # What the server imports lives as long as the process: no collector passes over it
    # while it loads (they were a tenth of the start-up); `run_stdio` freezes it all and
    # turns the collector back on.
    gc.disable()
    from plansight.lsp.server import run_stdio

    return run_stdio(args.db, args.workspace)


def _show(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ExportParams, GetParams

    service = _service(args, read=True)
    session = _require_session(service, args)
    if args.format == "json":
        _out(json.dumps(service.get(GetParams(session=session)), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        _out(service.export(ExportParams(session=session, format="markdown"))["text"], end="")
    else:
        from plansight.cli.panel import render_state

        _console().print(render_state(service.get(GetParams(session=session))))
    return EXIT_OK


def _watch(args: argparse.Namespace) -> int:
    from plansight.cli.live import watch

    service = _service(args, read=True)
    if args.session:
        _require_session(service, args)
    with contextlib.suppress(KeyboardInterrupt):
        watch(service, args.session, _console())
    return EXIT_OK


_MERGE_HELP = (
    "with --origin user and an older --base-version: merge with what changed since, "
    "or fail listing the conflicts"
)


def _stale_edit(args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """`--base-version` and `--merge` as the request's params."""
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    if args.merge:
        params["merge"] = True
    return params


def _apply(args: argparse.Namespace) -> int:
    ops = _read_json(args.ops, "--ops")
    if isinstance(ops, dict):
        ops = ops.get("ops", [ops])
    params = _session_args(args, ops=ops, origin=args.origin)
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    return _change(args, "plansight/apply", params)


def _write(args: argparse.Namespace) -> int:
    todos = _read_json(args.todos, "--todos")
    if isinstance(todos, dict) and "todos" in todos:
        todos = todos["todos"]
    params = _session_args(args, todos=todos, origin=args.origin)
    return _change(args, "plansight/write", _stale_edit(args, params))


def _ingest(args: argparse.Namespace) -> int:
    params = _session_args(
        args, format=args.format, payload=_read_json(args.payload, "PAYLOAD"), origin=args.origin
    )
    if args.title is not None:
        params["title"] = args.title
    if args.base_version is not None:
        params["baseVersion"] = args.base_version
    return _change(args, "plansight/ingest", params)


def _clear(args: argparse.Namespace) -> int:
    return _change(args, "plansight/clear", _session_args(args, origin=args.origin))


def _import(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {args.file}: {exc.__class__.__name__}") from None
    params = _session_args(args, markdown=text, origin=args.origin)
    return _change(args, "plansight/import", _stale_edit(args, params))


def _sessions(args: argparse.Namespace) -> int:
    result = _service(args, read=True).sessions()
    if args.json:
        _out(json.dumps(result, indent=2, ensure_ascii=False))
    elif not result["sessions"]:
        print("No sessions yet.")
    else:
        from plansight.cli.panel import render_sessions

        _console().print(render_sessions(result["sessions"]))
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ExportParams

    service = _service(args, read=True)
    session = _require_session(service, args)
    text = service.export(ExportParams(session=session, format=args.format))["text"]
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"cannot write {args.output}: {exc.__class__.__name__}") from None
    else:
        _out(text, end="")
    return EXIT_OK


def _context(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import ContextParams

    params = ContextParams.validate(_session_args(args, full=args.full))
    _out(_service(args, read=True).context(params)["text"])
    return EXIT_OK


def _history(args: argparse.Namespace) -> int:
    from plansight.protocol.requests import HistoryParams

    if args.limit is not None and args.limit < 1:
        raise BadInput("--limit must be 1 or more")
    service = _service(args, read=True)
    session = _require_session(service, args)
    params = HistoryParams(session=session, limit=args.limit)
    events = service.history(params)["events"]
    if args.json:
        print(json.dumps({"events": events}, indent=2, ensure_ascii=False))
    elif not events:
        print("No changes yet.")
    else:
        from plansight.cli.panel import render_history

        _console().print(render_history(events))
    return EXIT_OK


def _restore(args: argparse.Namespace) -> int:
    params = _session_args(args, version=args.version, origin=args.origin)
    return _change(args, "plansight/restore", params)


def _undo(args: argparse.Namespace) -> int:
    """Step back one change, as the person: a second undo steps back one more."""
    session = _require_session(_service(args), args)
    return _change(args, "plansight/undo", {"session": session, "origin": "user"})


def _store_path(args: argparse.Namespace) -> int:
    """The store `serve` opens for the same `--db` and root: one rule, `store_location`
    (a team store's URL is printed without its password)."""
    from plansight.store.location import shown_location, store_location

    print(shown_location(store_location(args.db, args.root)))
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from plansight.protocol.models import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from plansight.cli.demo import run_demo

    return run_demo(_console(), fast=args.fast)


def _migrate(args: argparse.Namespace) -> int:
    from plansight.paths import workspace_root
    from plansight.service import PlanService
    from plansight.store import open_store
    from plansight.store.location import is_postgres_url, is_url, store_location

    if not is_postgres_url(args.to):
        raise BadInput("--to must be a postgresql:// URL")
    source = args.source or store_location(None, None)
    if is_url(source):
        raise BadInput("--from must be a local store file (PLANSIGHT_DB is a URL: give --from)")
    if not Path(source).expanduser().is_file():
        raise BadInput("no plan store at the --from path")
    # Both opened as every face opens a store; closed when the command ends.
    target = PlanService(open_store(args.to, workspace_root(), args.workspace))
    _opened.append(target)
    local = PlanService(open_store(Path(source).expanduser()))
    _opened.append(local)
    report = local.copy_into(target)  # a StoreError is one line, as everywhere
    where = f'{target.location}, workspace "{report.workspace}"'
    print(f"Copied {len(report.copied)} session(s), {report.changes} change(s), into {where}.")
    if report.pruned:
        print(
            f"Pruned {len(report.pruned)} older session(s): a store keeps the "
            f"{target.session_limit} updated last."
        )
    if report.skipped:
        names = ", ".join(f'"{name}"' for name in report.skipped)
        print(f"Left alone, the workspace has them already: {names}.")
    return EXIT_OK


def _mcp(args: argparse.Namespace) -> int:
    from plansight.mcp.server import run_mcp

    return run_mcp(args.db, args.session, args.workspace, args.agent)


def _hook_daemon(args: argparse.Namespace) -> int:
    from plansight.cli.daemon import serve, stop

    if args.stop:
        return EXIT_OK if stop() else EXIT_RESULT_ERROR
    return serve(main)


def _setup(args: argparse.Namespace) -> int:
    from plansight.setup.command import SetupError, run_setup

    try:
        code = run_setup(args.target, args.scope, dry_run=args.dry_run, remove=args.remove)
    except SetupError as exc:
        raise BadInput(str(exc)) from None
    if code == 0 and not (args.dry_run or args.remove) and args.target not in ("nvim", "vscode"):
        from plansight.setup.doctor import run_doctor

        # Ends by saying whether it all works (its own exit code is `plansight doctor`'s).
        print(flush=True)
        run_doctor([args.target], lambda line: print(line, flush=True))
    return code


def _doctor(args: argparse.Namespace) -> int:
    from plansight.setup.doctor import doctor_json, run_doctor

    # Checked here: argparse's `choices` refuses an empty `nargs="*"` list.
    unknown = [
        name
        for name in args.agents
        if name not in ("claude-code", "codex", "gemini", "opencode", "copilot")
    ]
    if unknown:
        raise BadInput(
            f"doctor: unknown agent {unknown[0]!r} "
            "(claude-code, codex, gemini, opencode or copilot)"
        )
    if args.json:
        report, code = doctor_json(args.agents or None)
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return code
    return run_doctor(args.agents or None, lambda line: print(line, flush=True))


# ---------------------------------------------------------------- entry point


def _fail(message: str) -> NoReturn:
    from plansight.protocol.text import terminal_safe
    from plansight.store.location import redact_text

    # One line, whatever a name in it holds, and no password whatever a message quotes.
    line = redact_text(terminal_safe(message).replace(chr(10), " "))
    print(f"plansight: {line}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


def main(argv: Sequence[str] | None = None) -> int:
    from plansight.logs import configure

    configure()
    args = _parser().parse_args(argv)  # argparse itself exits 2 on bad flags
    try:
        code = int(args.run(args))
        sys.stdout.flush()  # a reader gone is found here, not in Python's flush at exit
        return code
    except BrokenPipeError:  # gone while the command printed
        _reader_gone()
        return EXIT_OK
    except BadInput as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from pydantic import ValidationError

        from plansight.core.errors import RequestRefused, VersionConflict
        from plansight.store.errors import StoreError
        from plansight.validation import validation_errors

        if isinstance(exc, StoreError):
            _fail(exc.message)  # disk full, read-only, locked, gone: what to do about it

        if isinstance(exc, ValidationError):
            _fail(
                "; ".join(
                    f"{e['path'] or 'params'}: {e['message']}" for e in validation_errors(exc)
                )
            )
        if isinstance(exc, RequestRefused):
            _fail(exc.message)
        if isinstance(exc, VersionConflict):
            print(f"plansight: {exc}", file=sys.stderr)  # numbers and the contents in conflict
            return EXIT_RESULT_ERROR
        # A bug: one line all the same (exit 2, not the 1 of "the result had errors");
        # PLANSIGHT_DEBUG=1 shows the traceback.
        import logging

        if os.environ.get("PLANSIGHT_DEBUG"):
            raise
        logging.getLogger(__name__).debug("internal error", exc_info=True)
        _fail(f"internal error ({exc.__class__.__name__}); run with PLANSIGHT_DEBUG=1 for details")
    finally:
        _close_stores()
