"""The `plansight` command, run as a person or a shell agent runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

OPS = [
    {
        "op": "init",
        "list": [
            {"phase": "Explore", "items": ["Read the code"]},
            {
                "phase": "Build",
                "items": [
                    {"content": "Write the fix", "activeForm": "Writing the fix"},
                    "Run tests",
                ],
            },
        ],
    },
]


def plansight(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "plans.sqlite3")


def state(db: str, session: str = "default") -> dict[str, Any]:
    shown = plansight("show", "--db", db, "--session", session, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_apply_prints_the_summary_and_writes_the_store(db: str) -> None:
    done = plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "Todo list updated: 0/3 completed",
        "Current: Read the code",
    ]
    assert state(db)["current"]["content"] == "Read the code"


def test_apply_reads_stdin_and_exits_1_on_error_lines(db: str) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    done = plansight(
        "apply", "--db", db, "--ops", "-", stdin=json.dumps({"op": "done", "task": "Nope"})
    )
    assert done.returncode == 1
    assert done.stdout.startswith('Errors: Task "Nope" not found')
    done = plansight("apply", "--db", db, "--json", "--ops", json.dumps([{"op": "done"}]))
    assert done.returncode == 0 and json.loads(done.stdout)["progress"]["completed"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["apply", "--ops", "{not json"], "--ops is not valid JSON"),
        (["apply", "--ops", '[{"op": "launch"}]'], "ops.0.op: Unknown op"),
        (
            [
                "write",
                "--todos",
                '[{"content": "a", "activeForm": "A", "status": "in_progress"},'
                ' {"content": "b", "activeForm": "B", "status": "in_progress"}]',
            ],
            "Only one task can be in_progress at a time",
        ),
        (["show", "--session", "ghost"], 'no session named "ghost"'),
        (["import", "/no/such/file.md"], "cannot read /no/such/file.md"),
        (["apply", "--ops", "[]", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["apply"], "the following arguments are required: --ops"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(db: str, args: list[str], message: str) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))  # a store that exists
    done = plansight(*args, "--db", db)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_write_and_sessions(db: str) -> None:
    todos = [
        {"content": "Reproduce", "activeForm": "Reproducing", "status": "completed"},
        {"content": "Fix", "activeForm": "Fixing", "status": "in_progress"},
    ]
    done = plansight(
        "write", "--db", db, "--session", "claude", "--todos", json.dumps({"todos": todos})
    )
    assert done.returncode == 0 and done.stdout.startswith("Todo list updated: 1/2 completed")
    plansight("apply", "--db", db, "--session", "other", "--ops", json.dumps(OPS))
    listed = plansight("sessions", "--db", db, "--json")
    assert [s["session"] for s in json.loads(listed.stdout)["sessions"]] == ["other", "claude"]
    table = plansight("sessions", "--db", db)
    assert "claude" in table.stdout and "[█████░░░░░] 1/2" in table.stdout


def test_show_draws_the_panel(db: str) -> None:
    plansight(
        "apply",
        "--db",
        db,
        "--ops",
        json.dumps(
            [
                *OPS,
                {"op": "done", "task": "Read the code"},
                {"op": "note", "task": "Write the fix", "text": "Off by one in the loop"},
                {"op": "drop", "task": "Run tests"},
            ]
        ),
    )
    shown = plansight("show", "--db", db)
    assert shown.returncode == 0
    text = shown.stdout
    assert "✓ Read the code" in text
    assert "● Writing the fix" in text  # the current task shows its activeForm
    assert "› Off by one in the loop" in text  # and its notes
    assert "✗ Run tests" in text
    assert "[███░░░░░░░] 1/3" in text
    markdown = plansight("show", "--db", db, "--format", "markdown").stdout
    assert "- [x] Read the code" in markdown and "- [-] Run tests" in markdown


def test_panel_shows_markup_as_written(db: str) -> None:
    plansight(
        "apply",
        "--db",
        db,
        "--ops",
        json.dumps([{"op": "append", "phase": "P", "items": ["[bold red]not markup[/]"]}]),
    )
    assert "[bold red]not markup[/]" in plansight("show", "--db", db).stdout


def test_export_import_clear_round_trip(db: str, tmp_path: Path) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    out = tmp_path / "plan.md"
    assert plansight("export", "--db", db, "--output", str(out)).returncode == 0
    text = out.read_text()
    assert text.startswith("## Explore\n- [/] Read the code\n")
    assert json.loads(plansight("export", "--db", db, "--format", "json").stdout)["version"] == 1

    cleared = plansight("clear", "--db", db)
    assert cleared.returncode == 0 and cleared.stdout.startswith(
        "Todo list cleared.\nRemoved 3 unfinished tasks:"
    )
    assert state(db)["phases"] == []

    out.write_text(text.replace("- [ ] Run tests", "- [x] Run tests"))
    imported = plansight("import", "--db", db, str(out), "--origin", "user")
    assert imported.returncode == 0, imported.stderr
    statuses = [t["status"] for p in state(db)["phases"] for t in p["tasks"]]
    assert statuses == ["in_progress", "pending", "completed"]
    bad = plansight("import", "--db", db, "-", stdin="## A\n- [?] odd\n")
    assert bad.returncode == 1 and 'unknown marker "[?]"' in bad.stdout


def test_context(db: str) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    text = plansight("context", "--db", db).stdout
    assert "0/3 completed, 3 remaining" in text and "Current task: Read the code" in text


def test_context_full_prints_every_task(db: str) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    full = plansight("context", "--db", db, "--full")
    assert full.returncode == 0, full.stderr
    assert full.stdout.splitlines() == [
        "Todo list: 0/3 completed, 3 remaining.",
        "Current: Read the code",
        "Explore:",
        "  [>] Read the code",
        "Build:",
        "  [ ] Write the fix",
        "  [ ] Run tests",
    ]


def test_schema_covers_every_method() -> None:
    schema = json.loads(plansight("schema").stdout)
    assert schema["protocolVersion"] == 4
    assert set(schema["requests"]) == {
        "plansight/apply",
        "plansight/write",
        "plansight/get",
        "plansight/sessions",
        "plansight/clear",
        "plansight/export",
        "plansight/history",
        "plansight/restore",
        "plansight/import",
        "plansight/context",
        "plansight/ingest",
        "plansight/undo",
    }
    assert "activeForm" in json.dumps(schema["requests"]["plansight/write"]["params"])
    assert set(schema["notifications"]) == {"plansight/didChange", "plansight/didPrune"}


def test_demo_runs_to_the_end() -> None:
    done = plansight("demo", "--fast")
    assert done.returncode == 0, done.stderr
    assert "✓ Update the README" in done.stdout
    assert "✗ Make the limits configurable per route" in done.stdout
    assert "Send a Retry-After header on 429" in done.stdout  # the discovered subtask
    assert "] 8/9" in done.stdout


def test_version_and_module_entry_point() -> None:
    done = plansight("--version")
    assert done.returncode == 0 and done.stdout.startswith("plansight ")
    entry = subprocess.run(
        ["plansight", "--version"],
        capture_output=True,
        text=True,
        env={"PATH": str(Path(sys.executable).parent)},
    )
    assert entry.stdout == done.stdout


def test_history_restore_and_undo(db: str) -> None:
    plansight("apply", "--db", db, "--ops", json.dumps(OPS))
    plansight("apply", "--db", db, "--ops", '[{"op": "done", "task": "Read the code"}]')
    plansight("apply", "--db", db, "--ops", '[{"op": "rm", "task": "Run tests"}]')
    shown = plansight("history", "--db", db)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1].split()[:2] == ["3", "agent"] and 'removed "Run tests"' in shown.stdout
    assert (
        json.loads(plansight("history", "--db", db, "--json", "--limit", "1").stdout)["events"][0][
            "version"
        ]
        == 3
    )

    undone = plansight("undo", "--db", db)
    assert undone.returncode == 0, undone.stderr
    after = state(db)
    assert after["version"] == 4
    assert [t["content"] for p in after["phases"] for t in p["tasks"]][-1] == "Run tests"
    newest = json.loads(plansight("history", "--db", db, "--json").stdout)["events"][0]
    assert (newest["method"], newest["origin"]) == ("plansight/undo", "user")
    # (v3) Again: one more step back (the completion), not back to where it was.
    again = plansight("undo", "--db", db)
    assert again.returncode == 0, again.stderr
    assert state(db)["version"] == 5 and state(db)["progress"]["completed"] == 0
    assert "undo" in plansight("history", "--db", db, "--limit", "1").stdout

    restored = plansight("restore", "--db", db, "1")
    assert restored.returncode == 0, restored.stderr
    assert state(db)["progress"]["completed"] == 0
    too_old = plansight("restore", "--db", db, "99")
    assert too_old.returncode != 0
    assert "version" in too_old.stdout + too_old.stderr and "Traceback" not in too_old.stderr


def test_show_draws_blocked_waiting_priorities_owners_and_files(db: str) -> None:
    ops = [
        {
            "op": "init",
            "list": [
                {
                    "phase": "Build",
                    "items": [
                        {"content": "Compile", "priority": "high"},
                        {"content": "Test", "blockedBy": ["Compile"], "owner": "tester"},
                        {"content": "Ask for keys", "status": "blocked"},
                    ],
                }
            ],
        },
        {"op": "update", "task": "Compile", "addFiles": ["src/main.c"]},
    ]
    plansight("apply", "--db", db, "--ops", json.dumps(ops))
    shown = plansight("show", "--db", db)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "⊘ Ask for keys" in out and "1 blocked" in out
    assert '(waits for "Compile")' in out
    assert "!!" in out and "@tester" in out and "◦ src/main.c" in out


def test_store_path_is_the_one_serve_opens(tmp_path: Path) -> None:
    """Editors ask this instead of hashing the root themselves."""
    from plansight.paths import default_store_path

    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    asked = plansight("store-path", "--root", str(root))
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.strip() == str(default_store_path(root))
    in_shell = plansight("store-path", cwd=root / ".git")
    assert in_shell.stdout.strip() == str(default_store_path(root))
    explicit = plansight("store-path", "--db", str(tmp_path / "x.sqlite3"), "--root", str(root))
    assert explicit.stdout.strip() == str(tmp_path / "x.sqlite3")
