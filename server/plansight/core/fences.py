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
  fences, counts, in any case, with blanks after the `<` and the `/`. It counts however
  it is spelled for a reader that does not see invisible characters (issue 29): the tag
  is looked for in the text as a model reads it (`_as_read`): default-ignorable code
  points (U+200B, the soft hyphen, variation selectors, Unicode tag characters...),
  format characters (Cf) and combining marks (Mn, Me) taken out wherever they are (after
  the `<`, inside the name), compatibility forms folded (NFKC: a full-width `＜` or
  `ｓｙｓｔｅｍ` is `<`, `system`), and the other `<` look-alikes (`‹`, `〈`, `⟨`, `˂`,
  `ᐸ`) read as `<`. The `<` or look-alike that starts such a tag becomes `&lt;`;
  other `<` (`List<String>`, `a < b`, `<Button/>`) stay as written: plans quote code,
  and no agent's harness reads those as its own. Letters of other scripts that look
  Latin (a Cyrillic `е` in `systеm`) are not folded: no harness matches them either;
- every line of a quoted multi-line text after the first is indented, so no line of plan
  text starts a line of the frame.

Every face quotes through here: `summarize` and `context_text` (the language server, the
CLI, the hook, MCP) and the MCP tools' replies.
"""

from __future__ import annotations

import re
import unicodedata

# The agents' own fences around what a hook or a tool adds (Gemini CLI's).
AGENT_FENCES = ("hook_context", "session_context")
# Our own frames around what the hook tells an agent (`core/context.py`, `hook/store.py`).
FRAME_TAGS = ("system-reminder", "reminder")
_FENCE_START = re.compile(
    rf"<(?=\s*/?\s*[\w:.-]*(?:system|reminder|{'|'.join(AGENT_FENCES)}))",
    re.IGNORECASE,
)
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): drawn
# as nothing, whatever their category (the Hangul fillers are letters, Lo).
_DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_UNSEEN_CATEGORIES = frozenset(("Cf", "Mn", "Me"))
# Signs a model may read as `<` that NFKC does not fold into it (it folds U+FF1C and U+FE64):
# single angle quotation mark, angle brackets (CJK, mathematical, the deprecated U+2329),
# modifier letter left arrowhead, Canadian syllabics PA.
LOOK_ALIKES = "\u2039\u3008\u27e8\u2329\u02c2\u1438\uff1c\ufe64"
_MAY_OPEN = re.compile(f"[<{LOOK_ALIKES}]")
_LINE_BREAK = re.compile("(\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])")
QUOTE_INDENT = "    "
_FRAME_TAG = re.compile(rf"</?(?:{'|'.join(FRAME_TAGS)})>")


def unseen(char: str) -> bool:
    """Whether a reader sees nothing of `char` (so it splits no tag for a model)."""
    return bool(_DEFAULT_IGNORABLE.match(char)) or unicodedata.category(char) in _UNSEEN_CATEGORIES


def _as_read(text: str) -> tuple[str, list[int]]:
    """`text` as a model reads it (see above), and where each of its characters came from
    in `text`."""
    read: list[str] = []
    origins: list[int] = []
    for at, char in enumerate(text):
        if unseen(char):
            continue
        folded = "<" if char in LOOK_ALIKES else unicodedata.normalize("NFKC", char)
        if len(folded) > 1:  # a compatibility form may unfold into a letter and a mark
            folded = "".join(c for c in folded if not unseen(c))
        read.append(folded)
        origins.extend([at] * len(folded))
    return "".join(read), origins


def unfenced(text: str) -> str:
    """`text` with no tag that could open or close a fence (idempotent)."""
    if text.isascii():  # nothing unseen, nothing to fold: the text is as it is read
        return _FENCE_START.sub("&lt;", text) if "<" in text else text
    if not _MAY_OPEN.search(text):
        return text
    read, origins = _as_read(text)
    starts = {origins[match.start()] for match in _FENCE_START.finditer(read)}
    if not starts:
        return text
    return "".join("&lt;" if at in starts else char for at, char in enumerate(text))


def untagged(text: str) -> str:
    """`text` with our frames' tags taken out, their words kept: for an agent that frames
    what a hook adds itself and escapes tags in it (`hook/agents.py`). Plan text quoted in
    it went through `unfenced`, so every such tag left is ours."""
    return _FRAME_TAG.sub("", text)


def quoted(text: str, indent: str = QUOTE_INDENT) -> str:
    """Plan text as a frame quotes it: unfenced, its lines after the first indented."""
    return _LINE_BREAK.sub(lambda m: m.group(1) + indent, unfenced(text))
