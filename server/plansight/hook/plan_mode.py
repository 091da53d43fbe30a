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
    return {"text": "\n".join(kept) + "\n"}
