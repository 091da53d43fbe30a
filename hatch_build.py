"""The wheel carries the VS Code extension built (`plansight/editors/vscode/plansight.vsix`),
so that `plansight setup vscode` installs it on a machine with no Node.

Where the .vsix comes from, first that applies:
1. `PLANSIGHT_VSIX=/path/plansight.vsix`: a .vsix CI built before `pip wheel` / `pip install`.
2. `editors/vscode/out/plansight.vsix` when it is newer than every source of the extension
   (`npm run package` made it, e.g. `.ci/test`'s build stage or a developer's own).
3. Node and npm on PATH: `npm run package` in `editors/vscode` when its `node_modules` is
   there (seconds), else `npm ci` and `npm run package` in a copy of its sources in a
   temporary folder (minutes; the clone is left as it was).
4. None of those: the wheel is built without it, and says so; `plansight setup vscode`
   then builds it with npm or explains how. `PLANSIGHT_REQUIRE_VSIX=1` (CI) makes that a
   failure instead.

An editable install (`pip install -e .`) builds nothing: it uses the clone's own
`editors/vscode/out/plansight.vsix`. Build outputs are never committed (`.gitignore`).
"""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

IN_PACKAGE = "plansight/editors/vscode"
IN_WHEEL = f"{IN_PACKAGE}/plansight.vsix"
# What building the .vsix reads, and how to copy it: one module the package's own
# `plansight setup vscode` uses too, loaded by path (the package is not installed yet).
_SOURCES = runpy.run_path(str(Path(__file__).parent / "server/plansight/setup/vscode_sources.py"))
VSCODE_SOURCES = _SOURCES["VSCODE_SOURCES"]
copy_sources = _SOURCES["copy_sources"]
newest_source = _SOURCES["newest_source"]


class BuildFailed(Exception):
    """npm could not build the .vsix (offline, an old Node...)."""


class VsixBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._scratch: str | None = None
        extension = Path(self.root) / "editors" / "vscode"
        # The extension's sources too, so that a wheel without the .vsix can still build it.
        for name in VSCODE_SOURCES:
            if (extension / name).exists():
                build_data["force_include"][str(extension / name)] = f"{IN_PACKAGE}/{name}"
        try:
            vsix = self._vsix(extension)
            why = "no Node and npm on PATH, and no PLANSIGHT_VSIX"
        except BuildFailed as exc:
            vsix, why = None, str(exc)
        if vsix is None:
            message = (
                f"plansight: the wheel carries no built VS Code extension ({why}); "
                "`plansight setup vscode` will need npm"
            )
            if os.environ.get("PLANSIGHT_REQUIRE_VSIX") == "1":
                raise RuntimeError(message)
            print(message, file=sys.stderr)
            return
        build_data["force_include"][str(vsix)] = IN_WHEEL

    def finalize(self, version: str, build_data: dict[str, Any], artifact: str) -> None:
        if getattr(self, "_scratch", None):
            shutil.rmtree(str(self._scratch), ignore_errors=True)

    def _vsix(self, extension: Path) -> Path | None:
        given = os.environ.get("PLANSIGHT_VSIX")
        if given:
            if not Path(given).is_file():
                raise RuntimeError(f"PLANSIGHT_VSIX={given}: no such file")
            return Path(given)
        built = extension / "out" / "plansight.vsix"
        if built.is_file() and built.stat().st_mtime >= newest_source(extension):
            return built
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None or not (extension / "src").is_dir():
            return None
        if (extension / "node_modules").is_dir():
            _npm(npm, ["run", "package"], extension)
            return built
        self._scratch = tempfile.mkdtemp(prefix="plansight-vsix-")
        copy = Path(self._scratch) / "vscode"
        copy_sources(extension, copy)
        _npm(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], copy)
        _npm(npm, ["run", "package"], copy)
        return copy / "out" / "plansight.vsix"


def _npm(npm: str, args: list[str], folder: Path) -> None:
    print(f"plansight: building the VS Code extension: npm {' '.join(args)}", file=sys.stderr)
    # Its output goes to stderr: a build frontend may read the hook's stdout.
    try:
        done = subprocess.run([npm, *args], cwd=folder, stdout=2, check=False)
    except OSError as exc:
        raise BuildFailed(f"cannot run npm: {exc}") from None
    if done.returncode != 0:
        raise BuildFailed(f"`npm {' '.join(args)}` failed (exit {done.returncode})")
