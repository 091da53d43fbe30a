"""The `plansight` command's entry point, which decides what the warm process answers:
`plansight hook AGENT` runs inside an agent's loop on every matching tool call, so it
starts without the parser, the logging set-up or any model and relays the event to a
warm `plansight hook-daemon`; a one-shot command the warm process may answer
(`warm/command_line.py`) is relayed to it too; every other command goes to
`plansight.cli.main` in this process."""

from __future__ import annotations

import sys

from plansight.warm.relay import enabled, run_command, start_warm_process

TYPE_CHECKING = False  # not `typing`'s: importing it costs the hook's relay a few ms
if TYPE_CHECKING:
    from collections.abc import Sequence


def _cli_main(arguments: list[str]) -> int:
    """The CLI, loaded when the warm process runs its first relayed command."""
    from plansight.cli.main import main as run_here

    return run_here(arguments)


def _hook_daemon(arguments: list[str]) -> int:
    """`plansight hook-daemon [--stop]`: the warm process, or stop it. As `plansight hook`
    starts it, with no argument: no parser to load."""
    from plansight.warm.daemon import serve, stop

    if arguments != ["hook-daemon"]:
        from plansight.cli.command import EXIT_OK, EXIT_RESULT_ERROR
        from plansight.cli.main import parse

        if parse(arguments).stop:
            return EXIT_OK if stop() else EXIT_RESULT_ERROR
    return serve(_cli_main)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) == 2 and arguments[0] == "hook" and not arguments[1].startswith("-"):
        from plansight.warm.relay import run_hook

        return run_hook(arguments[1])
    if arguments[:1] == ["hook-daemon"]:
        return _hook_daemon(arguments)
    from plansight.warm.command_line import relayable  # not on a hook event's path

    relayed = enabled() and relayable(arguments)
    if relayed:
        code = run_command(arguments)
        if code is not None:
            return code
    from plansight.cli.main import main as run_here

    # No frame of its own around `serve`: the language server decodes messages nested
    # almost as deep as the interpreter's recursion limit allows, at this stack depth.
    try:
        return run_here(arguments)
    finally:
        if relayed:
            start_warm_process()
