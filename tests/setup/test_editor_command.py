"""`plansight setup vscode` records which plansight ran it, so an editor whose PATH lacks
it (code-server's extension host has the login shell's PATH, not an activated venv's)
still finds it (issue 33, item 15); `--remove` takes the record out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from plansight.setup import editors
from plansight.setup.editor_command import editor_command_path

PLANSIGHT = Path(sys.executable).parent / "plansight"


@pytest.fixture
def editor_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `code` command that installs nothing, alone on PATH; a carried .vsix."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    code = bin_dir / "code"
    code.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    code.chmod(0o755)
    vsix = tmp_path / "plansight.vsix"
    vsix.write_bytes(b"PK")
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(editors, "carried_vsix", lambda source: vsix)
    return calls


def test_setup_vscode_records_the_plansight_that_ran_it(
    editor_on_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert PLANSIGHT.is_file()
    monkeypatch.setattr(sys, "argv", [str(PLANSIGHT), "setup", "vscode"])
    said: list[str] = []
    assert editors.setup_vscode(False, False, said.append) == 0
    assert "--install-extension" in editor_on_path.read_text()
    record = json.loads(editor_command_path().read_text())
    assert record == {"command": str(PLANSIGHT.resolve())}
    assert any(str(PLANSIGHT.resolve()) in line for line in said)

    assert editors.setup_vscode(False, True, said.append) == 0
    assert not editor_command_path().exists()


def test_a_dry_run_and_python_m_record_nothing(
    editor_on_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(PLANSIGHT), "setup", "vscode"])
    assert editors.setup_vscode(True, False, lambda line: None) == 0
    assert not editor_command_path().exists()
    monkeypatch.setattr(sys, "argv", ["-m", "setup", "vscode"])  # python -m plansight
    assert editors.setup_vscode(False, False, lambda line: None) == 0
    assert not editor_command_path().exists()
