"""Profile the server under one of the benchmark's workloads, with pyinstrument.

    .venv/bin/pip install pyinstrument
    .venv/bin/python bench/profile_server.py apply            # sequential applies on 20 tasks
    .venv/bin/python bench/profile_server.py flood-get --count 5000
    .venv/bin/python bench/profile_server.py apply --tasks 1000 --html /tmp/apply1000.html
    .venv/bin/python bench/profile_server.py imports          # start-up: import time per package

The profile covers the whole server process (start-up included); read the request path
under `serve`. `imports` needs no pyinstrument: it reads `python -X importtime`.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from asyncio.subprocess import PIPE
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rpc import Peer
from workload import Alternator, check_result, flood, new_plan, sequential

WORKLOADS = ("get", "apply", "flood-get", "flood-apply", "start", "imports")


async def imports() -> None:
    """Import time of `plansight serve` per top package: until its `initialize` answer (the
    store is opened last, and says so in the log), and after it."""
    with tempfile.TemporaryDirectory(prefix="plansight-profile-") as folder:
        argv = [sys.executable, "-X", "importtime", "-m", "plansight", "serve"]
        peer = await Peer.spawn(
            [*argv, "--db", str(Path(folder) / "plans.sqlite3")],
            stderr=PIPE,
            env={"PLANSIGHT_LOG_LEVEL": "INFO"},
        )
        assert peer.process.stderr is not None
        stderr_read = asyncio.ensure_future(peer.process.stderr.read())  # never let it fill
        check_result(await peer.initialize(), "initialize")
        check_result(await peer.request("plansight/sessions", {}), "sessions")
        await peer.close()
        report = (await stderr_read).decode()
    before, _, after = report.partition("plan store:")
    for title, part in (("before the `initialize` answer", before), ("after it", after)):
        per_package: Counter[str] = Counter()
        for line in part.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s+(\S+)", line)
            if match:
                per_package[match[2].split(".")[0]] += int(match[1])
        total = sum(per_package.values())
        print(f"{total / 1000:8.1f} ms  all imports {title} (self times, -X importtime's cost in)")
        for package, micros in per_package.most_common(12):
            print(f"{micros / 1000:8.1f} ms  {package}  ({100 * micros / total:.0f}%)")


async def profile(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="plansight-profile-") as folder:
        db = Path(folder) / "plans.sqlite3"
        renderer = (
            ["-r", "html", "-o", str(args.html)]
            if args.html
            else ["-r", "text", *(["--show-all"] if args.all else [])]
        )
        argv = [
            sys.executable,
            "-m",
            "pyinstrument",
            "--interval",
            "0.0002",
            *renderer,
            "-m",
            "plansight",
            "serve",
            "--db",
            str(db),
        ]
        peer = await Peer.spawn(argv, stderr=None)
        options = {"plansight": {"maxTasks": 5000}}
        check_result(await peer.initialize(options), "initialize")
        if args.workload != "start":
            await new_plan(peer, "profile", args.tasks)
        alternate = Alternator("profile")
        get = {"session": "profile"}
        n = args.count
        if args.workload == "get":
            await sequential(peer, "plansight/get", get, n, False)
        elif args.workload == "apply":
            await sequential(peer, "plansight/apply", alternate.params, n, True)
        elif args.workload == "flood-get":
            await flood(peer, "plansight/get", get, n, 100, False)
        elif args.workload == "flood-apply":
            await flood(peer, "plansight/apply", alternate.params, n, 100, True)
        await peer.close(linger=120)  # pyinstrument prints its report when the server exits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workload", choices=WORKLOADS)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--html", type=Path, help="write an HTML profile here instead")
    parser.add_argument("--all", action="store_true", help="show library frames too")
    args = parser.parse_args()
    asyncio.run(imports() if args.workload == "imports" else profile(args))


if __name__ == "__main__":
    main()
