"""The `plansight` command's entry point: `plansight hook AGENT` runs inside an agent's
loop on every matching tool call, so it starts without the parser, the logging set-up or
any model (and relays the event to a warm `plansight hook-daemon`); every other command
goes to `plansight.cli.main`."""

from __future__ import annotations

import sys

from plansight.hook.relay import relayable, run_command, start_warm_process

TYPE_CHECKING = False  # not `typing`'s: importing it costs the hook's relay a few ms
if TYPE_CHECKING:
    from collections.abc import Sequence


def _cli_main(arguments: list[str]) -> int:
    """The CLI, loaded when the warm process runs its first relayed command."""
    from plansight.cli.main import main as run_here

    return run_here(arguments)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) == 2 and arguments[0] == "hook" and not arguments[1].startswith("-"):
        from plansight.hook.relay import run_hook

        return run_hook(arguments[1])
    if arguments == ["hook-daemon"]:  # as `plansight hook` starts it: no parser to load
        from plansight.cli.daemon import serve

        return serve(_cli_main)
    if relayable(arguments):
        code = run_command(arguments)
        if code is not None:
            return code
    from plansight.cli.main import main as run_here

    # No frame of its own around `serve`: the language server decodes messages nested
    # almost as deep as the interpreter's recursion limit allows, at this stack depth.
    try:
        return run_here(arguments)
    finally:
        if relayable(arguments):
            start_warm_process()
