"""The `plansight` command's entry point: `plansight hook AGENT` runs inside an agent's
loop on every matching tool call, so it starts without the parser, the logging set-up or
any model; every other command goes to `plansight.cli.main`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) == 2 and arguments[0] == "hook" and not arguments[1].startswith("-"):
        from plansight.hook.run import main as run_hook

        return run_hook(arguments[1:])
    from plansight.cli.main import main as run_command

    return run_command(arguments)
