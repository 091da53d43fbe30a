"""`plansight setup claude-code|codex|gemini`: the agent's own settings file gains exactly
Plansight's hooks (and the switch its plan tool needs), once, with a backup and a diff;
`--remove` takes exactly those out again; every other setting stays as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

USER_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}


def setup(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "plansight", "setup", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(project: Path) -> Path:
    """The project, with a subfolder to run setup from."""
    (project / "src").mkdir()
    return project


def _backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.*.bak"))


def test_claude_code_keeps_every_other_setting_and_twice_is_once(home: Path, project: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {"model": "opus", "env": {"FOO": "1"}, "hooks": {"PostToolUse": [USER_HOOK]}}
    settings.write_text(json.dumps(original, indent=4) + "\n")

    first = setup(home, project, "claude-code")
    assert first.returncode == 0, first.stderr
    assert f"+++ {settings}" in first.stdout and "PostToolUse" in first.stdout  # the diff
    written = json.loads(settings.read_text())
    assert written["model"] == "opus"
    assert written["env"] == {"FOO": "1", "CLAUDE_CODE_ENABLE_TODO_TOOLS": "true"}
    post = written["hooks"]["PostToolUse"]
    assert post[0] == USER_HOOK
    assert (
        post[1]["matcher"]
        == "TodoWrite|TaskCreate|TaskUpdate|ExitPlanMode|Edit|MultiEdit|NotebookEdit|Write"
    )
    assert post[1]["hooks"][0]["command"].endswith("-m plansight hook claude-code")
    assert post[1]["hooks"][0]["timeout"] == 10
    assert set(written["hooks"]) == {"PostToolUse", "SessionStart", "UserPromptSubmit"}
    assert settings.read_text().startswith('{\n    "model"')  # its indentation kept
    [backup] = _backups(settings)
    assert json.loads(backup.read_text()) == original

    before = settings.read_text()
    second = setup(home, project, "claude-code")
    assert second.returncode == 0
    assert "already as it should be" in second.stdout
    assert settings.read_text() == before and len(_backups(settings)) == 1

    removed = setup(home, project, "claude-code", "--remove")
    assert removed.returncode == 0
    assert json.loads(settings.read_text()) == original


def test_an_edited_entry_is_put_right(home: Path, project: Path) -> None:
    setup(home, project, "claude-code")
    settings = home / ".claude" / "settings.json"
    written = json.loads(settings.read_text())
    written["hooks"]["PostToolUse"][0]["matcher"] = "Edit"  # someone trimmed it
    settings.write_text(json.dumps(written))
    assert setup(home, project, "claude-code").returncode == 0
    again = json.loads(settings.read_text())["hooks"]["PostToolUse"]
    assert [group["matcher"] for group in again] == [
        "TodoWrite|TaskCreate|TaskUpdate|ExitPlanMode|Edit|MultiEdit|NotebookEdit|Write"
    ]


def test_dry_run_shows_the_change_and_writes_nothing(home: Path, project: Path) -> None:
    done = setup(home, project, "gemini", "--dry-run")
    assert done.returncode == 0
    assert "BeforeAgent" in done.stdout and "dry run" in done.stdout
    assert not (home / ".gemini").exists()


def test_a_settings_file_that_is_not_json_is_left_alone(home: Path, project: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",}\n')
    done = setup(home, project, "claude-code")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not valid JSON" in done.stderr
    assert "Traceback" not in done.stderr
    assert settings.read_text() == '{"model": "opus",}\n' and not _backups(settings)


def test_project_scope_writes_the_projects_own_file(home: Path, project: Path) -> None:
    done = setup(home, project / "src", "claude-code", "--scope", "project")
    assert done.returncode == 0, done.stderr
    assert (project / ".claude" / "settings.json").exists()
    assert not (home / ".claude").exists()


def test_gemini_hooks_have_a_name_and_milliseconds(home: Path, project: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "Dracula", "hooksConfig": {"enabled": false}}')
    done = setup(home, project, "gemini")
    assert "hooksConfig.enabled = false" in done.stdout  # told, not overridden
    written = json.loads(settings.read_text())
    assert written["theme"] == "Dracula"
    [after_tool] = written["hooks"]["AfterTool"]
    assert (
        after_tool["matcher"]
        == "write_todos|exit_plan_mode|tracker_create_task|tracker_update_task|tracker_add_dependency|replace|write_file"
    )
    handler = after_tool["hooks"][0]
    assert handler["name"] == "plansight" and handler["timeout"] == 10000
    setup(home, project, "gemini", "--remove")
    assert json.loads(settings.read_text()) == {
        "theme": "Dracula",
        "hooksConfig": {"enabled": False},
    }


def test_codex_gets_hooks_json_and_the_plan_tool_switch(home: Path, project: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '# mine\nmodel = "o3"\n\n[tools]\nweb_search = true\n'
    config.write_text(original)
    done = setup(home, project, "codex")
    assert done.returncode == 0, done.stderr
    assert "/hooks" in done.stdout  # Codex asks the person to review new hooks
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["PostToolUse"][0]["matcher"] == "update_plan|apply_patch"
    text = config.read_text()
    assert "[tools.update_plan]\nenabled = true\n" in text
    # The startup grace is a top-level key: first, before the person's own lines.
    first, rest = text.split("\n\n", 1)
    assert first.endswith("\nmcp_optional_startup_grace_ms = 10000")
    assert rest.startswith(original)
    assert tomllib.loads(text)["mcp_optional_startup_grace_ms"] == 10000
    again = setup(home, project, "codex").stdout
    assert "already as it should be" in again
    # Nothing new to review: the doctor's word that follows says whether Codex trusts them
    # (issue 29, item 16; the real Codex in tests/agent_clis/test_real_mcp_and_doctor.py).
    assert "/hooks to trust" not in again and "Codex CLI: already set up, nothing changed." in again

    setup(home, project, "codex", "--remove")
    assert config.read_text() == original
    assert json.loads((home / ".codex" / "hooks.json").read_text()) == {}


def test_codex_keeps_the_persons_own_startup_grace(home: Path, project: Path) -> None:
    """Issue 31: a person's own `mcp_optional_startup_grace_ms` is theirs: setup says so
    and adds none; `--remove` leaves it."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = "mcp_optional_startup_grace_ms = 3000\n"
    config.write_text(original)
    done = setup(home, project, "codex")
    assert done.returncode == 0, done.stderr
    assert "Kept your own mcp_optional_startup_grace_ms = 3000" in done.stdout
    assert tomllib.loads(config.read_text())["mcp_optional_startup_grace_ms"] == 3000
    setup(home, project, "codex", "--remove")
    assert config.read_text() == original


def test_codex_switch_turned_off_by_the_person_is_not_overridden(home: Path, project: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("[tools.update_plan]\nenabled = false\n")
    done = setup(home, project, "codex")
    assert done.returncode == 2 and "tools.update_plan" in done.stderr
    assert not (home / ".codex" / "hooks.json").exists()  # nothing half done
    assert config.read_text() == "[tools.update_plan]\nenabled = false\n"


def test_the_plugins_hooks_are_the_ones_setup_writes() -> None:
    """`hooks/hooks.json` of the Claude Code plugin holds what `setup` writes, with the
    command on PATH (a plugin cannot know where Plansight is installed)."""
    from plansight.hook.hooked_agents import CLAUDE_CODE
    from plansight.setup.agent_hooks import wanted_groups

    plugin = json.loads((Path(__file__).resolve().parents[2] / "hooks" / "hooks.json").read_text())
    wanted: dict[str, list[object]] = {}
    for event, group in wanted_groups(CLAUDE_CODE, "plansight hook claude-code"):
        wanted.setdefault(event, []).append(group)
    assert plugin["hooks"] == wanted
