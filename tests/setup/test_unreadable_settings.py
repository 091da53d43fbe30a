"""Settings files setup and doctor cannot read (issue 29, items 12 and 13): a FIFO, a
socket, a folder or a device where an agent's file should be, and a file nested deeper
than a parser follows. Each is named with what it is and why; nothing waits, nothing is
written, no "internal error"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# A guard against the hang these tests are about, never a speed check.
GUARD_SECONDS = 60
DEEP = 5000  # deeper than Python's recursion limit lets a parser follow


def _run(home: Path, cwd: Path, *args: str, path: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        cwd=cwd,
        env={"HOME": str(home), "PATH": f"{path}/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        check=False,
    )


def _everything_under(folder: Path) -> dict[str, bytes | str]:
    """Each path under `folder` with its bytes (or its kind): what must not change."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        kind = path.lstat().st_mode
        if path.is_symlink():
            found[str(path)] = "link to " + os.readlink(path)
        elif path.is_file():
            found[str(path)] = path.read_bytes()
        else:
            found[str(path)] = oct(kind)
    return found


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    # A short folder: a socket's path is limited to about 100 bytes.
    with socket.socket(socket.AF_UNIX) as listening:
        path = tmp_path / "home" / ".gemini" / "settings.json"
        path.parent.mkdir(parents=True)
        listening.bind(str(path))
        yield path


def test_a_fifo_as_claudes_settings_is_refused_by_setup_and_doctor(
    home: Path, project: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    os.mkfifo(settings)
    before = _everything_under(home)
    refused = _run(home, project, "setup", "claude-code")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "settings.json: it is a named pipe (FIFO), not a regular file" in refused.stderr
    assert "internal error" not in refused.stderr and "Traceback" not in refused.stderr
    assert _everything_under(home) == before  # no backup, no ~/.claude.json, no record

    found = _run(home, project, "doctor", "claude-code")
    assert found.returncode == 1, found.stdout
    assert "✗ cannot read" in found.stdout and "named pipe (FIFO)" in found.stdout
    assert f"fix: fix {settings} by hand" in found.stdout


def test_a_socket_as_geminis_settings_is_named_as_one(
    home: Path, project: Path, unix_socket: Path
) -> None:
    refused = _run(home, project, "setup", "gemini")
    assert refused.returncode == 2
    assert "it is a socket, not a regular file" in refused.stderr
    found = _run(home, project, "doctor", "gemini")
    assert found.returncode == 1 and "it is a socket" in found.stdout


def test_a_folder_as_copilots_mcp_config_is_refused_before_anything_is_written(
    home: Path, project: Path
) -> None:
    (home / ".copilot" / "mcp-config.json").mkdir(parents=True)
    before = _everything_under(home)
    refused = _run(home, project, "setup", "copilot")
    assert refused.returncode == 2
    assert "mcp-config.json: it is a folder, not a regular file" in refused.stderr
    assert _everything_under(home) == before  # the hooks file was not written either


def test_a_device_as_claudes_mcp_file_is_named_by_doctor(home: Path, project: Path) -> None:
    """Read only: a link to /dev/null (which reads as empty) is no file of settings."""
    (home / ".claude.json").symlink_to("/dev/null")
    found = _run(home, project, "doctor", "claude-code")
    assert "✗ cannot read" in found.stdout and "it is a device" in found.stdout


def test_fifos_as_codexs_config_and_setups_own_record_are_refused(
    home: Path, project: Path
) -> None:
    (home / ".codex").mkdir()
    os.mkfifo(home / ".codex" / "config.toml")
    refused = _run(home, project, "setup", "codex")
    assert refused.returncode == 2 and "config.toml: it is a named pipe" in refused.stderr
    assert not (home / ".codex" / "hooks.json").exists()
    found = _run(home, project, "doctor", "codex")
    assert "config.toml: it is a named pipe" in found.stdout

    record = home / ".local" / "state" / "plansight" / "setup.json"
    record.parent.mkdir(parents=True)
    os.mkfifo(record)
    refused = _run(home, project, "setup", "gemini")
    assert refused.returncode == 2 and "setup.json: it is a named pipe" in refused.stderr
    assert not (home / ".gemini" / "settings.json").exists()


def test_a_fifo_in_the_neovim_configuration_does_not_hang_doctor(
    home: Path, project: Path, tmp_path: Path
) -> None:
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "nvim").write_text("#!/bin/sh\n")
    (bin_folder / "nvim").chmod(0o755)
    plugins = home / ".config" / "nvim" / "lua" / "plugins"
    plugins.mkdir(parents=True)
    os.mkfifo(plugins / "a.lua")
    (plugins / "plansight.lua").write_text('{ name = "plansight" }')
    found = _run(home, project, "doctor", path=f"{bin_folder}:")
    assert "Neovim\n  ✓ plugin spec found in" in found.stdout


def _deep_json() -> str:
    return '{"theme": "dark", "nested": ' + "[" * DEEP + "]" * DEEP + "}\n"


@pytest.mark.parametrize(
    ("agent", "relative"),
    [
        ("gemini", ".gemini/settings.json"),  # JSON with comments: Plansight's own parser
        ("claude-code", ".claude/settings.json"),  # plain JSON: the standard decoder
        ("claude-code", ".claude.json"),
    ],
)
def test_deeply_nested_json_settings_cannot_be_read_and_stay_byte_for_byte(
    home: Path, project: Path, agent: str, relative: str
) -> None:
    settings = home / relative
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(_deep_json())
    before = _everything_under(home)
    refused = _run(home, project, "setup", agent)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"{settings} cannot be read: it is nested too deeply" in refused.stderr
    assert "internal error" not in refused.stderr
    assert _everything_under(home) == before

    found = _run(home, project, "doctor", agent)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "cannot be read: it is nested too deeply" in found.stdout
    assert "internal error" not in found.stderr


def test_a_deeply_nested_codex_config_cannot_be_read_and_stays_byte_for_byte(
    home: Path, project: Path
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\nnested = ' + "[" * DEEP + "]" * DEEP + "\n")
    before = _everything_under(home)
    refused = _run(home, project, "setup", "codex")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "config.toml cannot be read: it is nested too deeply" in refused.stderr
    assert _everything_under(home) == before

    found = _run(home, project, "doctor", "codex")
    assert found.returncode == 1 and "config.toml cannot be read" in found.stdout
    assert "internal error" not in found.stderr


def test_a_deeply_nested_record_stops_setup_before_it_writes(home: Path, project: Path) -> None:
    record = home / ".local" / "state" / "plansight" / "setup.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"files": {}, "x": ' + "[" * DEEP + "]" * DEEP + "}")
    before = _everything_under(home)
    refused = _run(home, project, "setup", "gemini")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "setup.json cannot be read: it is nested too deeply" in refused.stderr
    assert _everything_under(home) == before
