"""Which files each agent's edit tools name, in every shape their inputs take (each from
the agent's own sources or a recording: `tests/fixtures/hooks/README.md`)."""

from __future__ import annotations

from typing import Any

import pytest
from replay import Replay

from plansight.hook.files import edited_paths, naming_only
from plansight.hook.hooked_agents import AGENTS

PATCH = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n@@\n-a\n+b\n"
    "*** Add File: docs/new.md\n+hello\n"
    "*** Delete File: old.py\n"
    "*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x\n+y\n"
    "*** End Patch\n"
)
NAMED = ["app.py", "docs/new.md", "old.py", "src/a.py", "src/b.py"]


@pytest.mark.parametrize(
    ("agent", "tool", "tool_input", "paths"),
    [
        ("claude-code", "Edit", {"file_path": "/p/a.py", "old_string": "x"}, ["/p/a.py"]),
        ("claude-code", "MultiEdit", {"file_path": "a.py", "edits": []}, ["a.py"]),
        ("claude-code", "Write", {"file_path": "a.py", "content": PATCH}, ["a.py"]),
        ("claude-code", "NotebookEdit", {"notebook_path": "n.ipynb"}, ["n.ipynb"]),
        ("codex", "apply_patch", {"command": PATCH}, NAMED),
        ("codex", "apply_patch", {"input": PATCH}, NAMED),  # builds before 0.1xx
        ("gemini", "replace", {"file_path": "a.py", "old_string": "x"}, ["a.py"]),
        ("gemini", "write_file", {"file_path": "a.py", "content": "x"}, ["a.py"]),
        ("copilot", "Edit", {"path": "a.py", "old_str": "x", "new_str": "y"}, ["a.py"]),
        ("copilot", "Write", {"path": "a.py", "file_text": "x"}, ["a.py"]),
        ("copilot", "Edit", PATCH, NAMED),  # its freeform apply_patch
        ("copilot", "Edit", {"input": PATCH}, NAMED),  # the forms apply_patch also takes
        ("copilot", "Edit", {"patch": PATCH}, NAMED),
    ],
)
def test_each_edit_tool_names_its_files(
    agent: str, tool: str, tool_input: Any, paths: list[str]
) -> None:
    assert tool in AGENTS[agent].edit_tools
    assert edited_paths(tool, tool_input) == paths
    # A spooled edit keeps the names and nothing else; read back, they are the same.
    kept = naming_only(tool, tool_input)
    assert edited_paths(tool, kept) == paths
    assert "+hello" not in str(kept)


def test_text_that_is_no_patch_names_no_file() -> None:
    assert edited_paths("Edit", "just some text") == []
    assert edited_paths("Edit", {"command": "str_replace"}) == []
    assert edited_paths("Edit", None) == []


def test_a_spooled_copilot_patch_adds_its_files_when_applied(machine: Replay) -> None:
    """The spool keeps `naming_only`'s text: read back, it names the same files."""
    event = machine.event("copilot", "PostToolUse-apply_patch")
    kept = naming_only("Edit", event["tool_input"])
    assert isinstance(kept, str) and "print(" not in kept
    assert edited_paths("Edit", kept) == edited_paths("Edit", event["tool_input"])
