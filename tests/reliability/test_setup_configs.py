"""`plansight setup` on many people's configuration files (issue 20, items 10-13): seeded
random Claude Code settings (JSON), Gemini CLI settings (JSON with comments) and Codex
`config.toml` files, each set up, parsed, checked to hold everything the person had, set up
again (nothing changes), removed, and compared byte for byte with the original. A Codex
file setup cannot extend safely (an inline `tools` table) must be refused, untouched."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from reliability_checks import knob

from plansight.hook.hooked_agents import AGENTS
from plansight.setup.codex_config import tomllib
from plansight.setup.json_text import STRICT, WITH_COMMENTS, loads
from plansight.setup.settings_file import SetupError, write_atomically
from plansight.setup.setup_command import planned_changes
from plansight.setup.setup_record import save_records

CONFIGS = knob("PLANSIGHT_SETUP_CONFIGS", 60)  # per agent
WORDS = ["theme", "model", "a b", "ünï", "x/y", "env", "url", "", 'k"q', "tab\t"]


def _scalar(rng: random.Random) -> Any:
    return rng.choice(
        [None, True, False, rng.randint(-99, 99), rng.random(), rng.choice(WORDS), "//", "/*"]
    )


def _value(rng: random.Random, depth: int) -> Any:
    if depth > 2 or rng.random() < 0.5:
        return _scalar(rng)
    if rng.random() < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(WORDS) + str(i): _value(rng, depth + 1) for i in range(rng.randint(0, 3))}


def _persons_settings(rng: random.Random, agent: str) -> dict[str, Any]:
    settings = {f"{rng.choice(WORDS)}{i}": _value(rng, 0) for i in range(rng.randint(0, 4))}
    if rng.random() < 0.5:  # hooks of their own
        event = rng.choice(["PostToolUse", "SessionStart", "AfterTool", "Stop"])
        handler = {
            "type": "command",
            "command": rng.choice(["audit.sh", "~/bin/x-plansight hook codex"]),
        }
        settings["hooks"] = {event: [{"matcher": "Bash", "hooks": [handler]}]}
    if rng.random() < 0.4:
        settings["env"] = (
            {"FOO": "1"} if rng.random() < 0.5 else {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "true"}
        )
    if rng.random() < 0.4:
        settings["mcpServers"] = {"github": {"command": "gh-mcp", "args": []}}
    return settings


def _with_comments(text: str, rng: random.Random) -> str:
    """Comments where Gemini CLI's loader allows them: on their own lines, after commas and
    before closing brackets (never inside strings: lines are cut at their ends only)."""
    lines = text.split("\n")
    out = []
    for line in lines:
        if rng.random() < 0.2:
            out.append(line[: len(line) - len(line.lstrip())] + "// a note: http://x //y")
        if rng.random() < 0.2 and line.rstrip().endswith((",", "{", "[")):
            line += rng.choice([" // trailing", " /* block */"])
        out.append(line)
    return "\n".join(out)


def _toml(rng: random.Random) -> tuple[str, bool]:
    """A config.toml and whether setup can extend it safely."""
    parts = ["# my Codex settings\n"] if rng.random() < 0.5 else []
    safe = True
    if rng.random() < 0.5:
        parts.append('model = "o3"\napproval_policy = "on-request"\n')
    choice = rng.random()
    if choice < 0.25:
        parts.append("[tools]\nweb_search = true\n")
    elif choice < 0.4:
        parts.append("tools.web_search = true\n" if not parts or rng.random() < 0.5 else "")
    elif choice < 0.5:
        parts.insert(0, "tools = { web_search = true }\n")
        safe = False
    if rng.random() < 0.4:
        parts.append('[mcp_servers.github]\ncommand = "gh"\nargs = ["--read-only"]\n')
    if rng.random() < 0.4:
        parts.append('[[profiles]]\nname = "fast"\n\n[[profiles]]\nname = "deep" # two\n')
    if rng.random() < 0.3:
        parts.append('[projects."/home/me/app"]\ntrust_level = "trusted"\n')
    text = "\n".join(parts)
    if text and rng.random() < 0.3:
        text = text.rstrip("\n")  # no final line break
    tomllib.loads(text)
    return text, safe


def _apply(agent: str, remove: bool) -> None:
    changes = planned_changes(AGENTS[agent], "user", "plansight", remove)
    save_records({change.path: change.record for change in changes})
    for change in changes:
        if change.after != change.before:
            write_atomically(change.path, change.after)


@pytest.mark.parametrize("agent", ["claude-code", "gemini", "codex", "copilot"])
def test_random_configs_are_edited_safely_and_given_back_byte_for_byte(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, figures: Counter[str]
) -> None:
    rng = random.Random(f"setup-{agent}")
    # What is checked here is the text; the writes' durability has its own tests, and a
    # thousand fsyncs on a shared disk would be most of the run.
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    for round_ in range(CONFIGS):
        home = tmp_path / f"home{round_}"
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
        if agent == "codex":
            path = home / ".codex" / "config.toml"
            text, safe = _toml(rng)
        else:
            folder = {"claude-code": ".claude", "gemini": ".gemini", "copilot": ".copilot"}[agent]
            # Copilot's hooks go to a file of Plansight's own: the person's file is its MCP one.
            name = "mcp-config.json" if agent == "copilot" else "settings.json"
            path = home / folder / name
            settings = _persons_settings(rng, agent)
            text = json.dumps(settings, indent=rng.choice([None, 2, 4, "\t"]), ensure_ascii=False)
            text += "\n" if rng.random() < 0.7 else ""
            if agent == "gemini":
                text = _with_comments(text, rng)
            safe = True
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        if not safe:
            with pytest.raises(SetupError, match="inline table"):
                _apply(agent, remove=False)
            assert path.read_text(encoding="utf-8") == text
            figures["setup: configs refused as unsafe, left byte for byte"] += 1
            continue
        _apply(agent, remove=False)
        written = path.read_text(encoding="utf-8")
        if agent == "codex":
            after = tomllib.loads(written)
            assert after["tools"]["update_plan"] == {"enabled": True}
            for key, value in tomllib.loads(text).items():
                if key not in ("tools", "mcp_servers"):
                    assert after[key] == value
        else:
            after = loads(written, WITH_COMMENTS if agent == "gemini" else STRICT)
            for key, value in json.loads(json.dumps(loads(text, WITH_COMMENTS))).items():
                if key not in ("hooks", "env", "mcpServers"):
                    assert after[key] == value
        _apply(agent, remove=False)
        assert path.read_text(encoding="utf-8") == written  # twice is once
        _apply(agent, remove=True)
        assert path.read_text(encoding="utf-8") == text
        figures["setup: configs set up, set up again, removed and byte-compared"] += 1
