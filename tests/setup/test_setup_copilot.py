"""`plansight setup copilot`: Plansight's own hook file where Copilot CLI and VS Code's
agent mode read hook files, and Plansight's MCP server in Copilot CLI's user MCP config
exactly as `copilot mcp add` writes it; once; `--remove` takes exactly those out again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "setup"
PERSONS_SERVER = {"type": "local", "command": "github-mcp", "args": [], "tools": ["*"]}


def run(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        cwd=cwd,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _hooks(home: Path) -> Path:
    return home / ".copilot" / "hooks" / "plansight.json"


def _mcp(home: Path) -> Path:
    return home / ".copilot" / "mcp-config.json"


def test_setup_writes_the_hook_file_and_server_once_and_remove_restores(
    home: Path, project: Path
) -> None:
    mcp = _mcp(home)
    mcp.parent.mkdir(parents=True)
    persons = json.dumps({"mcpServers": {"github": PERSONS_SERVER}}, indent=2) + "\n"
    mcp.write_text(persons)

    first = run(home, project, "setup", "copilot")
    assert first.returncode == 0, first.stderr
    hooks = json.loads(_hooks(home).read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact"}
    assert hooks["PreCompact"][0]["matcher"] == "manual|auto"  # `/compact`, its own
    [post] = hooks["PostToolUse"]
    assert post["matcher"] == "sql|manage_todo_list|exit_plan_mode|Edit|Write"
    assert post["hooks"][0]["command"].endswith("-m plansight hook copilot")
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert servers["github"] == PERSONS_SERVER
    recorded = json.loads((FIXTURES / "copilot-user-mcp.json").read_text())["mcpServers"]
    assert servers["plansight"].keys() == recorded["plansight"].keys()  # `copilot mcp add`'s
    assert servers["plansight"]["args"][-1] == "mcp"
    assert "✓ hooks in" in first.stdout and "✓ MCP server plansight in" in first.stdout

    hooks_text, mcp_text = _hooks(home).read_text(), mcp.read_text()
    again = run(home, project, "setup", "copilot")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("already as it should be") == 2
    assert (_hooks(home).read_text(), mcp.read_text()) == (hooks_text, mcp_text)

    removed = run(home, project, "setup", "copilot", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert not _hooks(home).exists()  # Plansight's own file, emptied: gone as it came
    assert mcp.read_text() == persons


def test_copilot_home_is_where_copilot_reads(home: Path, project: Path) -> None:
    elsewhere = home / "copilot-home"
    done = run(home, project, "setup", "copilot", COPILOT_HOME=str(elsewhere))
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "hooks" / "plansight.json").is_file()
    assert (elsewhere / "mcp-config.json").is_file()
    assert not (home / ".copilot").exists()


def test_remove_keeps_what_the_person_changed(home: Path, project: Path) -> None:
    assert run(home, project, "setup", "copilot").returncode == 0
    hooks = json.loads(_hooks(home).read_text())
    hooks["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "notify.sh"}]}]
    _hooks(home).write_text(json.dumps(hooks))
    settings = json.loads(_mcp(home).read_text())
    settings["mcpServers"]["plansight"]["env"] = {"PLANSIGHT_DB": "/elsewhere.db"}
    _mcp(home).write_text(json.dumps(settings))

    removed = run(home, project, "setup", "copilot", "--remove")
    assert removed.returncode == 0, removed.stderr
    left = json.loads(_hooks(home).read_text())
    assert left == {"hooks": {"Stop": hooks["hooks"]["Stop"]}}
    assert json.loads(_mcp(home).read_text()) == settings
    assert "Kept the MCP server entry 'plansight'" in removed.stdout


def test_dry_run_and_project_scope(home: Path, project: Path) -> None:
    dry = run(home, project, "setup", "copilot", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "(dry run: nothing changed)" in dry.stdout and not (home / ".copilot").exists()

    done = run(home, project, "setup", "copilot", "--scope", "project")
    assert done.returncode == 0, done.stderr
    assert (project / ".github" / "hooks" / "plansight.json").is_file()
    assert not (home / ".copilot").exists()  # the project's hooks; no user file touched
    assert "trusted" in done.stdout


def test_a_hook_file_copilot_cannot_read_stops_setup(home: Path, project: Path) -> None:
    _hooks(home).parent.mkdir(parents=True)
    _hooks(home).write_text('{"hooks": [')
    failed = run(home, project, "setup", "copilot")
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr and "plansight.json" in failed.stderr
    assert _hooks(home).read_text() == '{"hooks": ['
    assert not _mcp(home).exists()


def test_doctor_says_what_copilot_lacks_and_then_that_it_works(home: Path, project: Path) -> None:
    before = run(home, project, "doctor", "copilot")
    assert before.returncode == 0  # never set up: worth knowing, not broken
    assert "- hooks: not installed" in before.stdout
    assert "fix: plansight setup copilot" in before.stdout
    assert run(home, project, "setup", "copilot").returncode == 0
    after = run(home, project, "doctor", "copilot")
    assert after.returncode == 0, after.stdout
    assert "✓ hooks in" in after.stdout and "✓ MCP server plansight in" in after.stdout


def test_setup_again_widens_an_earlier_setups_compaction_matcher(home: Path, project: Path) -> None:
    """A hook file an earlier Plansight wrote took `PreCompact` for `/compact` only
    (matcher "manual"): Copilot CLI then ran no Plansight hook for its own compaction.
    Doctor says so, with the fix; `plansight setup copilot` again makes it
    "manual|auto", and changes nothing else."""
    assert run(home, project, "setup", "copilot").returncode == 0
    written = json.loads(_hooks(home).read_text())
    written["hooks"]["PreCompact"][0]["matcher"] = "manual"
    _hooks(home).write_text(json.dumps(written, indent=2) + "\n")
    found = run(home, project, "doctor", "copilot")
    assert found.returncode == 1, found.stdout
    stale = "✗ hooks of an earlier Plansight: its compaction hook hears only 'manual'"
    assert stale in found.stdout and "fix: plansight setup copilot" in found.stdout

    again = run(home, project, "setup", "copilot")
    assert again.returncode == 0, again.stderr
    hooks = json.loads(_hooks(home).read_text())["hooks"]
    assert [group["matcher"] for group in hooks["PreCompact"]] == ["manual|auto"]
    assert {event: len(groups) for event, groups in hooks.items()} == dict.fromkeys(
        ("SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact"), 1
    )
    healthy = run(home, project, "doctor", "copilot")
    assert healthy.returncode == 0 and "earlier Plansight" not in healthy.stdout, healthy.stdout
