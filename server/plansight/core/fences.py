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
  is looked for in the text as a model reads it (`_opens_fence`): default-ignorable code
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
# Our own frames around what the hook tells an agent (`core/context.py`, `hook/plan_calls.py`).
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
# What a tag's start is made of, up to its name's end: blanks, `/` and the name's characters.
_NAME_GOES_ON = re.compile(r"[\s/\w:.-]+")
_NAME_RUN = re.compile(r"[\s/\w:.-]*")
_LINE_BREAK = re.compile("(\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])")
QUOTE_INDENT = "    "
_FRAME_TAG = re.compile(rf"</?(?:{'|'.join(FRAME_TAGS)})>")


def unseen(char: str) -> bool:
    """Whether a reader sees nothing of `char` (so it splits no tag for a model)."""
    return bool(_DEFAULT_IGNORABLE.match(char)) or unicodedata.category(char) in _UNSEEN_CATEGORIES


def _read_as(char: str) -> str:
    """What a model reads of a visible character (see above)."""
    if char in LOOK_ALIKES:
        return "<"
    folded = unicodedata.normalize("NFKC", char)
    if len(folded) > 1:  # a compatibility form may unfold into a letter and a mark
        folded = "".join(c for c in folded if not unseen(c))
    return folded


def _opens_fence(text: str, at: int) -> bool:
    """Whether the `<` (or look-alike) at `at` starts a fence tag as a model reads it: the
    text after it is read up to the first character a tag's name cannot go on with (a `<`
    among them), so the whole text is read about once, however many `<` it holds."""
    name = _NAME_RUN.match(text, at + 1)  # always a match, perhaps empty
    ends = name.end() if name is not None else at + 1
    if name is not None and name.group().isascii() and text[ends : ends + 1].isascii():
        # The common case, `<b>` or `List<String>` in a text with accents: read as written.
        return bool(_FENCE_START.match("<" + name.group()))
    read = ["<"]
    for after in range(at + 1, len(text)):
        char = text[after]
        if unseen(char):
            continue
        seen = _read_as(char)
        read.append(seen)
        if not _NAME_GOES_ON.fullmatch(seen):
            break
    return bool(_FENCE_START.match("".join(read)))


def unfenced(text: str) -> str:
    """`text` with no tag that could open or close a fence (idempotent)."""
    if text.isascii():  # nothing unseen, nothing to fold: the text is as it is read
        return _FENCE_START.sub("&lt;", text) if "<" in text else text
    starts = [m.start() for m in _MAY_OPEN.finditer(text) if _opens_fence(text, m.start())]
    if not starts:
        return text
    pieces, after = [], 0
    for at in starts:
        pieces += [text[after:at], "&lt;"]
        after = at + 1
    return "".join([*pieces, text[after:]])


def untagged(text: str) -> str:
    """`text` with our frames' tags taken out, their words kept: for an agent that frames
    what a hook adds itself and escapes tags in it (`hook/hooked_agents.py`). Plan text quoted in
    it went through `unfenced`, so every such tag left is ours."""
    return _FRAME_TAG.sub("", text)


def quoted(text: str, indent: str = QUOTE_INDENT) -> str:
    """Plan text as a frame quotes it: unfenced, its lines after the first indented."""
    return _LINE_BREAK.sub(lambda m: m.group(1) + indent, unfenced(text))
