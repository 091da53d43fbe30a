"""The editor plugins travel inside the wheel: `plansight setup nvim` points lazy.nvim at
the Lua files of the installed package, and a real Neovim loads them from there;
`plansight setup vscode` builds from the extension sources the package carries."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NVIM = Path(sys.executable).parent / "nvim"


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, unpacked as pip would install it."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = out.glob("plansight-*.whl")
    site = out / "site-packages"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _plansight(
    site: Path, *args: str, path: str = "/usr/bin:/bin", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        env={"PYTHONPATH": str(site), "PATH": path, "HOME": str(site)},
        cwd=cwd or site,
        capture_output=True,
        text=True,
        timeout=900,  # a guard against a hang: `npm ci` on a loaded machine takes minutes
        check=False,
    )


def test_the_wheel_carries_both_editor_plugins(installed_wheel: Path) -> None:
    editors = installed_wheel / "plansight" / "editors"
    assert (editors / "nvim" / "lua" / "plansight" / "init.lua").is_file()
    assert (editors / "nvim" / "plugin" / "plansight.lua").is_file()
    assert (editors / "nvim" / "doc" / "plansight.txt").is_file()
    assert (editors / "vscode" / "package.json").is_file()
    assert (editors / "vscode" / "src" / "extension.ts").is_file()
    assert not list(editors.rglob("node_modules")) and not list(editors.rglob("tests"))


def test_setup_nvim_gives_a_spec_a_real_neovim_loads(installed_wheel: Path, tmp_path: Path) -> None:
    done = _plansight(installed_wheel, "setup", "nvim")
    assert done.returncode == 0, done.stderr
    match = re.search(r'dir = "([^"]+)"', done.stdout)
    assert match, done.stdout
    plugin = Path(match.group(1))
    assert plugin == installed_wheel / "plansight" / "editors" / "nvim"
    assert 'cmd = "Plansight"' in done.stdout and '"serve"' in done.stdout

    check = tmp_path / "check.lua"
    check.write_text(
        f"vim.opt.rtp:append({str(plugin)!r})\n"
        'local plansight = require("plansight")\n'
        'local file = vim.api.nvim_get_runtime_file("lua/plansight/init.lua", false)[1]\n'
        f"if type(plansight.setup) ~= 'function' or not vim.startswith(file, {str(plugin)!r}) then\n"
        "  io.stderr:write('not loaded from the wheel: ' .. tostring(file) .. '\\n')\n"
        "  vim.cmd('cquit 1')\n"
        "end\n"
        "vim.cmd('qall!')\n"
    )
    state = tmp_path / "xdg"
    env = {
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(state),
        "XDG_DATA_HOME": str(state),
        "XDG_CONFIG_HOME": str(state),
        "PATH": "/usr/bin:/bin",
    }
    ran = subprocess.run(
        [str(NVIM), "--headless", "--clean", "-l", str(check)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr


def test_setup_vscode_without_node_prints_the_steps(installed_wheel: Path) -> None:
    done = _plansight(installed_wheel, "setup", "vscode", path="/nonexistent")
    assert done.returncode == 0, done.stderr
    assert "Node and npm are not on PATH" in done.stdout
    source = installed_wheel / "plansight" / "editors" / "vscode"
    assert f"cd {source}" in done.stdout
    assert "npm ci && npm run package" in done.stdout
    assert "code --install-extension out/plansight.vsix" in done.stdout


def test_setup_vscode_builds_the_extension_from_the_wheel(
    installed_wheel: Path, tmp_path: Path
) -> None:
    """npm from the registry, as a person's machine has it; no `code` on PATH here, so
    the .vsix is left in the current folder with the command that installs it."""
    done = _plansight(installed_wheel, "setup", "vscode", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    vsix = tmp_path / "plansight.vsix"
    assert f"code --install-extension {vsix}" in done.stdout
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
    assert {"extension/package.json", "extension/out/extension.js"} <= names
