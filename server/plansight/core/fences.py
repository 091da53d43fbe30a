"""Plan text quoted to an agent can never close or open the fence it is read in.

What an agent reads of a plan (a summary, the `context` text, a hook's additional
context, an MCP tool's result) frames the plan's own text (contents, notes, titles,
owners, file paths, phase and session names: whatever a person or another agent wrote)
in tags its harness and its model read as their own: `<system-reminder>` and `<reminder>`
(ours; Claude Code also wraps each hook's additional context in `<system-reminder>`),
`<hook_context>` (Gemini CLI's), `<system>`. So, in quoted text:

- a `<` that starts such a tag is written `&lt;`, as Claude Code and Gemini CLI escape
  hook output themselves: `</system-reminder>` in a note reads `&lt;/system-reminder>`.
  A tag whose name holds "system" or "reminder", or is one of the agents' context
  fences, counts, in any case, with blanks or invisible characters after the `<`;
  other `<` (`List<String>`, `a < b`) stay as written;
- every line of a quoted multi-line text after the first is indented, so no line of plan
  text starts a line of the frame.

Every face quotes through here: `summarize` and `context_text` (the language server, the
CLI, the hook, MCP) and the MCP tools' replies.
"""

from __future__ import annotations

import re

# The agents' own fences around what a hook or a tool adds (Gemini CLI's).
AGENT_FENCES = ("hook_context", "session_context")
# Blanks and invisible characters a model may read through between `<` and a tag's name.
_GAP = r"[\s\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]*"
_FENCE_START = re.compile(
    rf"<(?={_GAP}/?{_GAP}(?:[\w:.-]*(?:system|reminder)|{'|'.join(AGENT_FENCES)}))",
    re.IGNORECASE,
)
_LINE_BREAK = re.compile("(\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])")
QUOTE_INDENT = "    "


def unfenced(text: str) -> str:
    """`text` with no tag that could open or close a fence (idempotent)."""
    if "<" not in text:
        return text
    return _FENCE_START.sub("&lt;", text)


def quoted(text: str, indent: str = QUOTE_INDENT) -> str:
    """Plan text as a frame quotes it: unfenced, its lines after the first indented."""
    return _LINE_BREAK.sub(lambda m: m.group(1) + indent, unfenced(text))
