"""What `plansight setup` added to each of a person's files, so that `--remove` takes out
exactly that and nothing the person had or changed: `$XDG_STATE_HOME/plansight/setup.json`
(`~/.local/state/plansight/setup.json`), one entry per file (by its real path).

A file setup changed before it kept records (Plansight 0.1 before this file existed) has
no entry: `--remove` then takes out only entries exactly in setup's own form.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plansight.hook.plan_tool_note import setup_record_path
from plansight.setup.settings_file import SetupError, read_text, too_deep, write_atomically

VERSION = 1


@dataclass(slots=True)
class FileRecord:
    """What setup added to one file."""

    kept: bool = False  # False: no record of this file (never set up, or set up before records)
    hook_events: list[str] = field(default_factory=list)  # events given Plansight's hook
    env: dict[str, str] = field(default_factory=dict)  # variables set, with their value
    mcp: dict[str, Any] = field(default_factory=dict)  # MCP servers added, as written
    blocks: list[str] = field(default_factory=list)  # TOML blocks appended, as written
    created: list[str] = field(default_factory=list)  # top-level objects setup created

    def as_json(self) -> dict[str, Any]:
        return {
            "hook_events": sorted(set(self.hook_events)),
            "env": self.env,
            "mcp": self.mcp,
            "blocks": self.blocks,
            "created": sorted(set(self.created)),
        }

    @property
    def empty(self) -> bool:
        return not (self.hook_events or self.env or self.mcp or self.blocks or self.created)


def record_path() -> Path:
    return setup_record_path()  # the hook reads it too, for `plan_tool_note`


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _load() -> dict[str, Any]:
    where = record_path()
    text = read_text(where)
    if not text.strip():
        return {"version": VERSION, "files": {}}
    try:
        data = json.loads(text)
    except RecursionError:
        raise too_deep(where) from None
    except ValueError:
        raise SetupError(f"{where} is not valid JSON; move it aside, nothing changed") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        raise SetupError(f"{where} is not a record of Plansight's setup; nothing changed")
    return data


def file_record(path: Path) -> FileRecord:
    entry = _load()["files"].get(_key(path))
    if not isinstance(entry, dict):
        return FileRecord()

    def listed(name: str) -> list[str]:
        value = entry.get(name)
        return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []

    def mapping(name: str) -> dict[str, Any]:
        value = entry.get(name)
        return dict(value) if isinstance(value, dict) else {}

    return FileRecord(
        kept=True,
        hook_events=listed("hook_events"),
        env={k: v for k, v in mapping("env").items() if isinstance(v, str)},
        mcp=mapping("mcp"),
        blocks=listed("blocks"),
        created=listed("created"),
    )


def recorded(path: Path) -> bool:
    """Setup's record holds what it added to `path`: it was set up, whatever is left."""
    try:
        return file_record(path).kept
    except SetupError:
        return False


def save_records(records: dict[Path, FileRecord]) -> None:
    """Store the records of these files (a file whose record is empty is forgotten)."""
    data = _load()
    files: dict[str, Any] = data["files"]
    for path, record in records.items():
        if record.empty:
            files.pop(_key(path), None)
        else:
            files[_key(path)] = record.as_json()
    data["version"] = VERSION
    write_atomically(record_path(), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def remember_plan_tools(
    agent: str, scope: str, installed: bool, registered_in: list[Path] | None = None
) -> None:
    """Which agents setup gave Plansight's MCP server (and in which scopes), for the hook's
    word at the start of a session (`hook/plan_tool_note.py`); `registered_in`: the files
    that now hold the server's entry, which the hook looks at, so that it never names a
    tool the person has since removed (`claude mcp remove`, an edit)."""
    data = _load()
    if registered_in is not None:
        where = data.setdefault("mcp_files", {})
        known = where.get(agent) if isinstance(where.get(agent), list) else []
        paths = {path for path in known if isinstance(path, str)}
        paths |= {_key(path) for path in registered_in}
        if not installed:
            paths -= {_key(path) for path in registered_in}
        if paths:
            where[agent] = sorted(paths)
        else:
            where.pop(agent, None)
    agents = data.setdefault("agents", {})
    scopes = set(agents.get(agent, [])) if isinstance(agents.get(agent), list) else set()
    if installed:
        scopes.add(scope)
    else:
        scopes.discard(scope)
    if scopes:
        agents[agent] = sorted(scopes)
    else:
        agents.pop(agent, None)
    write_atomically(record_path(), json.dumps(data, indent=2, ensure_ascii=False) + "\n")
