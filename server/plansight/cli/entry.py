"""The `plansight` command's entry point: `plansight hook AGENT` runs inside an agent's
loop on every matching tool call, so it starts without the parser, the logging set-up or
any model (and relays the event to a warm `plansight hook-daemon`); every other command
goes to `plansight.cli.main`."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `typing`'s: importing it costs the hook's relay a few ms
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) == 2 and arguments[0] == "hook" and not arguments[1].startswith("-"):
        from plansight.hook.relay import run_hook

        return run_hook(arguments[1])
    if arguments[:1] == ["hook-daemon"]:  # started by `plansight hook`, not by people
        from plansight.hook.daemon import serve, stop

        if arguments[1:] == ["--stop"]:  # the one for this environment's settings
            return 0 if stop() else 1
        return serve()
    from plansight.cli.main import main as run_command

    return run_command(arguments)
