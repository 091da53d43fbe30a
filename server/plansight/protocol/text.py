"""Cleaning what agents send: one-line contents, notes without control characters."""

from __future__ import annotations

import re
import unicodedata

_LINE_BREAK = re.compile(r"\r\n|\r|\n|\t")
# Bidirectional overrides and isolates can make a task read differently from what it
# says ("trojan source"), so they go with the other control characters, as do the
# directional marks (LRM, RLM and the Arabic letter mark, ALM).
_BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)


def _keep(char: str) -> bool:
    # Lone surrogates (Cs) can arrive through JSON escapes; they cannot be stored as UTF-8.
    return unicodedata.category(char) not in ("Cc", "Cs") and char not in _BIDI_CONTROLS


def clean_content(text: str) -> str:
    """A task content or phase name: one line, no control characters, trimmed."""
    text = _LINE_BREAK.sub(" ", text)
    if not text.isprintable():
        text = "".join(c for c in text if _keep(c))
    return text.strip()


def clean_note(text: str) -> str:
    """A note may span lines; each line loses control characters and trailing blanks,
    blank lines inside are dropped (they could not survive a markdown round trip)."""
    lines = re.split(r"\r\n|\r|\n", text)
    cleaned = []
    for line in lines:
        line = line.replace("\t", "    ")
        if not line.isprintable():
            line = "".join(c for c in line if _keep(c))
        line = line.rstrip()
        if line:
            cleaned.append(line)
    return "\n".join(cleaned)


# The longest session name a client may send (before it is cleaned).
MAX_NAME_LENGTH = 200


def clean_name(text: str) -> str:
    """A session name, title or owner: cleaned as a content is; empty is refused."""
    cleaned = clean_content(text)
    if not cleaned:
        raise ValueError("must hold a visible character")
    return cleaned


_UNSAFE_ON_A_TERMINAL = frozenset(("Cc", "Cs"))


def terminal_safe(text: str) -> str:
    """`text` as it may reach a terminal: control characters (escape sequences, C1
    controls), lone surrogates and bidi controls become U+FFFD, whatever the store
    holds; line breaks and tabs stay."""
    if text.isprintable():
        return text
    return "".join(
        "\ufffd"
        if (unicodedata.category(c) in _UNSAFE_ON_A_TERMINAL and c not in "\n\t")
        or c in _BIDI_CONTROLS
        else c
        for c in text
    )


def terminal_safe_tree(value: object) -> object:
    """Every string in a JSON value made `terminal_safe` (keys included)."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, dict):
        return {terminal_safe(str(k)): terminal_safe_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [terminal_safe_tree(v) for v in value]
    return value
