"""`plansight setup` never damages a person's configuration (issue 20, items 10-14): files it
cannot change safely are refused with a clear message and left byte for byte; comments,
layout and symlinks survive; `--remove` takes out only what setup added; a failed write
leaves nothing behind and says why."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plansight.setup.codex_config import tomllib

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "setup"


def setup(
    home: Path, cwd: Path, *args: str, limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}

    def limit_file_size() -> None:  # in the child only: its writes past `limit` fail
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return subprocess.run(
        [sys.executable, "-m", "plansight", "setup", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=limit_file_size,
    )


def _leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


# ---------------------------------------------------------------- 10: Codex config.toml


def _codex_config(home: Path, text: str) -> Path:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return config


def test_an_inline_tools_table_is_refused_clearly_and_nothing_changes(
    home: Path, project: Path
) -> None:
    original = 'model = "o3"\ntools = { web_search = true }\n'
    config = _codex_config(home, original)
    done = setup(home, project, "codex")
    assert done.returncode == 2
    assert "inline table" in done.stderr and "update_plan = { enabled = true }" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert config.read_text() == original
    assert not (home / ".codex" / "hooks.json").exists()  # nothing half done


@pytest.mark.parametrize(
    "original",
    [
        'tools.web_search = true\nmodel = "o3"\n',  # dotted keys
        '[[profiles]]\nname = "a"\n\n[[profiles]]\nname = "b"\n',  # arrays of tables
        '[mcp_servers.github]\ncommand = "gh"\nenv = { TOKEN = "x" }\n',  # another server
        'model = "o3"',  # no final line break
    ],
)
def test_codex_config_of_any_shape_stays_valid_and_comes_back_byte_for_byte(
    home: Path, project: Path, original: str
) -> None:
    config = _codex_config(home, original)
    done = setup(home, project, "codex")
    assert done.returncode == 0, done.stderr
    written = tomllib.loads(config.read_text())
    assert written["tools"]["update_plan"] == {"enabled": True}
    assert written["mcp_servers"]["plansight"]["args"][-1] == "mcp"
    assert written.pop("mcp_optional_startup_grace_ms") == 10000
    del written["tools"]["update_plan"], written["mcp_servers"]["plansight"]
    for table in ("tools", "mcp_servers"):
        if not written[table]:
            del written[table]
    assert written == tomllib.loads(original)  # the person's settings, all of them
    assert setup(home, project, "codex", "--remove").returncode == 0
    assert config.read_text() == original


# A config.toml as a person keeps it: comments beside values and on their own lines, a
# multi-line array with a trailing comma, inline tables, another MCP server, a profile, a
# trusted project, a multi-line string, an array of tables, aligned `=` signs.
PERSONS_CONFIG = """\
# ~/.codex/config.toml: mine, edited by hand
model           = "gpt-5-codex"   # the default
model_reasoning_effort = 'high'
approval_policy = "on-request"
notify = ["notify-send", "Codex"]
instructions = \"\"\"
Keep plans short.
  Indented, on purpose.
\"\"\"

[sandbox_workspace_write]
writable_roots = [
    "/home/me/.cache",   # builds
    "/tmp",
]
network_access = false

[tools]
web_search = true

[shell_environment_policy]
inherit = "core"
set = { PATH = "/usr/bin:/bin", LANG = "C.UTF-8" }

[mcp_servers.github]
command = "gh"
args    = ["mcp", "serve"]
env     = { GITHUB_TOKEN = "ghp_x" }

[profiles.deep]
model = "o3"

[projects."/home/me/app"]
trust_level = "trusted"

