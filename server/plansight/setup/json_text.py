"""A JSON settings file changed as text, the way a person edits it: only the members that
change are touched, so every other byte (the person's comments, layout, key order, number
spelling) stays as it was.

Gemini CLI reads its `settings.json` through `strip-json-comments` and then `JSON.parse`
(packages/cli/src/config/settings.ts in @google/gemini-cli 0.61): `//` and `/* */`
comments are allowed there, trailing commas are not. OpenCode reads `opencode.json` and
`opencode.jsonc` with jsonc-parser's `parse(text, errors, {allowTrailingComma: true})`
(its 1.18.33 binary): comments and trailing commas. Claude Code's, Codex's and Copilot's
files are plain JSON. `Dialect` says which; a trailing comma the person wrote is kept, and
a member added after it gets one too.

The edit is found one step at a time (remove a member, insert one, replace a value), each
step applied to the text and the text parsed again, until the text holds the wanted value;
the caller is then sure of what it writes.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class JsonTextError(ValueError):
    """The text is not what the dialect accepts; the message says where."""


@dataclass(frozen=True, slots=True)
class Dialect:
    comments: bool = False  # `//` and `/* */` (Gemini CLI, OpenCode)
    trailing_commas: bool = False  # `[1, 2,]`, `{"a": 1,}` (OpenCode)


STRICT = Dialect()
WITH_COMMENTS = Dialect(comments=True)
JSONC = Dialect(comments=True, trailing_commas=True)


@dataclass(slots=True)
class Entry:
    """A member of an object (with its key) or an element of an array (key None)."""

    key: str | None
    start: int  # of the key, or of the element
    node: Node
    comma: int | None  # the comma after it, if any


@dataclass(slots=True)
class Node:
    kind: str  # "object", "array" or "scalar"
    start: int
    end: int  # exclusive
    value: Any
    entries: list[Entry] = field(default_factory=list)
    shallow: bool = False  # a container read whole, its entries not located (see `_Parser`)


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SPACE = re.compile(r"[ \t\r\n]*")
_LITERALS = {"true": True, "false": False, "null": None}
# The standard library's own string scanner (in C): typeshed does not list it.
_scan_string: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Below the top level, plain JSON is read by the standard library's decoder (in C): a
# `~/.claude.json` of a few megabytes is read in milliseconds, and only the containers an
# edit goes into are read again with their entries located.
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


class _Parser:
    def __init__(self, text: str, dialect: Dialect) -> None:
        self.text = text
        self.dialect = dialect

    def fail(self, at: int, what: str) -> JsonTextError:
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsonTextError(f"{what} at line {line} column {column}")

    def skip(self, i: int) -> int:
        text = self.text
        while True:
            match = _SPACE.match(text, i)
            i = match.end() if match else i
            if not self.dialect.comments or not text.startswith("/", i):
                return i
            if text.startswith("//", i):
                newline = text.find("\n", i)
                i = len(text) if newline < 0 else newline
            elif text.startswith("/*", i):
                close = text.find("*/", i + 2)
                if close < 0:
                    raise self.fail(i, "unclosed comment")
                i = close + 2
            else:
                return i

    def document(self) -> Node:
        i = self.skip(0)
        node = self.value(i)
        end = self.skip(node.end)
        if end != len(self.text):
            raise self.fail(end, "unexpected text after the value")
        return node

    def value(self, i: int, depth: int = 0) -> Node:
        text = self.text
        if i >= len(text):
            raise self.fail(i, "unexpected end of the file")
        char = text[i]
        if depth > 0 and self.dialect == STRICT and char in "{[":
            try:
                whole, end = _DECODER.raw_decode(text, i)
            except ValueError as exc:
                at = exc.pos if isinstance(exc, json.JSONDecodeError) else i
                message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise self.fail(at, message.lower()) from None
            kind = "object" if char == "{" else "array"
            return Node(kind, i, end, whole, shallow=True)
        if char == "{":
            return self.container(i, "object", "}")
        if char == "[":
            return self.container(i, "array", "]")
        if char == '"':
            string, end = self.string(i)
            return Node("scalar", i, end, string)
        for literal, value in _LITERALS.items():
            if text.startswith(literal, i):
                return Node("scalar", i, i + len(literal), value)
        match = _NUMBER.match(text, i)
        if match is None or match.end() == i:
            raise self.fail(i, "expected a value")
        return Node("scalar", i, match.end(), json.loads(match.group()))

    def string(self, i: int) -> tuple[str, int]:
        try:
            return _scan_string(self.text, i + 1, True)
        except json.JSONDecodeError as exc:
            raise self.fail(exc.pos, exc.msg.lower()) from None

    def container(self, start: int, kind: str, close: str) -> Node:
        """The container at `start`, its entries located, their own containers read whole
        (plain JSON) or located too (with comments: the standard decoder cannot skip them)."""
        entries: list[Entry] = []
        i = self.skip(start + 1)
        if self.text.startswith(close, i):
            return Node(kind, start, i + 1, {} if kind == "object" else [], entries)
        while True:
            entry_start = i
            key = None
            if kind == "object":
                if not self.text.startswith('"', i):
                    raise self.fail(i, "expected a key in quotes")
                key, i = self.string(i)
                i = self.skip(i)
                if not self.text.startswith(":", i):
                    raise self.fail(i, "expected ':'")
                i = self.skip(i + 1)
            node = self.value(i, depth=1)
            i = self.skip(node.end)
            comma = None
            if self.text.startswith(",", i):
                comma = i
                i = self.skip(i + 1)
            entries.append(Entry(key, entry_start, node, comma))
            if self.text.startswith(close, i):
                if comma is not None and not self.dialect.trailing_commas:
                    raise self.fail(comma, "trailing comma")
                break
            if comma is None:
                raise self.fail(i, f"expected ',' or '{close}'")
        if kind == "array":
            return Node(kind, start, i + 1, [e.node.value for e in entries], entries)
        value: dict[str, Any] = {}
        for entry in entries:
            assert entry.key is not None
            if entry.key in value:
                raise self.fail(entry.start, f"the key {entry.key!r} appears twice")
            value[entry.key] = entry.node.value
        return Node(kind, start, i + 1, value, entries)


def parse(text: str, dialect: Dialect = STRICT) -> Node:
    """The value of `text` with where each part of it is (JsonTextError when invalid)."""
    return _Parser(text, dialect).document()


def loads(text: str, dialect: Dialect = STRICT) -> Any:
    return parse(text, dialect).value


def canonical(value: Any) -> str:
    """One spelling per value (`true` is not `1`, key order does not matter)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def changed_text(text: str, wanted: Any, dialect: Dialect = STRICT) -> str:
    """`text` changed so that it holds `wanted`, touching only what differs."""
    if not text.strip():
        return json.dumps(wanted, indent=2, ensure_ascii=False) + "\n"
    editor = _Editor(text, dialect)
    for _ in range(10_000):
        root = parse(editor.text, dialect)
        if canonical(root.value) == canonical(wanted):
            return editor.text
        editor.step(root, wanted)
    raise JsonTextError("the change did not converge")  # a bug: nothing is written


