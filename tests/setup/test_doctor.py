"""`plansight doctor` in fresh homes: what it finds healthy, what broken (exit 1) and the
one command that fixes each problem (issue 22, item 5); an agent never set up is worth
knowing, not broken (issue 29, item 15); an MCP entry whose command does not run is
broken (issue 29, item 14). The agents' real CLIs are in
`tests/agent_clis/test_real_mcp_and_doctor.py` (Codex's hook trust needs Codex itself)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


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


def test_an_agent_never_set_up_is_worth_knowing_not_broken(home: Path, project: Path) -> None:
    """Claude Code installed, Plansight never set up for it: what is missing is shown with
    the command that sets it up, and nothing is broken (exit 0)."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    found = _run(home, project, "doctor")
    assert found.returncode == 0, found.stdout
    out = found.stdout
    assert "- hooks: not installed" in out
    assert "- no plan tool at all: the model cannot plan" in out
    assert out.count("fix: plansight setup claude-code") >= 2
    assert "✗" not in out and "Something is broken" not in out
    assert "Everything set up works. Not set up: Claude Code (plansight setup claude-code)." in out
    report = json.loads(_run(home, project, "doctor", "--json").stdout)
    assert report["ok"] is True and report["agents"][0]["setUp"] is False


def test_hooks_taken_out_of_a_set_up_agent_are_broken_with_their_fix(
    home: Path, project: Path
) -> None:
    """Set up, then the hooks are gone (an edit, another tool rewriting the file): setup's
    record says it was set up, so no plan arriving is broken (exit 1)."""
    assert _run(home, project, "setup", "claude-code").returncode == 0
    settings = home / ".claude" / "settings.json"
    written = json.loads(settings.read_text())
    del written["hooks"]
    settings.write_text(json.dumps(written))
    broken = _run(home, project, "doctor")
    assert broken.returncode == 1, broken.stdout
    assert "✗ hooks: not installed" in broken.stdout
    assert "fix: plansight setup claude-code" in broken.stdout
    assert "Something is broken" in broken.stdout
    report, code = _json(home, project)
    assert report["ok"] is False and code == 1 and report["agents"][0]["setUp"] is False


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


def _json(home: Path, project: Path, *args: str) -> tuple[dict[str, Any], int]:
    done = _run(home, project, "doctor", "--json", *args)
    report: dict[str, Any] = json.loads(done.stdout)
    return report, done.returncode


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
        "broken": False,  # never set up: worth knowing, not broken
    }
    assert report["store"]["ok"] is True and report["ok"] is True
    assert done.returncode == 0  # as the text report: nothing set up is broken


def test_json_with_no_agent_is_an_empty_list(home: Path, project: Path) -> None:
    done = _run(home, project, "doctor", "--json")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["agents"] == []


def _claude_mcp_entry(home: Path, entry: dict[str, Any]) -> Path:
    """`~/.claude.json` holding `entry` as the `plansight` MCP server."""
    path = home / ".claude.json"
    config = json.loads(path.read_text()) if path.exists() else {}
    config.setdefault("mcpServers", {})["plansight"] = entry
    path.write_text(json.dumps(config, indent=2))
    return path


def test_a_persons_own_mcp_entry_whose_command_is_gone_is_broken(home: Path, project: Path) -> None:
    """The person's own `plansight` entry (setup keeps it, and says so) names a program
    that is not there: the agent cannot start it, so doctor says so, and how to fix it."""
    assert _run(home, project, "setup", "claude-code").returncode == 0
    path = _claude_mcp_entry(home, {"command": "plansight-nightly", "args": ["mcp"]})
    broken = _run(home, project, "doctor", "claude-code")
    assert broken.returncode == 1, broken.stdout
    assert (
        f"✗ MCP server plansight in {path} does not run: "
        "its command 'plansight-nightly' is not found"
    ) in broken.stdout
    assert f"fix: correct or delete your own `plansight` entry in {path}" in broken.stdout
    assert "Everything works." not in broken.stdout


