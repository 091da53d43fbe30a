"""Which `plansight` ran `plansight setup vscode`: `$XDG_STATE_HOME/plansight/vscode.json`
(`{"command": "/home/me/project/.venv/bin/plansight"}`). The VS Code extension looks there
when `plansight` is not on its PATH: code-server's extension host has the login shell's
PATH, not an activated virtualenv's (issue 33, item 15)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from plansight.paths import state_folder
from plansight.setup.settings_file import write_atomically


def editor_command_path() -> Path:
    return state_folder() / "vscode.json"


def running_plansight() -> Path | None:
    """The absolute path of the `plansight` executable running now; None for
    `python -m plansight`, which has no such file."""
    running = Path(sys.argv[0])
    if running.name not in ("plansight", "plansight.exe") or not running.is_file():
        return None
    return running.resolve()


def record_editor_command() -> Path | None:
    """Writes the record; the path recorded, or None when there is none to record."""
    command = running_plansight()
    if command is None:
        return None
    path = editor_command_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps({"command": str(command)}, indent=2) + "\n")
    return command


def forget_editor_command() -> None:
    editor_command_path().unlink(missing_ok=True)
