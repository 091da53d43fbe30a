"""Which command lines the warm process may answer (`relayable`), by the table derived
from the CLI's parser (`warm/relayed.py`, written by `warm/derive.py`).

A command line runs in the caller's own process when it asks for the help (which fits the
caller's terminal) or names a file or descriptor: the warm process is outside the
caller's sandbox and folder view, and `/dev/fd/N`, `/dev/stdout`, `<(cmd)` name the
caller's own. Standard library only, nothing loaded: a relayed command's start-up."""

from __future__ import annotations

from plansight.warm.relayed import COMMANDS, FILE_ARGUMENTS, FILE_OPTIONS, HELP_OPTIONS

_LONG_FILE_OPTIONS = tuple(option for option in FILE_OPTIONS if option.startswith("--"))
_SHORT_FILE_OPTIONS = tuple(option for option in FILE_OPTIONS if not option.startswith("--"))


def relayable(args: list[str]) -> bool:
    """A one-shot command the warm process may answer: a relayed command, not a request
    for its help, naming no file or descriptor."""
    return (
        bool(args)
        and args[0] in COMMANDS
        and not set(HELP_OPTIONS) & set(args)
        and not names_a_file(args)
    )


def names_a_file(args: list[str]) -> bool:
    """Whether the command line `args` (the command first) names a file or descriptor.
    An option naming a file counts in every spelling argparse takes (`--db=X`, and a
    prefix of a long option, `--d`, which argparse reads as that option), whichever
    relayed command declares it."""
    for arg in args[1:]:
        if arg.startswith(("/dev/", "/proc/")):
            return True
        name = arg.split("=", 1)[0]
        if len(name) >= 3 and any(option.startswith(name) for option in _LONG_FILE_OPTIONS):
            return True
        if any(arg.startswith(option) for option in _SHORT_FILE_OPTIONS):
            return True  # `-o FILE`, `-oFILE`, `-o=FILE`
    shape = FILE_ARGUMENTS.get(args[0])
    if shape is None:
        return False
    # `import FILE`: only `-` (stdin, which the relay passes) is relayed.
    valued, names_files = shape
    found = _positionals(args[1:], valued)
    return len(found) != len(names_files) or any(
        file and value != "-" for file, value in zip(names_files, found, strict=True)
    )


def _positionals(args: list[str], valued: tuple[str, ...]) -> list[str]:
    """The positional arguments of `args`: not an option, nor the value of one."""
    found: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in valued:
            skip = True
        elif arg == "-" or not arg.startswith("-"):
            found.append(arg)
    return found
