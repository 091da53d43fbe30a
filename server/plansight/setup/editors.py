"""`plansight setup nvim` and `plansight setup vscode`: the editor plugins this package
carries, put where the editor finds them."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from plansight.setup.bundled import bundled_editor
from plansight.setup.settings_file import SetupError

# The files of the extension's sources that building the .vsix needs (no tests, no
# node_modules): what the wheel carries too.
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
)


def lazy_spec(plugin: Path, command: str) -> str:
    """A lazy.nvim spec that loads the plugin from where this package keeps it."""
    return (
        "{\n"
        f"  dir = {_lua_string(str(plugin))},\n"
        '  name = "plansight",\n'
        '  main = "plansight",\n'
        '  cmd = "Plansight",\n'
        f'  opts = {{ cmd = {{ {_lua_string(command)}, "serve" }} }},\n'
        "}"
    )


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def setup_nvim(command: str, remove: bool, say: Callable[[str], None]) -> int:
    plugin = bundled_editor("nvim")
    if plugin is None:
        raise SetupError("this install of Plansight carries no Neovim plugin")
    if remove:
        say("Nothing to remove: `plansight setup nvim` writes no file. Delete the spec from")
        say("your lazy.nvim configuration to stop loading the plugin.")
        return 0
    say("-- Add this spec to your lazy.nvim plugins (for example lua/plugins/plansight.lua):")
    say(lazy_spec(plugin, command))
    say("-- Without lazy.nvim: vim.opt.rtp:append(" + _lua_string(str(plugin)) + ")")
    return 0


def setup_vscode(dry_run: bool, remove: bool, say: Callable[[str], None]) -> int:
    source = bundled_editor("vscode")
    if source is None:
        raise SetupError("this install of Plansight carries no VS Code extension")
    code = shutil.which("code")
    if remove:
        if dry_run or code is None:
            say("To remove the extension: code --uninstall-extension plansight.plansight")
            return 0
        return _run([code, "--uninstall-extension", "plansight.plansight"], None, say)
    npm = shutil.which("npm")
    steps = [
        f"cd {source}",
        "npm ci && npm run package        # builds out/plansight.vsix (needs Node 20+)",
        "code --install-extension out/plansight.vsix",
    ]
    if dry_run or npm is None:
        if npm is None:
            say("Node and npm are not on PATH; to build and install the extension:")
        else:
            say("(dry run) would build and install the extension as:")
        for step in steps:
            say("  " + step)
        return 0
    with tempfile.TemporaryDirectory(prefix="plansight-vscode-") as build:
        folder = Path(build) / "vscode"
        _copy_sources(source, folder)
        for npm_args in (["ci", "--no-audit", "--no-fund"], ["run", "package"]):
            if _run([npm, *npm_args], folder, say) != 0:
                raise SetupError(f"`npm {' '.join(npm_args)}` failed in {folder}; see above")
        vsix = folder / "out" / "plansight.vsix"
        kept = Path.cwd() / "plansight.vsix"
        shutil.copy2(vsix, kept)
        say(f"built {kept}")
    if code is None:
        say("`code` is not on PATH; install it from VS Code: Extensions > ... > Install from VSIX,")
        say(f"or run: code --install-extension {kept}")
        return 0
    return _run([code, "--install-extension", str(kept)], None, say)


def _copy_sources(source: Path, target: Path) -> None:
    for name in VSCODE_SOURCES:
        origin = source / name
        if origin.is_dir():
            shutil.copytree(origin, target / name)
        elif origin.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target / name)


def _run(command: list[str], cwd: Path | None, say: Callable[[str], None]) -> int:
    say("$ " + " ".join(command))
    try:
        return subprocess.run(command, cwd=cwd, check=False).returncode
    except OSError as exc:
        raise SetupError(f"cannot run {command[0]}: {exc.__class__.__name__}") from None
