"""The one line the hook gives an agent at the start of a session names Plansight's MCP
tool only while that server is still registered: after `claude mcp remove`, `gemini mcp
remove`, `codex mcp remove` or an edit took it out, the agent is not sent to a tool it
no longer has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin"}


def _setup(home: Path, cwd: Path, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "setup", *args],
        cwd=cwd,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _note(home: Path, agent: str) -> str | None:
    code = (
        "import json, sys; from plansight.hook.plan_tool_note import plan_tool_note; "
        "print(json.dumps(plan_tool_note(sys.argv[1])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, agent],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    note: str | None = json.loads(done.stdout)
    return note


def _without_json_server(path: Path, key: str) -> None:
    settings = json.loads(path.read_text(encoding="utf-8"))
    del settings[key]["plansight"]
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


def _without_codex_server(path: Path) -> None:
    """The table taken out as `codex mcp remove` does: its header and its lines."""
    kept, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("["):
            inside = line.strip() == "[mcp_servers.plansight]"
        if not inside:
            kept.append(line)
    path.write_text("".join(kept), encoding="utf-8")


@pytest.mark.parametrize(
    ("agent", "take_out"),
    [
        ("claude-code", lambda home: _without_json_server(home / ".claude.json", "mcpServers")),
        (
            "gemini",
            lambda home: _without_json_server(home / ".gemini" / "settings.json", "mcpServers"),
        ),
        ("codex", lambda home: _without_codex_server(home / ".codex" / "config.toml")),
    ],
)
def test_the_note_names_plansights_tool_only_while_it_is_registered(
    home: Path, project: Path, agent: str, take_out: object
) -> None:
    _setup(home, project, agent)
    note = _note(home, agent)
    assert note is not None and "todo_write of the plansight MCP server" in note
    take_out(home)  # type: ignore[operator]
    assert _note(home, agent) is None
    _setup(home, project, agent)  # set up again: named again
    assert _note(home, agent) is not None


def test_a_record_from_before_the_files_were_kept_still_gives_the_note(
    home: Path, project: Path
) -> None:
    _setup(home, project, "gemini")
    record_path = home / ".local" / "state" / "plansight" / "setup.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    del record["mcp_files"]
    record_path.write_text(json.dumps(record), encoding="utf-8")
    assert _note(home, "gemini") is not None


def _swap_for_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    "swapped",
    [
        lambda home: home / ".local" / "state" / "plansight" / "setup.json",
        lambda home: home / ".gemini" / "settings.json",
    ],
    ids=["setup's record", "the agent's MCP file"],
)
def test_a_fifo_in_a_files_place_does_not_hold_the_session_start(
    home: Path, project: Path, swapped: object
) -> None:
    """Opening a FIFO waits for a writer that never comes: the session start's note would
    hang until the agent's hook timeout. The file is passed over, as an unreadable one is
    (`_note` runs in a process of its own with a 60 s guard, which only a hang reaches)."""
    _setup(home, project, "gemini")
    _swap_for_fifo(swapped(home))  # type: ignore[operator]
    assert _note(home, "gemini") is None


def test_a_record_nested_too_deeply_gives_no_note_and_no_error(home: Path, project: Path) -> None:
    _setup(home, project, "gemini")
    record_path = home / ".local" / "state" / "plansight" / "setup.json"
    record_path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert _note(home, "gemini") is None
