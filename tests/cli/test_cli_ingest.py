"""`plansight ingest --format F [--title T] PAYLOAD|-`, run as a shell agent runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from plansight.protocol.requests import FORMATS

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"


def plansight(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def payload(name: str) -> str:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return json.dumps(data["payload"])


def test_ingest_from_an_argument_and_from_stdin(tmp_path: Path) -> None:
    db = str(tmp_path / "plans.sqlite3")
    done = plansight("ingest", "--db", db, "--format", "acp-plan", payload("acp-plan"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "Todo list updated: 1/4 completed",
        "Current: Identify potential type issues",
    ]
    done = plansight(
        "ingest",
        "--db",
        db,
        "--session",
        "roo",
        "--json",
        "--format",
        "roo-todos",
        "-",
        stdin=payload("roo-todos"),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["session"] == "roo" and result["current"]["content"] == "Implement core logic"
    shown = plansight("show", "--db", db, "--session", "roo", "--format", "markdown")
    assert "- [/] Implement core logic" in shown.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    db = str(tmp_path / "plans.sqlite3")
    for args, message in [
        (["--format", "cursor", "{}"], "plansight: format: Input should be"),
        (["--format", "codex-plan", "{not json"], "plansight: PAYLOAD is not valid JSON"),
        (
            ["--format", "codex-plan", '{"plan": [{"step": "a", "status": "done"}]}'],
            'plansight: payload.plan.0.status: Unknown status "done"',
        ),
    ]:
        done = plansight("ingest", "--db", db, *args)
        assert done.returncode == 2, args
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith(message), done.stderr
    done = plansight("ingest", "--db", db, "codex-plan")
    assert done.returncode == 2 and "--format" in done.stderr


def test_title_names_the_session(tmp_path: Path) -> None:
    db = str(tmp_path / "plans.sqlite3")
    done = plansight(
        "ingest",
        "--db",
        db,
        "--json",
        "--format",
        "codex-plan",
        "--title",
        "Date parser",
        payload("codex-plan"),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"] == "Date parser"
    sessions = plansight("sessions", "--db", db, "--json")
    assert json.loads(sessions.stdout)["sessions"][0]["title"] == "Date parser"


def test_help_names_every_format() -> None:
    done = plansight("ingest", "--help")
    assert done.returncode == 0
    # argparse wraps long lines after a hyphen ("gemini-\n todos").
    text = re.sub(r"-\s+", "-", done.stdout)
    for format_name in FORMATS:
        assert format_name in text