class _Editor:
    def __init__(self, text: str, dialect: Dialect) -> None:
        self.text = text
        self.dialect = dialect
        self.unit = _indent_unit(text)

    def step(self, node: Node, wanted: Any) -> None:
        """Make one change that brings `node` closer to `wanted`."""
        if node.shallow:
            node = _Parser(self.text, self.dialect).value(node.start)
        if node.kind == "object" and isinstance(wanted, dict):
            for index, entry in enumerate(node.entries):
                if entry.key not in wanted:
                    return self.remove(node, index)
            for entry in node.entries:
                if canonical(entry.node.value) != canonical(wanted[entry.key]):
                    return self.step(entry.node, wanted[entry.key])
            present = {entry.key for entry in node.entries}
            key = next(key for key in wanted if key not in present)
            return self.insert(node, len(node.entries), key, wanted[key])
        if node.kind == "array" and isinstance(wanted, list):
            old = [canonical(entry.node.value) for entry in node.entries]
            new = [canonical(value) for value in wanted]
            matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag == "equal":
                    continue
                if tag == "insert":
                    return self.insert(node, i1, None, wanted[j1])
                if tag == "replace" and i2 - i1 == j2 - j1:
                    entry = node.entries[i1]
                    if entry.node.kind != "scalar" and _same_kind(entry.node, wanted[j1]):
                        return self.step(entry.node, wanted[j1])
                return self.remove(node, i1)
        self.replace(node.start, node.end, self.render(wanted, self.indent_at(node.start)))
        return None

    # -- the three changes

    def remove(self, container: Node, index: int) -> None:
        entries = container.entries
        entry = entries[index]
        text = self.text
        tail = entry.comma + 1 if entry.comma is not None else entry.node.end
        if len(entries) == 1 and not self._has_comment(container.start + 1, container.end - 1):
            return self.replace(container.start + 1, container.end - 1, "")
        if self._alone_on_line(entry.start):
            line_end = self._line_end(tail)
            if line_end is not None and not text[tail:line_end].strip():
                tail = line_end
            start = text.rfind("\n", 0, entry.start)
            if index == len(entries) - 1 and index > 0 and entry.comma is None:
                previous = entries[index - 1]
                assert previous.comma is not None
                self.replace(start, tail, "")
                return self.replace(previous.comma, previous.comma + 1, "")
            return self.replace(start, tail, "")
        if index == len(entries) - 1 and index > 0:
            previous = entries[index - 1]
            return self.replace(previous.node.end, entry.node.end, "")
        end = tail
        while end < len(text) and text[end] in " \t":
            end += 1
        return self.replace(entry.start, end, "")

    def insert(self, container: Node, index: int, key: str | None, value: Any) -> None:
        entries = container.entries
        prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        if not entries:
            outer = self.indent_at(container.start)
            inner = outer + self.unit
            body = prefix + self.render(value, inner)
            return self.replace(container.start + 1, container.end - 1, f"\n{inner}{body}\n{outer}")
        if index < len(entries):
            following = entries[index]
            indent = self.indent_at(following.start)
            body = prefix + self.render(value, indent)
            if self._alone_on_line(following.start):
                return self.replace(following.start, following.start, f"{body},\n{indent}")
            return self.replace(following.start, following.start, f"{body}, ")
        last = entries[-1]
        indent = self.indent_at(last.start)
        body = prefix + self.render(value, indent)
        if last.comma is not None:  # a trailing comma: the new last member gets one too
            return self._insert_after_trailing_comma(container, last, indent, body)
        if not self._alone_on_line(last.start):
            return self.replace(last.node.end, last.node.end, f", {body}")
        after = last.node.end
        line_end = self._line_end(after)
        if line_end is None or line_end > container.end - 1 or self._opens_block(after, line_end):
            line_end = after
        # The comma first (at the value's end), then the new line after any comment.
        self.replace(line_end, line_end, f"\n{indent}{body}")
        return self.replace(after, after, ",")

    def _insert_after_trailing_comma(
        self, container: Node, last: Entry, indent: str, body: str
    ) -> None:
        assert last.comma is not None
        after = last.comma + 1
        if not self._alone_on_line(last.start):
            return self.replace(after, after, f" {body},")
        line_end = self._line_end(after)
        if line_end is None or line_end > container.end - 1 or self._opens_block(after, line_end):
            line_end = after
        return self.replace(line_end, line_end, f"\n{indent}{body},")

    def replace(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]

    # -- layout

    def render(self, value: Any, indent: str) -> str:
        dumped = json.dumps(value, indent=self.unit or None, ensure_ascii=False)
        return dumped.replace("\n", "\n" + indent)

    def indent_at(self, position: int) -> str:
        line_start = self.text.rfind("\n", 0, position) + 1
        match = re.match(r"[ \t]*", self.text[line_start:position])
        return match.group() if match else ""

    def _alone_on_line(self, position: int) -> bool:
        line_start = self.text.rfind("\n", 0, position) + 1
        return line_start > 0 and not self.text[line_start:position].strip()

    def _line_end(self, position: int) -> int | None:
        newline = self.text.find("\n", position)
        return None if newline < 0 else newline

    def _opens_block(self, start: int, end: int) -> bool:
        return self.dialect.comments and "/*" in self.text[start:end]

    def _has_comment(self, start: int, end: int) -> bool:
        return self.dialect.comments and (
            "//" in self.text[start:end] or "/*" in self.text[start:end]
        )


def _same_kind(node: Node, value: Any) -> bool:
    return (node.kind == "object" and isinstance(value, dict)) or (
        node.kind == "array" and isinstance(value, list)
    )


def _indent_unit(text: str) -> str:
    """The file's indentation step (two spaces when it has none)."""
    match = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    if match is None:
        return "  "
    indent = match.group(1)
    return "\t" if "\t" in indent else indent
