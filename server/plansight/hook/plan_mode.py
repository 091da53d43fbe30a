"""The plan a person approves in an agent's plan mode arrives as the conversation's plan.

Gemini CLI 0.61: leaving plan mode is the `exit_plan_mode` tool (`plan_filename`: a
markdown file the model wrote in its plans folder); approved, its result says "The
approved implementation plan is stored at: <path>" (`ExitPlanModeInvocation.execute`),
rejected or cancelled it names no approved plan. The hook reads the plan from that file.

Claude Code 2.1.332: leaving plan mode is the `ExitPlanMode` tool; the hook hears its
`PostToolUse` only when the person approved (a rejection is `PostToolUseFailure`). The
plan is markdown: `tool_response.plan` (`ExitPlanModeOutput` in `sdk-tools.d.ts`: the
plan as presented, or as the person edited it), and Claude Code adds `plan` and
`planFilePath` (its `~/.claude/plans/*.md`) to the hook's `tool_input` too. It is taken
as the `markdown` ingest format takes a checklist: headings are phases, `- [ ]` items
tasks (flat: nesting is protocol 4's, not yet read); its prose (context, numbered steps,
code) is for the person to read and is left out, as the importer refuses it. A plan
without a checklist item is not a list: it changes nothing (a replacement by it would
empty the plan).

Copilot CLI 1.0.102: its plan mode (`--mode plan`, Shift+Tab) has the model write the plan
to `plan.md` in the session's folder, `$COPILOT_HOME/session-state/<session id>/`
(`~/.copilot`), and call `exit_plan_mode` (`summary`, `actions`, `recommendedAction`)
to ask for approval; approving reads that file ("View full plan": the person may have
edited it). The hook hears its `PostToolUse` either way: approved, the result begins "Plan
approved! Exited plan mode."; otherwise "Plan not approved" (the tool's strings in the
package's `runtime.node`, `src/runtime/src/tools/exit_plan_mode.rs`). The hook reads the
session's `plan.md` after an approval only.

OpenCode 1.18.33: its `plan` agent may edit only its plan file, `<worktree>/.opencode/
plans/<created>-<slug>.md` in a git project, else `<data>/opencode/plans/...` (the
`plan` agent's permissions and the session's plan path in its bundled code), and ends with
`plan_exit` (no arguments), which asks the person "Plan at <path> is complete. Would you
like to switch to the build agent ...?"; "No" fails the tool, so its `tool.execute.after`
(the plugin's PostToolUse) means approved. The event names no file: the hook remembers
the plan file the conversation's `write` / `edit` last touched, and reads it then.

Codex 0.171: its plan mode (a collaboration mode of its TUI) proposes the plan as text,
with no tool call: the turn's last message holds a `<proposed_plan>` block, its tags each
on a line of their own, markdown inside, at most one a turn, a later one a complete
replacement (the plan-mode instructions in the 0.171 binary). The hook hears it in `Stop`'s
`last_assistant_message` and takes the block's checklist as Claude Code's plan. The same
instructions ask for no checklist: "a compact structure with 3-5 short sections, usually:
Summary, Key Changes or Implementation Changes, Test Plan, and Assumptions", "grouped
implementation bullets", so a block with no checklist item gives its plain bullets and
numbered lines as tasks, but for those of its Summary, Assumptions and like sections. The
plan is proposed, not yet approved: a person who sees it in the editor steers it as any
plan, and a revised proposal replaces it, merged with the person's changes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

# The line of Gemini CLI's `exit_plan_mode` result that names the approved plan's file.
_GEMINI_APPROVED = re.compile(
    r"^The approved implementation plan is stored at: (.+)$", re.MULTILINE
)
# The first words of Copilot CLI's `exit_plan_mode` result when the person approved.
_COPILOT_APPROVED = "Plan approved!"
# The most of a plan file read (a plan is a page or two; the ingest limits are smaller).
PLAN_FILE_BYTES = 256 * 1024

# Codex's block: the tags each on a line of their own (leading or trailing spaces allowed).
_PROPOSED_PLAN = re.compile(
    r"^[ \t]*<proposed_plan>[ \t]*\n(.*?)^[ \t]*</proposed_plan>[ \t]*$", re.MULTILINE | re.DOTALL
)

# A checklist item and a heading as `core/markdown.py` reads them.
_CHECKLIST_ITEM = re.compile(r"^[ \t]*[-*+]\s+\[.?\]\*?\s+\S")
_HEADING = re.compile(r"^#{1,6}\s+\S")
# A plain list item: a bullet or a number, then the item's text (not a checklist's box).
# (A rule, `* * *`, has no word in it: no item.)
_PLAIN_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])\s+(?P<text>(?!\[.?\]\s)(?=.*\w)\S.*)$"
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
# The sections of Codex's proposed plan that are not work to do: its plan-mode
# instructions (0.171) ask for "a brief summary section" and "explicit assumptions and
# defaults chosen", and a Scope section only where scope boundaries matter.
# A heading made of such names only ("Assumptions and defaults", "Goals / Non-goals"; not
# "Context menu").
_NOT_WORK_NAME = (
    r"(?:summary|assumptions?|defaults?(?:\s+chosen)?|scope|context|background|overview|"
    r"goals?|non-goals|risks?|notes?|open\s+questions?)"
)
_NOT_WORK = re.compile(
    rf"^#{{2,6}}\s+(?:[\W_]*(?:(?:and|or)\s+)?{_NOT_WORK_NAME}\b)+[\W_]*$", re.IGNORECASE
)


def approved_plan(
    agent: str, event: dict[str, Any], session_id: str, plan_file: str | None = None
) -> dict[str, str] | None:
    """The `markdown` payload of an approved plan mode plan, or None: none to take.
    `plan_file`: the plan file the conversation's plan mode last wrote (OpenCode's)."""
    if agent == "opencode":
        text = _read_plan(plan_file) if plan_file is not None else None
        return _checklist(text) if text is not None else None
    if agent == "copilot":
        text = _copilot_plan(event.get("tool_result"), session_id)
        return _checklist(text) if text is not None else None
    if event.get("tool_name") == "exit_plan_mode":
        text = _gemini_plan(event.get("tool_response"))
        return _checklist(text) if text is not None else None
    for part in ("tool_response", "tool_input"):
        holder = event.get(part)
        text = holder.get("plan") if isinstance(holder, dict) else None
        if isinstance(text, str) and text.strip():
            return _checklist(text)
    return None


def proposed_plan(event: dict[str, Any]) -> dict[str, str] | None:
    """The `markdown` payload of the last `<proposed_plan>` block of a turn's last message
    (Codex's plan mode), or None: none, or one with no checklist item."""
    message = event.get("last_assistant_message")
    if not isinstance(message, str):
        return None
    blocks = _PROPOSED_PLAN.findall(message)
    if not blocks:
        return None
    plan = blocks[-1]
    return _checklist(plan) or _checklist(_bullets_as_checklist(plan))


def _bullets_as_checklist(plan: str) -> str:
    """A proposed plan with no checklist, its plain bullets (`- `, `* `, `+ `) and numbered
    lines (`1.`, `1)`) as checklist items, nested as written; those of a section that is
    not work to do (`_NOT_WORK`) and those in a code block stay prose."""
    lines: list[str] = []
    fenced = prose = False
    for line in plan.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            continue
        elif _HEADING.match(line):
            # The `#` line is the plan's title; a section's heading says what it holds.
            prose = _NOT_WORK.match(line) is not None
            lines.append(line)
        elif (item := _PLAIN_ITEM.match(line)) is not None and not prose:
            lines.append(f"{item.group('indent')}- [ ] {item.group('text')}")
    return "\n".join(lines)


def _gemini_plan(response: Any) -> str | None:
    """The approved plan's text from the file Gemini CLI's result names, or None."""
    said = response.get("llmContent") if isinstance(response, dict) else None
    found = _GEMINI_APPROVED.search(said) if isinstance(said, str) else None
    return _read_plan(found.group(1).strip()) if found is not None else None


def _copilot_plan(result: Any, session_id: str) -> str | None:
    """The approved plan's text from the session's `plan.md` (Copilot CLI), or None."""
    said = result.get("text_result_for_llm") if isinstance(result, dict) else None
    if not isinstance(said, str) or not said.startswith(_COPILOT_APPROVED):
        return None
    if not session_id or os.sep in session_id or session_id in (os.curdir, os.pardir):
        return None  # a session id names one folder, never a path
    from plansight.hook.copilot_todos import copilot_home

    return _read_plan(copilot_home() / "session-state" / session_id / "plan.md")


def plan_mode_file(agent: str, cwd: str, path: str) -> str | None:
    """`path` (as an edit tool named it, absolute or from `cwd`) made absolute when it is
    one of the agent's plan mode files (OpenCode's `.opencode/plans/*.md` or
    `opencode/plans/*.md` of its data folder, Copilot CLI's `session-state/<id>/plan.md`),
    else None."""
    found = Path(cwd, path)
    folder = found.parent
    if agent == "copilot":
        from plansight.hook.copilot_todos import copilot_home

        home = copilot_home() / "session-state"
        return str(found) if found.name == "plan.md" and folder.parent == home else None
    if agent != "opencode":
        return None
    if found.suffix != ".md" or folder.name != "plans":
        return None
    return str(found) if folder.parent.name in (".opencode", "opencode") else None


def _read_plan(path: str | os.PathLike[str]) -> str | None:
    """A plan file's text (its first PLAN_FILE_BYTES), or None: none there, or unreadable."""
    from plansight.regular_file import NotReadable, read_head

    try:
        plan = read_head(path, PLAN_FILE_BYTES)
    except (OSError, ValueError, NotReadable):
        return None
    return plan.decode("utf-8", "replace") if plan is not None else None


def _checklist(text: str) -> dict[str, str] | None:
    """The headings and checklist items of `text`, or None: it has no checklist item."""
    kept = [
        line for line in text.splitlines() if _HEADING.match(line) or _CHECKLIST_ITEM.match(line)
    ]
    if not any(_CHECKLIST_ITEM.match(line) for line in kept):
        return None
    # A section with no checklist item (a plan's Summary, its Assumptions) is no phase;
    # the `#` line, the plan's title, stays.
    kept = [
        line
        for at, line in enumerate(kept)
        if not _HEADING.match(line)
        or line.startswith("# ")
        or (at + 1 < len(kept) and _CHECKLIST_ITEM.match(kept[at + 1]))
    ]
    return {"text": "\n".join(kept) + "\n"}