[[notice.seen]]
id = 1
[[notice.seen]]
id = 2
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_a_persons_codex_config_keeps_every_byte_through_setup_and_remove(
    home: Path, project: Path, newline: str
) -> None:
    """Everything the person wrote stays as it was, byte for byte (line endings of a file
    written on Windows included): setup's tables come after it, a dry run and a second
    setup change nothing, and `--remove` gives the file back."""
    original = PERSONS_CONFIG.replace("\n", newline).encode()
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(original)

    dry = setup(home, project, "codex", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+[tools.update_plan]" in dry.stdout and "+[mcp_servers.plansight]" in dry.stdout
    assert config.read_bytes() == original

    assert setup(home, project, "codex").returncode == 0
    written = config.read_bytes()
    # The person's lines, untouched, after setup's startup grace (a top-level key: first).
    grace, _, rest = written.partition(newline.encode() * 2)
    assert grace.endswith(b"mcp_optional_startup_grace_ms = 10000")
    assert rest.startswith(original)
    if newline == "\r\n":  # setup's lines end the file's way too
        assert written.count(b"\n") == written.count(b"\r\n")
    settings = tomllib.loads(written.decode())
    assert settings["tools"] == {"web_search": True, "update_plan": {"enabled": True}}
    assert settings["mcp_servers"]["github"]["env"] == {"GITHUB_TOKEN": "ghp_x"}
    assert settings["instructions"] == "Keep plans short.\n  Indented, on purpose.\n"

    again = setup(home, project, "codex")
    assert f"{config}: already as it should be" in again.stdout
    assert config.read_bytes() == written

    assert setup(home, project, "codex", "--remove").returncode == 0
    assert config.read_bytes() == original


def test_a_config_toml_that_is_not_toml_is_refused(home: Path, project: Path) -> None:
    config = _codex_config(home, "model = \n")
    done = setup(home, project, "codex")
    assert done.returncode == 2 and "not valid TOML" in done.stderr
    assert config.read_text() == "model = \n"


# ---------------------------------------------------------------- 11: Gemini's comments


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_gemini_settings_with_comments_keep_every_byte(
    home: Path, project: Path, newline: str
) -> None:
    """The fixture is JSON as Gemini CLI reads it (strip-json-comments, then JSON.parse):
    setup adds its entries, every other byte stays (its line endings too), and --remove
    gives the file back."""
    original = (FIXTURES / "gemini-settings-with-comments.json").read_text()
    original = original.replace("\n", newline)
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(original.encode())
    done = setup(home, project, "gemini")
    assert done.returncode == 0, done.stderr
    written = settings.read_text()
    for line in original.splitlines():
        assert line.rstrip(",") in written  # each comment and line is still there
    assert (
        "write_todos|exit_plan_mode|tracker_create_task|tracker_update_task|tracker_add_dependency|replace|write_file"
        in written
        and '"plansight": {' in written
    )
    raw = settings.read_bytes()
    assert raw.count(b"\n") == raw.count(newline.encode())  # every line ends the file's way
    assert setup(home, project, "gemini").stdout.count("already as it should be") == 1
    assert setup(home, project, "gemini", "--remove").returncode == 0
    assert settings.read_bytes() == original.encode()


def test_a_trailing_comma_gemini_refuses_too_is_refused(home: Path, project: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "theme": "Dracula",\n}\n')
    done = setup(home, project, "gemini")
    assert done.returncode == 2
    assert "trailing comma at line 2" in done.stderr
    assert settings.read_text() == '{\n  "theme": "Dracula",\n}\n'


# ---------------------------------------------------------------- 12: symlinks


def test_a_symlinked_settings_file_is_written_through_the_link(home: Path, project: Path) -> None:
    dotfiles = home / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    real = dotfiles / "settings.json"
    real.write_text('{\n  "model": "opus"\n}\n')
    real.chmod(0o640)
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))

    done = setup(home, project, "claude-code")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert "TaskCreate" in real.read_text() and json.loads(real.read_text())["model"] == "opus"
    assert real.stat().st_mode & 0o777 == 0o640
    assert _leftovers(dotfiles) == [] and _leftovers(link.parent) == []
    # The backup lies beside the link, not in the person's dotfiles repository.
    assert [p.name for p in dotfiles.iterdir()] == ["settings.json"]
    assert len(list(link.parent.glob("settings.json.*.bak"))) == 1


# ---------------------------------------------------------------- 13: remove only what setup added


