"""Forks `plansight serve` processes on demand, everything already imported.

Reads one JSON order per line on stdin ({"in", "out", "db", "log"}: two FIFOs, the store
and a log file), forks, and writes the child's pid back. The child wires the FIFOs to
its stdin and stdout and runs `plansight.cli.main.main(["serve", "--db", db])`, the
entry point `python -m plansight serve` runs.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback

# The imports a server start pays for, paid once here.
import lsprotocol.types  # noqa: F401
import pygls.lsp.server  # noqa: F401

import plansight.cli.main
import plansight.lsp.server
import plansight.lsp.transport
import plansight.service
import plansight.store.sqlite


def child(order: dict[str, str]) -> int:
    log = os.open(order["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)
    out = os.open(order["out"], os.O_WRONLY)
    inp = os.open(order["in"], os.O_RDONLY)
    os.dup2(inp, 0)
    os.dup2(out, 1)
    for fd in (log, out, inp):
        os.close(fd)
    return int(plansight.cli.main.main(["serve", "--db", order["db"]]))


def main() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        order = json.loads(line)
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            code = 1
            try:
                code = child(order)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        sys.stdout.write(f"{pid}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
