"""The one switch Plansight needs in Codex's `config.toml`: `[tools.update_plan]
enabled = true`. Codex 0.169 offers its plan tool, `update_plan`, only when it is on (it
answers `unsupported call: update_plan` otherwise), and without it there is no plan for
the hooks to see.

TOML is edited as text, so every other line, comment and layout stays as it was: the
table is appended with a marker comment, and `--remove` takes out exactly that block.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from plansight.setup.settings_file import SetupError

MARKER = "# Added by `plansight setup codex`: Codex offers update_plan only when this is on."
BLOCK = f"{MARKER}\n[tools.update_plan]\nenabled = true\n"
_TABLE = re.compile(r"^\s*\[\s*tools\s*\.\s*update_plan\s*\]", re.MULTILINE)
_OTHER_FORMS = re.compile(r"^\s*(tools\s*\.\s*)?update_plan\s*[.=]", re.MULTILINE)


def update_plan_enabled(text: str) -> bool | None:
    """What `text` says of `tools.update_plan.enabled` (None: nothing)."""
    try:
        # By name: mypy checks this code as Python 3.10, which has no tomllib.
        tomllib: Any = importlib.import_module("tomllib")
    except ImportError:  # Python 3.10: read the plain table form only
        match = re.search(
            r"\[tools\.update_plan\][^\[]*?^\s*enabled\s*=\s*(true|false)", text, re.M | re.S
        )
        return None if match is None else match.group(1) == "true"
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"config.toml is not valid TOML ({exc}); nothing changed") from None
    tools = config.get("tools") if isinstance(config, dict) else None
    plan = tools.get("update_plan") if isinstance(tools, dict) else None
    if isinstance(plan, dict) and isinstance(plan.get("enabled"), bool):
        return bool(plan["enabled"])
    return None


def with_update_plan(text: str) -> str:
    """`text` with the plan tool on: unchanged when it is on already."""
    state = update_plan_enabled(text)
    if state is True:
        return text
    if state is False or _TABLE.search(text) or _OTHER_FORMS.search(text):
        raise SetupError(
            "config.toml sets tools.update_plan itself; set `enabled = true` in its "
            "[tools.update_plan] table by hand (Plansight sees Codex's plan only then)"
        )
    separator = (
        "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    )
    return text + separator + BLOCK


def without_update_plan(text: str) -> str:
    """`text` without the block `with_update_plan` added (and nothing else)."""
    if BLOCK not in text:
        return text
    text = text.replace("\n" + BLOCK, "", 1) if "\n" + BLOCK in text else text.replace(BLOCK, "", 1)
    return text


def config_path(hooks_file: Path) -> Path:
    """`config.toml` next to the `hooks.json` setup writes."""
    return hooks_file.with_name("config.toml")
