"""The editor plugins travel inside the wheel: `plansight setup nvim` points lazy.nvim at
the Lua files of the installed package, and a real Neovim loads them from there;
`plansight setup vscode` installs the built .vsix the wheel carries (hatch_build.py) into
every VS Code-like editor on PATH, with no Node: here a real code-server, started as its
standalone release starts, by its own Node."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from plansight.setup.codex_config import tomllib
from plansight.setup.vscode_sources import VSCODE_SOURCES

REPO = Path(__file__).resolve().parents[2]
NVIM = Path(sys.executable).parent / "nvim"
# The logos the Plan view draws for the agents simple-icons has a mark for
# (editors/vscode/src/agentLogos.json), for a light and a dark theme.
AGENT_LOGOS = {
    f"extension/out/media/agents/{agent}-{theme}.svg"
    for agent in ("claude-code", "gemini", "opencode", "copilot")
    for theme in ("light", "dark")
}
CODE_SERVER = REPO / "editors/vscode/.code-server/node_modules/code-server/out/node/entry.js"


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
    site: Path,
    *args: str,
    path: str = "/usr/bin:/bin",
    cwd: Path | None = None,
    home: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        env={"PYTHONPATH": str(site), "PATH": path, "HOME": str(home or site)},
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
    for name in VSCODE_SOURCES:  # the sources a wheel without the .vsix builds it from
        assert (editors / "vscode" / name).exists(), name
    assert (editors / "vscode" / "src" / "extension.ts").is_file()
    assert not list(editors.rglob("node_modules")) and not list(editors.rglob("tests"))


def test_the_wheel_carries_the_opencode_plugin(installed_wheel: Path) -> None:
    """`plansight setup opencode` writes its plugin from the package's own JavaScript."""
    assert (installed_wheel / "plansight" / "setup" / "opencode_plugin.js").is_file()
    done = _plansight(installed_wheel, "setup", "opencode", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert '"hook", "opencode"' in done.stdout


def test_the_sdist_carries_every_source_the_vsix_is_built_from() -> None:
    # pyproject.toml cannot import the list: it is held to it here.
    with (REPO / "pyproject.toml").open("rb") as file:
        included = set(tomllib.load(file)["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    assert {f"editors/vscode/{name}" for name in VSCODE_SOURCES} <= included
    assert "hatch_build.py" in included


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


def _vsix_names(vsix: Path) -> set[str]:
    with zipfile.ZipFile(vsix) as archive:
        return set(archive.namelist())


def test_the_wheel_carries_the_built_vscode_extension(installed_wheel: Path) -> None:
    vsix = installed_wheel / "plansight" / "editors" / "vscode" / "plansight.vsix"
    assert {"extension/package.json", "extension/out/extension.js"} <= _vsix_names(vsix)
    # The agents' logos the build writes from simple-icons (never committed) go in too.
    assert _vsix_names(vsix) >= AGENT_LOGOS


@pytest.fixture(scope="module")
def code_server_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding only `code-server`, laid out as its standalone release is: a shell
    script in bin/ that starts the Node in lib/ (`lib/node`); no `node` on PATH. The
    code-server is the real one the VS Code end-to-end test uses (installed from npm by
    editors/vscode/scripts/install-code-server.sh; .ci/test installs it first)."""
    node = shutil.which("node")
    if not CODE_SERVER.is_file() or node is None:
        if os.environ.get("PLANSIGHT_REQUIRE_CODE_SERVER") == "1":
            pytest.fail(f"no code-server at {CODE_SERVER} or no Node to start it")
        pytest.skip("code-server is not installed (editors/vscode/scripts/install-code-server.sh)")
    release = tmp_path_factory.mktemp("code-server-release")
    (release / "bin").mkdir()
    (release / "lib").mkdir()
    (release / "lib" / "node").symlink_to(Path(node).resolve())
    launcher = release / "bin" / "code-server"
    launcher.write_text(
        "#!/bin/sh\n"
        "# As code-server's standalone release starts: with its own Node, in lib/.\n"
        'root="${0%/bin/*}"\n'
        f'exec "$root/lib/node" {shlex.quote(str(CODE_SERVER))} "$@"\n'
    )
    launcher.chmod(0o755)
    return release / "bin"


def _installed(code_server_bin: Path, home: Path) -> list[str]:
    """The extensions code-server lists for this home (an uninstalled one is marked
    obsolete before its folder goes: only its list says)."""
    listed = subprocess.run(
        [str(code_server_bin / "code-server"), "--list-extensions", "--show-versions"],
        env={"HOME": str(home), "PATH": str(code_server_bin)},
        capture_output=True,
        text=True,
        timeout=300,  # a guard against a hang
        check=True,
    )
    return [line for line in listed.stdout.split() if line.startswith("plansight.plansight@")]


def test_setup_vscode_installs_the_carried_extension_with_no_node(
    installed_wheel: Path, code_server_bin: Path, tmp_path: Path
) -> None:
    path = str(code_server_bin)
    assert shutil.which("node", path=path) is None and shutil.which("npm", path=path) is None
    home, here = tmp_path / "home", tmp_path / "here"
    home.mkdir()
    here.mkdir()
    done = _plansight(installed_wheel, "setup", "vscode", path=path, cwd=here, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--install-extension" in done.stdout and "done in code-server" in done.stdout
    assert _installed(code_server_bin, home), done.stdout + done.stderr
    assert list(here.iterdir()) == []  # nothing left behind in the current folder

    removed = _plansight(
        installed_wheel, "setup", "vscode", "--remove", path=path, cwd=here, home=home
    )
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not _installed(code_server_bin, home)


def test_setup_vscode_with_no_editor_installs_nothing_and_says_so(
    installed_wheel: Path, tmp_path: Path
) -> None:
    done = _plansight(installed_wheel, "setup", "vscode", path="/nonexistent", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    line = done.stderr.strip()
    assert line.startswith("plansight: no VS Code-like editor on PATH to install")
    assert "`code`, `code-insiders`, `codium`, `cursor`, `code-server`" in line
    assert "Install from VSIX: " in line and line.endswith("plansight.vsix")
    assert list(tmp_path.iterdir()) == []


def test_setup_vscode_builds_with_npm_when_the_wheel_carries_no_vsix(
    installed_wheel: Path, code_server_bin: Path, tmp_path: Path
) -> None:
    """A wheel built where there was no Node: npm (from the registry, as a person's
    machine has it) builds the .vsix in a folder that goes away, and it is installed."""
    site = tmp_path / "site"
    shutil.copytree(installed_wheel, site, symlinks=True)
    (site / "plansight" / "editors" / "vscode" / "plansight.vsix").unlink()
    home, here = tmp_path / "home", tmp_path / "here"
    home.mkdir()
    here.mkdir()
    path = f"{code_server_bin}:/usr/bin:/bin"
    done = _plansight(site, "setup", "vscode", path=path, cwd=here, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "npm ci" in done.stdout and "npm run package" in done.stdout  # built here
    assert _installed(code_server_bin, home), done.stdout + done.stderr
    assert list(here.iterdir()) == []
