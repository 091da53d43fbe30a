"""What the warm process may answer of a command line is derived from the CLI's parser
(`warm/derive.py`) and written out for the relay's start-up (`warm/relayed.py`): the
written table is the parser's, and every way a relayed command's command line can name a
file, as argparse reads it, keeps the command in the caller's own process (the warm
process is outside the caller's sandbox and folder view; see test_warm_relay.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from plansight.cli.command import Command, names_a_file, no_arguments, store_flags
from plansight.cli.main import COMMANDS, command_parsers
from plansight.warm import derive, relayed
from plansight.warm.command_line import relayable

PARSERS = command_parsers()
RELAYED = sorted(command.name for command in COMMANDS if command.relayed)


def test_the_written_table_is_the_one_derived_from_the_parser() -> None:
    assert derive.TABLE.read_text(encoding="utf-8") == derive.written(derive.current()), (
        "run `python -m plansight.warm.derive` to write warm/relayed.py again"
    )
    table = derive.current()
    for name, derived in table.items():
        assert getattr(relayed, name) == derived, name
    assert set(RELAYED) == relayed.COMMANDS


def test_what_agents_run_in_a_loop_is_relayed_and_nothing_long_running() -> None:
    assert {"apply", "write", "ingest", "clear", "import", "restore", "undo"} <= set(RELAYED)
    assert {"context", "history", "export", "sessions"} <= set(RELAYED)
    for name in ("serve", "mcp", "watch", "show", "demo", "setup", "hook", "hook-daemon"):
        assert name not in RELAYED
        assert not relayable([name])
    assert relayable(["apply", "--ops", "[]"])
    assert relayable(["export", "--session", "s", "--format", "json"])
    assert not relayable([])


def _file_options(name: str) -> list[tuple[argparse.Action, str]]:
    return [
        (action, option)
        for action in PARSERS[name]._actions
        if getattr(action, "names_a_file", False)
        for option in action.option_strings
    ]


def _spellings(name: str, option: str) -> list[list[str]]:
    """Every way of giving `option` a value that argparse reads as that option."""
    if not option.startswith("--"):
        return [[option, "x"], [option + "x"], [option + "=x"]]
    prefixes = [option[:end] for end in range(3, len(option) + 1)]
    # A prefix argparse reads as the option (allow_abbrev): one no other option starts with.
    taken = [
        prefix
        for prefix in prefixes
        if [o for a in PARSERS[name]._actions for o in a.option_strings if o.startswith(prefix)]
        == [option]
    ]
    assert option in taken
    return [spelling for prefix in taken for spelling in ([prefix, "x"], [f"{prefix}=x"])]


def _lenient(name: str) -> argparse.ArgumentParser:
    """The command's parser with nothing required: it reads a flag alone."""
    parser = command_parsers()[name]
    for action in parser._actions:
        action.required = False
        if not action.option_strings and action.nargs is None:
            action.nargs = "?"
    return parser


@pytest.mark.parametrize("name", RELAYED)
def test_every_spelling_of_an_option_naming_a_file_runs_in_the_callers_process(
    name: str,
) -> None:
    assert "--db" in [option for _, option in _file_options(name)]  # every one opens a store
    lenient = _lenient(name)
    for action, option in _file_options(name):
        for spelling in _spellings(name, option):
            # argparse reads it as the option naming the file ...
            parsed, _ = lenient.parse_known_args(spelling)
            assert getattr(parsed, action.dest) == "x", spelling
            # ... and the relay leaves the command to its caller's process.
            assert not relayable([name, *spelling]), spelling
            assert not relayable([name, "--session", "s", *spelling]), spelling


def test_a_file_argument_is_relayed_only_as_stdin() -> None:
    assert relayable(["import", "-"])
    assert relayable(["import", "--session", "s", "-", "--origin", "user"])
    assert relayable(["import", "--base-version", "3", "-", "--merge"])
    assert not relayable(["import", "plan.md"])
    assert not relayable(["import", "--session", "-", "plan.md"])
    assert not relayable(["import", "--sess", "s", "-"])  # not sure which is the file
    assert not relayable(["import"])


def test_a_descriptor_or_a_help_request_runs_in_the_callers_process() -> None:
    assert not relayable(["import", "/dev/fd/63"])
    assert not relayable(["ingest", "--format", "markdown", "/dev/stdin"])
    assert not relayable(["apply", "--ops", "/proc/self/fd/0"])
    assert not relayable(["apply", "--help"])
    assert not relayable(["history", "-h"])


def _command(
    name: str, add_arguments: Callable[[argparse.ArgumentParser], object]
) -> tuple[Command, argparse.ArgumentParser]:
    command = Command(name, "", add_arguments, None, relayed=True)
    parser = argparse.ArgumentParser(prog=name)
    command.add_arguments(parser)
    return command, parser


def test_a_new_relayed_command_and_its_flags_are_derived_from_where_they_are_declared() -> None:
    def arguments(parser: argparse.ArgumentParser) -> None:
        store_flags(parser)
        names_a_file(parser.add_argument("--dump", metavar="FILE"))
        parser.add_argument("--tag", metavar="T")
        parser.add_argument("--quiet", action="store_true")
        names_a_file(parser.add_argument("source"))

    command, parser = _command("copy", arguments)
    quiet, quiet_parser = _command("quiet", no_arguments)
    table = derive.derive([command, quiet], {"copy": parser, "quiet": quiet_parser})
    assert table["COMMANDS"] == {"copy", "quiet"}
    assert table["FILE_OPTIONS"] == ("--db", "--dump")
    assert table["FILE_ARGUMENTS"] == {
        "copy": (("--db", "--dump", "--tag", "--workspace"), (True,))
    }
    # Which of several values is the file would be argparse's guess: refused, not guessed.
    with pytest.raises(ValueError, match="several values"):
        derive.derive(
            [command],
            {"copy": _command("copy", lambda p: names_a_file(p.add_argument("f", nargs="+")))[1]},
        )
