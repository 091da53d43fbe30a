"""Which files an edit tool call changed, as workspace-relative paths."""

from __future__ import annotations

import os
from typing import Any

# The apply_patch envelope (Codex's and Copilot CLI's) names each file on a header line
# (codex-rs apply-patch, `apply_patch_tool_instructions.md`): Add / Update / Delete, and a
# rename's new name.
_PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
_BEGIN = "*** Begin Patch"
# Claude Code: Edit / MultiEdit / Write take `file_path`, NotebookEdit `notebook_path`;
# Gemini CLI: replace / write_file take `file_path`; Copilot CLI's Edit / Write (its `edit`
# and `create`) take `path`; OpenCode's edit / write take `filePath`.
_PATH_KEYS = ("file_path", "notebook_path", "path", "filePath")


def edited_paths(tool_name: str, tool_input: Any) -> list[str]:
    """The paths an edit tool's input names, as the agent wrote them (absolute or not)."""
    patch = _patch_text(tool_name, tool_input)
    if patch is not None:
        return _patch_paths(patch)
    if not isinstance(tool_input, dict):
        return []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return [value]
    return []


def naming_only(tool_name: str, tool_input: Any) -> dict[str, str] | str:
    """A tool input naming the same files as `tool_input` and holding nothing else (no
    file content, no patch): what a spooled edit event keeps of it."""
    paths = edited_paths(tool_name, tool_input)
    if _patch_text(tool_name, tool_input) is not None:
        headers = "".join(f"{_PATCH_HEADERS[1]}{path}\n" for path in paths)
        if tool_name == "apply_patch":
            return {"command": headers}
        return f"{_BEGIN}\n{headers}"  # another tool's patch is read as one by this line
    return {"file_path": paths[0]} if paths else {}


def _patch_text(tool_name: str, tool_input: Any) -> str | None:
    """The apply_patch envelope the call carries, if it is one. Codex sends its text as
    `command` (its hook contract for apply_patch; older builds called the field `input`).
    Copilot CLI's apply_patch (offered to GPT-5.1-Codex and later) is a freeform tool: it
    reaches hooks under Claude's name `Edit`, its tool input the patch text itself; it
    also takes `{input}` or `{patch}` (`cli-main.js` of 1.0.102). OpenCode's apply_patch
    (offered to GPT models) takes `patchText` (its bundled tool registry, 1.18.33)."""
    if isinstance(tool_input, str):
        return tool_input if _BEGIN in tool_input else None
    if not isinstance(tool_input, dict) or any(key in tool_input for key in _PATH_KEYS):
        return None
    for key in ("command", "input", "patch", "patchText"):
        text = tool_input.get(key)
        if isinstance(text, str) and (tool_name == "apply_patch" or _BEGIN in text):
            return text
    return None


def _patch_paths(patch: str) -> list[str]:
    paths: list[str] = []
    for line in patch.splitlines():
        for header in _PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if path and path not in paths:
                    paths.append(path)
    return paths


def workspace_relative(paths: list[str], cwd: str, root: str) -> list[str]:
    """Each path relative to the workspace root, with `/` separators; paths outside the
    workspace are left out (a task lists what it changed in the project)."""
    real_root = os.path.realpath(root)
    out: list[str] = []
    for path in paths:
        full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
        try:
            relative = os.path.relpath(full, real_root)
        except ValueError:  # another drive on Windows
            continue
        if (
            relative == os.curdir
            or relative.startswith(os.pardir + os.sep)
            or relative == os.pardir
        ):
            continue
        relative = relative.replace(os.sep, "/")
        if relative not in out:
            out.append(relative)
    return out
