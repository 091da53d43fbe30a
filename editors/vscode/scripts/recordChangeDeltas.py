"""Records test/fixtures/changeDeltas.json: the `didChange` pushes a real `plansight serve`
sends a client that asked for change deltas, with `plansight/get`'s state after each
change, for the extension's unit test of applying them (test/unit/changeDeltas.test.ts).
Run from the repository root with its venv, after the server's pushes change:
    .venv/bin/python editors/vscode/scripts/recordChangeDeltas.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from plansight_client import start_client, stop_client  # noqa: E402

SESSION = "recorded"
OUT = ROOT / "editors" / "vscode" / "test" / "fixtures" / "changeDeltas.json"

# Each change a person or an agent makes, one version each: adds, subtasks, a status,
# a note, a move between phases, a removal, a new phase, an update of content, a clear.
CHANGES: list[list[dict[str, Any]]] = [
    [
        {
            "op": "init",
            "list": [
                {"phase": "Plan", "items": ["Read the issue", "Write the parser", "Run the build"]}
            ],
        }
    ],
    [
        {
            "op": "append",
            "phase": "Plan",
            "items": ["Lex the tokens", "Parse the tree"],
            "parent": "Write the parser",
        }
    ],
    [{"op": "done", "task": "Read the issue"}],
    [{"op": "note", "task": "Lex the tokens", "text": "Keep the positions"}],
    [{"op": "append", "phase": "Ship", "items": ["Tag the release"]}],
    [{"op": "move", "task": "Run the build", "phase": "Ship"}],
    [{"op": "rm", "task": "Parse the tree"}],
    [{"op": "update", "task": "Tag the release", "content": "Tag and publish the release"}],
    [{"op": "init", "list": [{"phase": "Again", "items": ["Start over"]}]}],
]


async def record(db: Path) -> dict[str, Any]:
    client = await start_client(db, deltas=True)
    try:
        states = []
        for ops in CHANGES:
            result = await client.call("plansight/apply", {"session": SESSION, "ops": ops})
            assert result["changed"] and not result["errors"], result
            await client.change_where(
                lambda c, v=result["version"]: c["session"] == SESSION and c["version"] == v
            )
            states.append(await client.call("plansight/get", {"session": SESSION}))
        pushes = [change for change in client.changes if change["session"] == SESSION]
        return {
            "recordedBy": "editors/vscode/scripts/recordChangeDeltas.py",
            "pushes": pushes,
            "states": states,
        }
    finally:
        await stop_client(client)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        recorded = asyncio.run(record(Path(folder) / "plan.sqlite3"))
    OUT.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorded['pushes'])} pushes recorded in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
