"""`plansight doctor` in fresh homes: what it finds healthy, what broken (exit 1) and the
one command that fixes each problem (issue 22, item 5). The agents' real CLIs are in
`tests/agent_clis/test_real_mcp_and_doctor.py` (Codex's hook trust needs Codex itself)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _run(
    home: Path, cwd: Path, *args: str, path: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        cwd=cwd,
        env={"HOME": str(home), "PATH": f"{path}/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _fake_cli(folder: Path, name: str, output: str) -> None:
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}\nEOF\n")
    script.chmod(0o755)


def test_claude_code_set_up_is_healthy(home: Path, project: Path) -> None:
    done = _run(home, project, "setup", "claude-code")
    assert done.returncode == 0, done.stderr
    assert "✓ hooks in" in done.stdout  # setup ends with the doctor's word on it
    healthy = _run(home, project, "doctor")
    assert healthy.returncode == 0, healthy.stdout
    assert "Claude Code\n" in healthy.stdout and "Everything works." in healthy.stdout
    for line in ("✓ hooks in", "✓ MCP server plansight in", "✓ plan tool TaskCreate/TaskUpdate on"):
        assert line in healthy.stdout


def test_no_hooks_no_mcp_and_no_plan_tool_is_broken_with_its_fix(home: Path, project: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    broken = _run(home, project, "doctor")
    assert broken.returncode == 1
    out = broken.stdout
    assert "✗ hooks: not installed" in out
    assert "✗ no plan tool at all: the model cannot plan" in out
    assert out.count("fix: plansight setup claude-code") >= 2
    assert "Something is broken" in out


def test_a_settings_file_that_cannot_be_read_is_named(home: Path, project: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text('{"theme": ')
    broken = _run(home, project, "doctor", "gemini")
    assert broken.returncode == 1
    assert "is not valid JSON with comments" in broken.stdout and "by hand" in broken.stdout


def test_editors_found_with_and_without_the_plugin(
    home: Path, project: Path, tmp_path: Path
) -> None:
    bin_folder = tmp_path / "bin"
    _fake_cli(bin_folder, "code", "ms-python.python\nplansight.plansight")
    _fake_cli(bin_folder, "cursor", "ms-python.python")
    _fake_cli(bin_folder, "nvim", "")
    (home / ".config" / "nvim" / "lua" / "plugins").mkdir(parents=True)
    (home / ".config" / "nvim" / "lua" / "plugins" / "plansight.lua").write_text(
        '{ name = "plansight" }'
    )
    out = _run(home, project, "doctor", path=f"{bin_folder}:").stdout
    assert "code\n  ✓ extension plansight.plansight installed" in out
    assert "cursor\n  - extension plansight.plansight not installed" in out
    assert "fix: plansight setup vscode" in out
    assert "Neovim\n  ✓ plugin spec found in" in out


def test_a_postgresql_store_is_reached_and_its_password_never_shown(
    home: Path, project: Path, postgres_url: str
) -> None:
    reached = _run(home, project, "doctor", "gemini", PLANSIGHT_DB=postgres_url)
    assert "✓ store postgresql://" in reached.stdout and "reachable" in reached.stdout

    wrong = "postgresql://alice:s3cret@127.0.0.1:1/nothing"
    broken = _run(home, project, "doctor", "gemini", PLANSIGHT_DB=wrong)
    assert broken.returncode == 1
    assert "✗ store postgresql://alice:****@127.0.0.1:1/nothing" in broken.stdout
    assert "s3cret" not in broken.stdout + broken.stderr


def test_setup_records_what_it_added(home: Path, project: Path) -> None:
    assert _run(home, project, "setup", "gemini").returncode == 0
    record = json.loads((home / ".local/state/plansight/setup.json").read_text())
    [entry] = record["files"].values()
    assert entry["hook_events"] == [
        "AfterTool",
        "BeforeAgent",
        "BeforeModel",
        "PreCompress",
        "SessionStart",
    ]
    assert list(entry["mcp"]) == ["plansight"] and record["agents"] == {"gemini": ["user"]}
    assert _run(home, project, "setup", "gemini", "--remove").returncode == 0
    record = json.loads((home / ".local/state/plansight/setup.json").read_text())
    assert record["files"] == {} and record["agents"] == {}


def test_json_names_the_agents_found_and_whether_each_is_set_up(
    home: Path, project: Path, tmp_path: Path
) -> None:
    """The VS Code panel's welcome lists these agents (issue 23, item 3)."""
    bin_folder = tmp_path / "bin"
    _fake_cli(bin_folder, "gemini", "")
    assert _run(home, project, "setup", "claude-code").returncode == 0
    done = _run(home, project, "doctor", "--json", path=f"{bin_folder}:")
    report = json.loads(done.stdout)
    agents = {agent["name"]: agent for agent in report["agents"]}
    assert sorted(agents) == ["claude-code", "gemini"]
    assert agents["claude-code"]["label"] == "Claude Code"
    assert agents["claude-code"]["setUp"] is True
    assert agents["gemini"]["setUp"] is False
    hooks = agents["gemini"]["findings"][0]
    assert hooks == {
        "ok": False,
        "what": "hooks: not installed (no plan arrives)",
        "fix": "plansight setup gemini",
        "broken": True,
    }
    assert report["store"]["ok"] is True and report["ok"] is False
    assert done.returncode == 1  # as the text report: something is broken


def test_json_with_no_agent_is_an_empty_list(home: Path, project: Path) -> None:
    done = _run(home, project, "doctor", "--json")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["agents"] == []
