"""`plansight setup opencode`: OpenCode's config gains exactly Plansight's MCP server and
its plugin folder Plansight's plugin, once; `--remove` takes exactly those out again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks" / "opencode"
PERSONS = """\
{
  // the person's own comment
  "theme": "opencode",
  "mcp": {"github": {"type": "remote", "url": "https://example.invalid/mcp"}}
}
"""


def run(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        cwd=cwd,
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _config(home: Path) -> Path:
    return home / ".config" / "opencode" / "opencode.jsonc"


def _plugin(home: Path) -> Path:
    return home / ".config" / "opencode" / "plugin" / "plansight.js"


def test_setup_adds_the_server_and_plugin_once_and_remove_restores(
    home: Path, project: Path
) -> None:
    config = _config(home)
    config.parent.mkdir(parents=True)
    config.write_text(PERSONS)
    first = run(home, project, "setup", "opencode")
    assert first.returncode == 0, first.stderr
    text = config.read_text()
    assert "// the person's own comment" in text  # changed in place, comments kept
    assert '"type": "local"' in text and '"mcp"' in text and "github" in text
    plugin = _plugin(home).read_text()
    assert '"tool.execute.after"' in plugin and '"hook", "opencode"' in plugin

    again = run(home, project, "setup", "opencode")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("already as it should be") == 2
    assert config.read_text() == text

    removed = run(home, project, "setup", "opencode", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert config.read_text() == PERSONS
    assert not _plugin(home).exists()


def test_remove_keeps_what_the_person_changed(home: Path, project: Path) -> None:
    assert run(home, project, "setup", "opencode").returncode == 0
    config = home / ".config" / "opencode" / "opencode.json"
    settings = json.loads(config.read_text())
    settings["mcp"]["plansight"]["environment"] = {"PLANSIGHT_DB": "/elsewhere.db"}
    config.write_text(json.dumps(settings))
    _plugin(home).write_text(_plugin(home).read_text() + "// mine\n")

    removed = run(home, project, "setup", "opencode", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(config.read_text()) == settings
    assert _plugin(home).read_text().endswith("// mine\n")
    assert "Kept" in removed.stdout

    # And setup does not take over the person's own entry either.
    again = run(home, project, "setup", "opencode")
    assert again.returncode == 0, again.stderr
    assert json.loads(config.read_text())["mcp"]["plansight"]["environment"]


def test_a_config_opencode_cannot_read_stops_setup_before_anything_is_written(
    home: Path, project: Path
) -> None:
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"mcp": [')
    failed = run(home, project, "setup", "opencode")
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr
    assert config.read_text() == '{"mcp": ['
    assert not _plugin(home).exists()


def test_project_scope_writes_the_projects_files(home: Path, project: Path) -> None:
    done = run(home, project, "setup", "opencode", "--scope", "project")
    assert done.returncode == 0, done.stderr
    assert json.loads((project / "opencode.json").read_text())["mcp"]["plansight"]["type"] == (
        "local"
    )
    assert (project / ".opencode" / "plugin" / "plansight.js").is_file()


def test_the_plugins_payload_ingests_as_opencode_todos(home: Path, project: Path) -> None:
    """What the plugin sends (the recorded todowrite call's `args`) is a whole plan."""
    call = json.loads((FIXTURES / "tool.execute.after.todowrite.json").read_text())
    payload = json.dumps(call["input"]["args"])
    db = project / "plan.db"
    ingest = "ingest", "--db", str(db), "--format", "opencode-todos", "--session", "opencode:1"
    done = run(home, project, *ingest, payload)
    assert done.returncode == 0, done.stderr
    shown = run(home, project, "export", "--db", str(db), "--format", "json")
    assert "Reproduce the login bug" in shown.stdout and "Fix the session check" in shown.stdout


def test_doctor_says_what_opencode_lacks_and_then_that_it_works(home: Path, project: Path) -> None:
    before = run(home, project, "doctor", "opencode")
    assert before.returncode == 0  # never set up: worth knowing, not broken
    assert "- no plan plugin" in before.stdout
    assert "fix: plansight setup opencode" in before.stdout
    assert run(home, project, "setup", "opencode").returncode == 0
    after = run(home, project, "doctor", "opencode")
    assert after.returncode == 0, after.stdout
    assert "✓ MCP server plansight in" in after.stdout and "✓ plan plugin" in after.stdout


def test_a_jsonc_config_with_trailing_commas_is_changed_and_keeps_them(
    home: Path, project: Path
) -> None:
    """OpenCode reads its config with trailing commas allowed (jsonc-parser's
    `allowTrailingComma: true` in 1.18.33): setup accepts them, keeps them, and
    `--remove` gives the person's bytes back."""
    config = _config(home)
    config.parent.mkdir(parents=True)
    persons = '{\n  // mine\n  "theme": "opencode",\n  "autoupdate": false,\n}\n'
    config.write_text(persons)
    done = run(home, project, "setup", "opencode")
    assert done.returncode == 0, done.stderr
    text = config.read_text()
    assert '"autoupdate": false,\n' in text and '"mcp": {' in text
    assert text.rstrip().endswith(",\n}") and "// mine" in text
    removed = run(home, project, "setup", "opencode", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert config.read_text() == persons


def test_doctor_says_a_plugin_of_an_earlier_plansight_tells_the_model_nothing(
    home: Path, project: Path
) -> None:
    """The plugin earlier versions wrote sent `todo.updated` to `plansight ingest` only:
    the plan arrived, but OpenCode's model was never told; setup again replaces it."""
    assert run(home, project, "setup", "opencode").returncode == 0
    earlier = (
        'const PLANSIGHT = ["plansight"];\n'
        "// on each todo.updated: ingest --format opencode-todos --session opencode:<id>\n"
    )
    _plugin(home).write_text(earlier)
    # As the earlier setup left it: its record holds the text it wrote.
    record_path = home / ".local" / "state" / "plansight" / "setup.json"
    record = json.loads(record_path.read_text())
    [entry] = [v for k, v in record["files"].items() if k.endswith("plansight.js")]
    entry["blocks"] = [earlier]
    record_path.write_text(json.dumps(record))
    said = run(home, project, "doctor", "opencode").stdout
    assert "is an earlier Plansight's" in said and "fix: plansight setup opencode" in said

    again = run(home, project, "setup", "opencode")
    assert again.returncode == 0, again.stderr
    assert '"hook", "opencode"' in _plugin(home).read_text()
    assert "✓ plan plugin" in run(home, project, "doctor", "opencode").stdout
