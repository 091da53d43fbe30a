"""The `plansight` command line: the parser, built from the table of commands (each
declared beside its handler: `cli/viewing.py`, `cli/person.py`, `cli/changing.py`,
`cli/serving.py`, `cli/installing.py`; see `cli/command.py`), and how a command's end
becomes an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from plansight import __version__
from plansight.cli.changing import APPLY, CLEAR, IMPORT, INGEST, RESTORE, WRITE
from plansight.cli.command import EXIT_BAD_INPUT, EXIT_OK, EXIT_RESULT_ERROR, BadInput, Command
from plansight.cli.installing import DOCTOR, MIGRATE, SETUP
from plansight.cli.output import reader_gone
from plansight.cli.person import VERBS
from plansight.cli.serving import HOOK, MCP, SCHEMA, SERVE, STORE_PATH
from plansight.cli.stores import close_stores
from plansight.cli.viewing import CONTEXT, DEMO, EXPORT, HISTORY, SESSIONS, SHOW, WATCH


class _Parser(argparse.ArgumentParser):
    """Bad flags get the one clear line every other bad input gets, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see `{self.prog} --help`)")


def _hook_daemon_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stop", action="store_true", help="stop the one of the current settings, if one runs"
    )


# The warm process (`plansight.warm`) runs it before the parser is built when it has no
# argument, and with this parser's arguments otherwise (`warm/entry.py`): the warm process
# stands above this command line, whose commands it runs. Declared for `--help` and for
# bad arguments.
HOOK_DAEMON = Command(
    "hook-daemon",
    "the warm process that answers hooks and one-shot commands (starts by itself)",
    _hook_daemon_arguments,
    None,
    description="Run the warm hook process of the current settings in the foreground "
    "(the hooks start it by themselves; it leaves after ten idle minutes), or stop it.",
)

# Every command, in the order `plansight --help` lists them.
COMMANDS: tuple[Command, ...] = (
    SERVE,
    SHOW,
    WATCH,
    *VERBS,
    APPLY,
    WRITE,
    INGEST,
    CLEAR,
    SESSIONS,
    EXPORT,
    IMPORT,
    CONTEXT,
    HISTORY,
    RESTORE,
    STORE_PATH,
    SCHEMA,
    DEMO,
    MIGRATE,
    MCP,
    HOOK,
    HOOK_DAEMON,
    SETUP,
    DOCTOR,
)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="plansight",
        description="See and steer an AI coding agent's plan: server, viewer and shell tools.",
        epilog="You steer the plan the agent is working on with add, start, done, drop, "
        "block, note, rm and undo (as the user; they never start a task by themselves). "
        "apply, write, ingest, clear, import and restore are the agents' and scripts' "
        "(as the agent, unless --origin user). `plansight COMMAND --help` for each.",
    )
    parser.add_argument("--version", action="version", version=f"plansight {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_to(commands)
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """`argv` as `plansight` reads it: exit 2 with one line on bad arguments, the help
    printed on `--help`."""
    return _parser().parse_args(argv)


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """Each command's own parser, as `plansight` builds it: the warm process derives from
    them which command lines it may answer (`warm/derive.py`)."""
    for action in _parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no commands")


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
        reader_gone()
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
        close_stores()
