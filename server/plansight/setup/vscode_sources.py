"""The VS Code extension's sources that building its .vsix needs (no tests, no
node_modules), and how to copy them into a folder of their own to build there.

One list for the three that need it: `plansight setup vscode` (building without a wheel's
.vsix), `hatch_build.py` (building the wheel's .vsix; it loads this file by path, before
the package is installed, so this module imports nothing but the standard library) and
pyproject.toml's wheel and sdist lists (which cannot import; `tests/setup/
test_vscode_sources.py` holds them to this one).
"""

from __future__ import annotations

import shutil
from pathlib import Path

VSCODE_SOURCES = (
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "README.md",
    "LICENSE",
    ".vscodeignore",
    "media",
    "src",
    "scripts/build.mjs",
    "scripts/agentLogos.mjs",
)


def copy_sources(source: Path, target: Path) -> None:
    """Copies the extension's sources from `source` into `target`, keeping their layout."""
    for name in VSCODE_SOURCES:
        origin = source / name
        if origin.is_dir():
            shutil.copytree(origin, target / name)
        elif origin.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target / name)


def newest_source(extension: Path) -> float:
    """The newest modification time among the sources: a .vsix older than it is stale."""
    newest = 0.0
    for name in VSCODE_SOURCES:
        path = extension / name
        files = path.rglob("*") if path.is_dir() else [path]
        for file in files:
            if file.is_file():
                newest = max(newest, file.stat().st_mtime)
    return newest