def test_an_mcp_entry_that_runs_something_else_is_broken(home: Path, project: Path) -> None:
    """A command that is there but is no MCP server (`cat` echoes the question back)."""
    assert _run(home, project, "setup", "claude-code").returncode == 0
    _claude_mcp_entry(home, {"command": "cat", "args": []})
    broken = _run(home, project, "doctor", "claude-code")
    assert broken.returncode == 1, broken.stdout
    assert "does not run: `" in broken.stdout
    assert "cat` answered, but not as Plansight's MCP server" in broken.stdout
    _claude_mcp_entry(home, {"command": "true", "args": ["mcp"]})
    ended = _run(home, project, "doctor", "claude-code")
    assert ended.returncode == 1, ended.stdout
    assert "true mcp` ended without answering MCP's initialize" in ended.stdout


def test_an_entry_setup_wrote_for_an_install_since_removed_is_fixed_by_setup(
    home: Path, project: Path
) -> None:
    """Set up (before records were kept) from a virtualenv deleted since: setup's own form,
    so `plansight setup` is the fix, and it is."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}")
    _claude_mcp_entry(
        home, {"type": "stdio", "command": "/gone/venv/bin/plansight", "args": ["mcp"], "env": {}}
    )
    broken = _run(home, project, "doctor", "claude-code")
    assert broken.returncode == 1, broken.stdout
    assert "its command '/gone/venv/bin/plansight' is not found" in broken.stdout
    assert "fix: plansight setup claude-code" in broken.stdout
    assert _run(home, project, "setup", "claude-code").returncode == 0
    healthy = _run(home, project, "doctor", "claude-code")
    assert healthy.returncode == 0, healthy.stdout
    assert "✓ MCP server plansight in" in healthy.stdout


def test_a_persons_own_entry_that_answers_as_plansight_is_healthy(
    home: Path, project: Path
) -> None:
    """Not setup's form (a session of its own), but it starts Plansight's MCP server,
    which answers `initialize`: healthy."""
    assert _run(home, project, "setup", "claude-code").returncode == 0
    _claude_mcp_entry(
        home,
        {
            "command": sys.executable,
            "args": ["-m", "plansight", "mcp"],
            "env": {"PLANSIGHT_SESSION": "mine"},
        },
    )
    healthy = _run(home, project, "doctor", "claude-code")
    assert healthy.returncode == 0, healthy.stdout
    assert "✓ MCP server plansight in" in healthy.stdout and "Everything works." in healthy.stdout


def test_codex_hooks_not_trusted_are_found_without_codex_on_path(home: Path, project: Path) -> None:
    """An editor started with another PATH runs the doctor without Codex: Codex's own files
    still say its hooks are not trusted yet (issue 31 item 6), and that they are once
    `/hooks` recorded them (the keys and hashes: tests/setup/test_codex_hook_trust.py)."""
    from plansight.codex_hook_trust import plansight_hooks

    assert _run(home, project, "setup", "codex").returncode == 0
    found = _run(home, project, "doctor", "codex", "--json")
    assert found.returncode == 1, found.stdout
    [codex] = json.loads(found.stdout)["agents"]
    assert {
        "ok": False,
        "what": "hooks not trusted by Codex yet: they do not run (as its config.toml records)",
        "fix": "codex   (then /hooks: trust Plansight's hooks)",
        "broken": True,
    } in codex["findings"]

    config = home / ".codex" / "config.toml"
    config.write_text(
        config.read_text()
        + "".join(
            f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(value)}\n"
            for key, value in plansight_hooks(home / ".codex" / "hooks.json")
        )
    )
    healthy = _run(home, project, "doctor", "codex")
    assert healthy.returncode == 0, healthy.stdout
    assert "✓ hooks trusted by Codex (as its config.toml records)" in healthy.stdout
