"""What the warm process may answer of a command line, derived from the CLI's parser and
written out for the relay (`warm/relayed.py`): a relay's start-up cannot build the parser
(it loads every command's module, about 100 ms, where a relayed command takes a few).

From the parser: the commands declared `relayed` (`cli/command.py`, `Command.relayed`),
the options and arguments marked `names_a_file` where they are declared, the options that
take a value (an argparse action that takes arguments) and the help's options.
`python -m plansight.warm.derive` writes the table; a test holds it to the parser, so a
relayed command, a flag naming a file or one taking a value that is added fails the test
until the table is written again."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from plansight.cli.command import Command

TABLE = Path(__file__).with_name("relayed.py")
Table = dict[str, Any]


def _names_a_file(action: argparse.Action) -> bool:
    return bool(getattr(action, "names_a_file", False))


def derive(commands: Iterable[Command], parsers: dict[str, argparse.ArgumentParser]) -> Table:
    """The table `warm/relayed.py` holds, for `commands` and each one's parser."""
    relayed = sorted(command.name for command in commands if command.relayed)
    file_options: set[str] = set()
    help_options: set[str] = set()
    file_arguments: dict[str, tuple[tuple[str, ...], tuple[bool, ...]]] = {}
    for name in relayed:
        actions = parsers[name]._actions
        for action in actions:
            if isinstance(action, argparse._HelpAction):
                help_options.update(action.option_strings)
            elif _names_a_file(action):
                file_options.update(action.option_strings)
        positionals = [action for action in actions if not action.option_strings]
        if any(_names_a_file(action) for action in positionals):
            if any(action.nargs is not None for action in positionals):
                # Which argument is the file is then argparse's guess: not written out.
                raise ValueError(f"{name}: a file among positionals that take several values")
            valued = sorted(
                option
                for action in actions
                if action.option_strings and action.nargs != 0
                for option in action.option_strings
            )
            shape = tuple(_names_a_file(action) for action in positionals)
            file_arguments[name] = (tuple(valued), shape)
    return {
        "COMMANDS": frozenset(relayed),
        "FILE_OPTIONS": tuple(sorted(file_options)),
        "HELP_OPTIONS": tuple(sorted(help_options)),
        "FILE_ARGUMENTS": file_arguments,
    }


def _lines(values: Iterable[str], indent: str) -> list[str]:
    return [f"{indent}{json.dumps(value)}," for value in values]


def written(table: Table) -> str:
    """The module `warm/relayed.py`, as `ruff format` leaves it."""
    text = [
        '"""What the warm process may answer of a command line, derived from the CLI\'s',
        "parser by `warm/derive.py`: written by `python -m plansight.warm.derive`, not by",
        'hand (a test holds it to the parser). Plain literals: a relay\'s start-up loads it."""',
        "",
        "# The commands the warm process answers (`Command.relayed`).",
        "COMMANDS = frozenset(",
        "    {",
        *_lines(sorted(table["COMMANDS"]), " " * 8),
        "    }",
        ")",
        "# The options naming a file a command opens (`names_a_file`), of every relayed command.",
        "FILE_OPTIONS = (",
        *_lines(table["FILE_OPTIONS"], " " * 4),
        ")",
        "# A request for the help, which fits the caller's terminal.",
        "HELP_OPTIONS = (",
        *_lines(table["HELP_OPTIONS"], " " * 4),
        ")",
        "# The commands with an argument naming a file: their options that take a value, and",
        "# for each of their positional arguments whether it names a file.",
        "FILE_ARGUMENTS = {",
    ]
    for name, (valued, shape) in sorted(table["FILE_ARGUMENTS"].items()):
        text += [
            f"    {json.dumps(name)}: (",
            "        (",
            *_lines(valued, " " * 12),
            "        ),",
            f"        ({', '.join(map(repr, shape))}{',' if len(shape) == 1 else ''}),",
            "    ),",
        ]
    text.append("}")
    return "\n".join(text) + "\n"


def current() -> Table:
    """The table of the CLI as it is."""
    from plansight.cli.main import COMMANDS, command_parsers

    return derive(COMMANDS, command_parsers())


if __name__ == "__main__":
    TABLE.write_text(written(current()), encoding="utf-8")
    print(f"wrote {TABLE}")
