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

Codex 0.171: its plan mode (a collaboration mode of its TUI) proposes the plan as text,
with no tool call: the turn's last message holds a `<proposed_plan>` block, its tags each
on a line of their own, markdown inside, at most one a turn, a later one a complete
replacement (the plan-mode instructions in the 0.171 binary). The hook hears it in `Stop`'s
`last_assistant_message` and takes the block's checklist as Claude Code's plan. The plan is
proposed, not yet approved: a person who sees it in the editor steers it as any plan, and
a revised proposal replaces it, merged with the person's changes.
"""

from __future__ import annotations

import re
from typing import Any

# The line of Gemini CLI's `exit_plan_mode` result that names the approved plan's file.
_GEMINI_APPROVED = re.compile(
    r"^The approved implementation plan is stored at: (.+)$", re.MULTILINE
)
# The most of a plan file read (a plan is a page or two; the ingest limits are smaller).
PLAN_FILE_BYTES = 256 * 1024

# Codex's block: the tags each on a line of their own (leading or trailing spaces allowed).
_PROPOSED_PLAN = re.compile(
    r"^[ \t]*<proposed_plan>[ \t]*\n(.*?)^[ \t]*</proposed_plan>[ \t]*$", re.MULTILINE | re.DOTALL
)

# A checklist item and a heading as `core/markdown.py` reads them.
_CHECKLIST_ITEM = re.compile(r"^[ \t]*[-*+]\s+\[.?\]\*?\s+\S")
_HEADING = re.compile(r"^#{1,6}\s+\S")


def approved_plan(event: dict[str, Any]) -> dict[str, str] | None:
    """The `markdown` payload of an approved plan mode plan, or None: none to take."""
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
    return _checklist(blocks[-1]) if blocks else None


def _gemini_plan(response: Any) -> str | None:
    """The approved plan's text from the file Gemini CLI's result names, or None."""
    said = response.get("llmContent") if isinstance(response, dict) else None
    found = _GEMINI_APPROVED.search(said) if isinstance(said, str) else None
    if found is None:
        return None
    from plansight.regular_file import NotReadable, read_head

    try:
        plan = read_head(found.group(1).strip(), PLAN_FILE_BYTES)
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
