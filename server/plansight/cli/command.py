"""A command of the `plansight` command line, declared beside its handler: its name, its
help, its flags (`add_arguments`) and the function that runs it. `cli/main.py` builds the
parser from the list of them; the flags several commands share are declared here once."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

EXIT_OK, EXIT_RESULT_ERROR, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    """Printed as one line on stderr; exit 2."""


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    # None: run before the parser is built (`plansight.warm.entry`); declared for `--help`
    # and for bad arguments.
    run: Callable[[argparse.Namespace], int] | None
    description: str | None = None
    # A one-shot command agents and scripts run in a loop: the warm process answers it
    # (`warm/`; what it may answer of a command line is derived from this parser).
    relayed: bool = False

    def add_to(self, commands: Any) -> None:
        """Add the command to the parser's `commands` (its sub-parsers)."""
        parser = commands.add_parser(self.name, help=self.help, description=self.description)
        self.add_arguments(parser)
        if self.run is not None:
            parser.set_defaults(run=self.run)


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """A command without flags of its own."""


def names_a_file(action: argparse.Action) -> argparse.Action:
    """Mark a flag or argument (what `add_argument` returned) as naming a file the command
    opens: a command line that uses it runs in the caller's own process, never relayed to
    the warm process, which is outside the caller's sandbox and folder view."""
    action.names_a_file = True  # type: ignore[attr-defined]
    return action


# ---------------------------------------------------------------- shared flags


def store_flags(parser: argparse.ArgumentParser) -> None:
    names_a_file(
        parser.add_argument(
            "--db",
            metavar="PATH|URL",
            help="the store file, or a postgresql:// URL (default: per workspace, or $PLANSIGHT_DB)",
        )
    )
    parser.add_argument(
        "--workspace",
        metavar="KEY",
        help="a team store's workspace (default: $PLANSIGHT_WORKSPACE, else from git's origin)",
    )


def session_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="S", help='the session (default: "default")')


def viewed_session_flag(parser: argparse.ArgumentParser) -> None:
    # Reading commands look at what the agents wrote last, not at a fixed name.
    parser.add_argument(
        "--session", metavar="S", help="the session (default: the one updated last)"
    )


def change_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--origin",
        choices=("agent", "user"),
        default="agent",
        help="who makes the change (default: agent)",
    )
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")


# ---------------------------------------------------------------- arguments as params


def read_json(value: str, what: str) -> Any:
    text = sys.stdin.read() if value == "-" else value
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{what} is not valid JSON: {exc}") from None


def session_args(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    params = dict(extra)
    if args.session is not None:
        params["session"] = args.session
    return params