def test_remove_keeps_a_switch_the_person_had(home: Path, project: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = '{\n  "env": {\n    "CLAUDE_CODE_ENABLE_TODO_TOOLS": "true"\n  }\n}\n'
    settings.write_text(original)
    assert setup(home, project, "claude-code").returncode == 0
    assert setup(home, project, "claude-code", "--remove").returncode == 0
    assert settings.read_text() == original


def test_a_lookalike_hook_of_the_persons_own_is_kept(home: Path, project: Path) -> None:
    hooks = home / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    audit = {"type": "command", "command": "~/bin/audit-plansight hook codex"}
    original = json.dumps({"hooks": {"SessionStart": [{"hooks": [audit]}]}}, indent=2) + "\n"
    hooks.write_text(original)
    assert setup(home, project, "codex").returncode == 0
    groups = json.loads(hooks.read_text())["hooks"]["SessionStart"]
    assert groups[0] == {"hooks": [audit]} and len(groups) == 2  # theirs, then Plansight's
    assert setup(home, project, "codex", "--remove").returncode == 0
    assert hooks.read_text() == original


def test_a_customised_plansight_hook_is_neither_replaced_nor_removed(
    home: Path, project: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "PLANSIGHT_DB=/srv/plans.db plansight hook claude-code"}
    original = json.dumps({"hooks": {"SessionStart": [{"hooks": [mine]}]}}, indent=2) + "\n"
    settings.write_text(original)
    done = setup(home, project, "claude-code")
    assert done.returncode == 0, done.stderr
    assert "Kept your own Plansight hook for SessionStart" in done.stdout
    written = json.loads(settings.read_text())["hooks"]
    assert written["SessionStart"] == [{"hooks": [mine]}]  # no second Plansight hook there
    assert set(written) == {"SessionStart", "UserPromptSubmit", "PostToolUse"}
    assert setup(home, project, "claude-code", "--remove").returncode == 0
    assert settings.read_text() == original


def test_an_mcp_entry_changed_by_the_person_is_kept_on_remove(home: Path, project: Path) -> None:
    assert setup(home, project, "claude-code").returncode == 0
    claude_json = home / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"]["plansight"]["env"] = {"PLANSIGHT_DB": "/srv/plans.db"}
    claude_json.write_text(json.dumps(data, indent=2))
    done = setup(home, project, "claude-code", "--remove")
    assert done.returncode == 0 and "changed after setup added it" in done.stdout
    assert json.loads(claude_json.read_text())["mcpServers"]["plansight"]["env"] != {}


# ---------------------------------------------------------------- 14: a failed write


def test_a_failed_write_leaves_nothing_behind_and_says_why(home: Path, project: Path) -> None:
    """The file can grow no more (RLIMIT_FSIZE, as a failing disk): the settings file is
    unchanged, no temporary file is left, and the message says the cause."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps({"padding": "x" * 3000}, indent=2) + "\n"
    settings.write_text(original)
    done = setup(home, project, "claude-code", limit=len(original) + 100)
    assert done.returncode == 2
    assert "File too large" in done.stderr and "Traceback" not in done.stderr
    assert settings.read_text() == original
    assert _leftovers(settings.parent) == [] and _leftovers(home) == []


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a private tmpfs")
def test_a_full_disk_is_named_as_such(home: Path, project: Path, tmp_path: Path) -> None:
    """A real full file system: a 64 KiB tmpfs mounted on the settings folder, in a mount
    namespace of the test's own."""
    folder = home / ".claude"
    folder.mkdir()
    script = f"""
set -e
mount -t tmpfs -o size=64k tmpfs {folder}
{sys.executable} -c "open('{folder}/settings.json','w').write('{{\\"model\\": \\"opus\\"}}\\n')"
head -c 57344 /dev/zero > {folder}/filler || true
HOME={home} PATH=/usr/bin:/bin {sys.executable} -m plansight setup claude-code 2> {tmp_path}/err || echo "exit $?" > {tmp_path}/rc
cat {folder}/settings.json > {tmp_path}/after
ls -a {folder} > {tmp_path}/listing
"""
    ran = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if ran.returncode != 0 and "mount" in ran.stderr:
        pytest.skip(f"no private tmpfs here: {ran.stderr.strip()}")
    assert (tmp_path / "rc").read_text().strip() == "exit 2"
    assert "No space left on device" in (tmp_path / "err").read_text()
    assert (tmp_path / "after").read_text() == '{"model": "opus"}\n'
    assert not [name for name in (tmp_path / "listing").read_text().split() if ".tmp" in name]
