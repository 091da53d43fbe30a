"""`plansight setup nvim` names the server by its absolute path (issue 33, item 21): run from
an activated venv it printed `cmd = {"plansight", "serve"}`, and a Neovim started without
that venv on its PATH said "not found ... pipx install plansight" though it was installed.
Here the spec it prints is loaded by a real Neovim whose PATH holds no plansight, and the
server it names answers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
PLANSIGHT = BIN / "plansight"
NVIM = BIN / "nvim"

CHECK = """
local spec = dofile(vim.env.SPEC)
vim.opt.rtp:append(spec.dir)
vim.fn.mkdir(vim.env.ROOT .. "/.git", "p")
vim.cmd.cd(vim.env.ROOT)
local cmd = vim.list_extend(vim.deepcopy(spec.opts.cmd), { "--db", vim.env.ROOT .. "/store.sqlite3" })
require("plansight").setup({ cmd = cmd, auto_open = false })
local client = require("plansight.client")
local conn = client.ensure(vim.env.ROOT)
local ok = vim.wait(60000, function()
  return conn.status ~= "starting"
end, 50)
io.stdout:write(conn.status .. " " .. tostring(conn.error) .. "\\n")
for _, c in ipairs(vim.lsp.get_clients({ name = "plansight" })) do
  c:stop(true)
end
vim.cmd(ok and conn.status == "ready" and "qall!" or "cquit 1")
"""


def test_setup_nvim_names_the_server_by_its_absolute_path(tmp_path: Path) -> None:
    # As a person runs it: the venv activated, so `plansight` on PATH is this very one.
    done = subprocess.run(
        ["plansight", "setup", "nvim"],
        env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    match = re.search(r"opts = \{ cmd = \{ (.*) \} \}", done.stdout)
    assert match, done.stdout
    assert match.group(1) == f'"{PLANSIGHT}", "serve"'

    # A Neovim started from a desktop launcher: no venv on its PATH.
    spec = tmp_path / "spec.lua"
    spec.write_text("return " + done.stdout.split("\n", 1)[1].rsplit("\n-- Without", 1)[0])
    check = tmp_path / "check.lua"
    check.write_text(CHECK)
    state = tmp_path / "xdg"
    ran = subprocess.run(
        [str(NVIM), "--headless", "--clean", "-l", str(check)],
        env={
            "HOME": str(tmp_path),
            "XDG_STATE_HOME": str(state),
            "XDG_DATA_HOME": str(state),
            "XDG_CONFIG_HOME": str(state),
            "XDG_RUNTIME_DIR": str(tmp_path),
            "PATH": "/usr/bin:/bin",
            "SPEC": str(spec),
            "ROOT": str(tmp_path / "project"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith("ready"), ran.stdout
