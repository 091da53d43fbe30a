"""The editor plugins the Python package carries: `plansight/editors/` inside an installed
wheel (see `[tool.hatch.build.targets.wheel.force-include]`), or the repository's own
`editors/` folder when Plansight runs from a clone (an editable install)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def bundled_editor(name: str) -> Path | None:
    """The folder of the `nvim` or `vscode` plugin, or None when this install has none."""
    marker = {"nvim": "lua/plansight/init.lua", "vscode": "package.json"}[name]
    for folder in (_PACKAGE / "editors" / name, _PACKAGE.parent.parent / "editors" / name):
        if (folder / marker).is_file():
            return folder
    return None
