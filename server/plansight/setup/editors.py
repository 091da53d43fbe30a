"""`plansight setup nvim` and `plansight setup vscode`: the editor plugins this package
carries, put where the editor finds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from plansight.setup.bundled import bundled_editor
from plansight.setup.editor_command import forget_editor_command, record_editor_command
from plansight.setup.settings_file import SetupError
from plansight.setup.vscode_sources import copy_sources


def server_argv() -> list[str]:
    """The command that runs this very Plansight, by absolute path: Neovim starts the server
    with the PATH it was started with, which need not hold the venv or pipx folder that
    `plansight setup nvim` ran from (a bare `plansight` then reads "not found"). The path is
    not resolved through symlinks: pipx's `~/.local/bin/plansight` outlives an upgrade."""
    running = Path(sys.argv[0])
    if running.name in ("plansight", "plansight.exe") and running.is_file():
        return [str(running.absolute())]
    return [sys.executable, "-m", "plansight"]


def lazy_spec(plugin: Path, argv: list[str]) -> str:
    """A lazy.nvim spec that loads the plugin from where this package keeps it, and runs
    the server through `argv` (`server_argv`)."""
    command = ", ".join(_lua_string(arg) for arg in [*argv, "serve"])
    return (
        "{\n"
        f"  dir = {_lua_string(str(plugin))},\n"
        '  name = "plansight",\n'
        '  main = "plansight",\n'
        '  cmd = "Plansight",\n'
        f"  opts = {{ cmd = {{ {command} }} }},\n"
        "}"
    )


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def setup_nvim(remove: bool, say: Callable[[str], None]) -> int:
    plugin = bundled_editor("nvim")
    if plugin is None:
        raise SetupError("this install of Plansight carries no Neovim plugin")
    if remove:
        say("Nothing to remove: `plansight setup nvim` writes no file. Delete the spec from")
        say("your lazy.nvim configuration to stop loading the plugin.")
        return 0
    say("-- Add this spec to your lazy.nvim plugins (for example lua/plugins/plansight.lua):")
    say(lazy_spec(plugin, server_argv()))
    say("-- Without lazy.nvim: vim.opt.rtp:append(" + _lua_string(str(plugin)) + ")")
    return 0


# The VS Code-like editors whose command line installs a .vsix, as people name them.
VSCODE_EDITORS = ("code", "code-insiders", "codium", "cursor", "code-server")
EXTENSION_ID = "plansight.plansight"


def carried_vsix(source: Path) -> Path | None:
    """The built extension this install carries: the wheel's (hatch_build.py puts it
    there), or a clone's own `npm run package` output (an editable install)."""
    for vsix in (source / "plansight.vsix", source / "out" / "plansight.vsix"):
        if vsix.is_file():
            return vsix
    return None


def setup_vscode(dry_run: bool, remove: bool, say: Callable[[str], None]) -> int:
    """Install the extension into every VS Code-like editor on PATH (or take it out);
    SetupError when there is none, or when not one of them took it."""
    source = bundled_editor("vscode")
    if source is None:
        raise SetupError("this install of Plansight carries no VS Code extension")
    editors = [(name, found) for name in VSCODE_EDITORS if (found := shutil.which(name))]
    if remove:
        if not editors:
            raise SetupError(_no_editor("remove the extension from"))
        done = _each_editor(editors, ["--uninstall-extension", EXTENSION_ID], dry_run, say)
        if not dry_run:
            forget_editor_command()
        return done
    vsix = carried_vsix(source)
    if vsix is not None:
        if not editors:
            raise SetupError(_no_editor("install", vsix))
        done = _each_editor(editors, ["--install-extension", str(vsix), "--force"], dry_run, say)
        return done if dry_run else _recorded(done, say)
    # A wheel built without Node: build the .vsix with npm, in a folder that goes away.
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError(
            "this install carries no built VS Code extension and Node's npm is not on PATH: "
            "install Node 20+, or a Plansight wheel built with it (see README, Install)"
        )
    if not editors:
        raise SetupError(_no_editor("install the extension into"))
    if dry_run:
        say(f"(dry run) would build the extension with npm from {source}, then:")
        return _each_editor(editors, ["--install-extension", "plansight.vsix"], True, say)
    with tempfile.TemporaryDirectory(prefix="plansight-vscode-") as build:
        folder = Path(build) / "vscode"
        copy_sources(source, folder)
        for npm_args in (["ci", "--no-audit", "--no-fund"], ["run", "package"]):
            if _run([npm, *npm_args], folder, say) != 0:
                raise SetupError(f"`npm {' '.join(npm_args)}` failed; see above")
        built = folder / "out" / "plansight.vsix"
        done = _each_editor(editors, ["--install-extension", str(built), "--force"], False, say)
        return _recorded(done, say)


def _recorded(done: int, say: Callable[[str], None]) -> int:
    """The extension finds this plansight wherever the editor's PATH leads (issue 33, 15)."""
    command = record_editor_command()
    if command is not None:
        say(f"The extension runs {command} (recorded for editors whose PATH lacks it)")
    return done


def _no_editor(doing: str, vsix: Path | None = None) -> str:
    names = ", ".join(f"`{name}`" for name in VSCODE_EDITORS)
    by_hand = f"; or in the editor: Extensions > ... > Install from VSIX: {vsix}" if vsix else ""
    return f"no VS Code-like editor on PATH to {doing} (looked for {names}){by_hand}"


def _each_editor(
    editors: list[tuple[str, str]], args: list[str], dry_run: bool, say: Callable[[str], None]
) -> int:
    """Runs `EDITOR ARGS` for each editor; 0 when at least one did it."""
    if dry_run:
        for _, command in editors:
            say("(dry run) would run: " + " ".join([command, *args]))
        return 0
    done = [name for name, command in editors if _run([command, *args], None, say) == 0]
    failed = [name for name, _ in editors if name not in done]
    if not done:
        raise SetupError(f"no editor took the change ({', '.join(failed)} failed; see above)")
    say(f"done in {', '.join(done)}" + (f"; {', '.join(failed)} failed" if failed else ""))
    return 0


def _run(command: list[str], cwd: Path | None, say: Callable[[str], None]) -> int:
    say("$ " + " ".join(command))
    try:
        return subprocess.run(command, cwd=cwd, check=False).returncode
    except OSError as exc:
        raise SetupError(f"cannot run {command[0]}: {exc.__class__.__name__}") from None
