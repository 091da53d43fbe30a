"""Hypothesis strategies for what an agent (or a broken client) may send: mostly
well-formed requests aimed at the tasks that exist, and every kind of malformed one."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from plansight.protocol.models import METHODS
from plansight.protocol.requests import FORMATS, OP_NAMES

MISSING = object()

# Characters that have broken text handling somewhere: controls, line and paragraph
# separators, bidi overrides and isolates, zero-width and BOM, lone surrogates, NUL,
# combining marks, emoji.
NASTY = (
    "\x00\t\n\r\x0b\x0c\x1b\x7f\x85\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u200e\u200f\u061c\ufeff\u200b\ud800\udfff\U0001f389"
    "e\u0301 #>-[]*`<!---->"
)
WORDS = (
    "Run the build",
    "Fix the bug",
    "Write tests",
    "Ship it",
    "Deploy",
    "a",
    "b",
    "Read the logs",
)
SESSIONS = ("default", "s1", "é 🎉", "\u202es\u202c")
STATUSES = ("pending", "in_progress", "completed", "abandoned", "blocked")
PRIORITIES = ("high", "medium", "low", None)
OWNERS = ("lead", "sub-1", None)
ROUNDTRIP_SESSION = "reliability-roundtrip"
# Methods that are not ours: unknown ones, LSP requests we do not serve, and LSP
# notifications sent with an id (they must still get an answer).
OTHER_METHODS = (
    "plansight/nope",
    "plansight/Apply",
    "plansight/",
    "",
    "textDocument/hover",
    "workspace/symbol",
    "initialized",
    "$/cancelRequest",
    "$/setTrace",
    "textDocument/didOpen",
    "plansight/didChange",
)

# Any code point (surrogates included) around a run of the nasty ones. A text is one
# cheap draw for Hypothesis, a list of characters is one draw per character.
any_text = st.text(st.characters(exclude_categories=()), max_size=10)
random_text = st.builds(
    lambda head, nasty, tail: head + "".join(nasty) + tail,
    any_text,
    st.lists(st.sampled_from(tuple(NASTY)), max_size=5),
    any_text,
)
huge_text = st.builds(
    operator.mul,
    st.sampled_from(("x", "é", "\u202e", "ab\n", "🎉", " ")),
    st.integers(400, 120_000),
)


@dataclass(frozen=True)
class Ref:
    """A name that exists when the request is sent: the `index`-th content, id or phase
    name (modulo how many there are). Drawn blind, resolved late, so that what Hypothesis
    draws never depends on the server's state."""

    kind: str
    index: int


@st.composite
def text_from(draw: st.DrawFn, kind: str | None) -> Any:
    """Mostly names that exist, then wild text, rarely a huge string."""
    roll = draw(st.integers(0, 99))
    # Hypothesis starts from the simplest draws (zeros): keep those the ordinary case.
    if roll < 45 and kind is not None:
        return Ref(kind, draw(st.integers(0, 10_000)))
    if roll < 70:
        return draw(st.sampled_from(WORDS))
    if roll < 98:
        return draw(random_text)
    return draw(huge_text)


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    random_text,
)
junk = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(random_text, inner, max_size=4)
    ),
    max_leaves=6,
)


@dataclass(frozen=True)
class Deep:
    """A JSON value nested `depth` levels deep, kept as text: `json.dumps` cannot write
    what is past the interpreter's recursion limit."""

    depth: int
    as_dict: bool

    def json(self) -> str:
        if self.as_dict:
            return '{"k":' * self.depth + "0" + "}" * self.depth
        return "[" * self.depth + "0" + "]" * self.depth


deep = st.builds(
    Deep,
    st.sampled_from((3, 50, 500, 900, 950, 980, 995, 1100, 20_000)),
    st.booleans(),
)


@dataclass(frozen=True)
class Pool:
    """What exists right now."""

    contents: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()


def resolve(value: Any, pool: Pool) -> Any:
    """`value` with every Ref replaced by what it names now."""
    if isinstance(value, Ref):
        names = {"content": pool.contents, "id": pool.ids, "phase": pool.phases}[value.kind]
        fallback = ("t1", "t2") if value.kind == "id" else WORDS
        names = names or fallback
        return names[value.index % len(names)]
    if isinstance(value, Markdown):
        return "\n".join(prefix + resolve(text, pool) for prefix, text in value.lines)
    if isinstance(value, dict):
        return {key: resolve(inner, pool) for key, inner in value.items()}
    if isinstance(value, list):
        return [resolve(inner, pool) for inner in value]
    return value


def _maybe(draw: st.DrawFn, fields: dict[str, Any], key: str, strategy: Any) -> None:
    if draw(st.booleans()):
        fields[key] = draw(strategy)


@st.composite
def item(draw: st.DrawFn) -> Any:
    text = text_from("content")
    if draw(st.integers(0, 2)) == 0:
        return draw(text)
    fields: dict[str, Any] = {"content": draw(text)}
    _maybe(draw, fields, "activeForm", text)
    _maybe(draw, fields, "status", st.sampled_from(STATUSES))
    _maybe(draw, fields, "notes", st.lists(text, max_size=3))
    _v2_fields(draw, fields)
    return fields


def _v2_fields(draw: st.DrawFn, fields: dict[str, Any]) -> None:
    """Protocol 2's optional task fields, now and then, dependencies on what exists."""
    _maybe(draw, fields, "priority", st.sampled_from(PRIORITIES))
    _maybe(draw, fields, "owner", st.sampled_from(OWNERS))
    _maybe(draw, fields, "description", text_from(None))
    _maybe(
        draw,
        fields,
        "blockedBy",
        st.lists(
            st.one_of(text_from("content"), st.builds(Ref, st.just("id"), st.integers(0, 10_000))),
            max_size=2,
        ),
    )


@st.composite
def op(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(OP_NAMES))  # every op of the models
    fields: dict[str, Any] = {"op": name}
    target = text_from("content")
    task_id = st.one_of(
        st.builds(Ref, st.just("id"), st.integers(0, 10_000)), st.just("t999"), random_text
    )
    phase = text_from("phase")
    items = st.lists(item(), min_size=1, max_size=4)
    if name == "init":
        fields["list"] = draw(
            st.lists(
                st.fixed_dictionaries({"phase": phase, "items": items}), min_size=1, max_size=3
            )
        )
    elif name == "append":
        _maybe(draw, fields, "phase", phase)
        _maybe(draw, fields, "items", items)
    else:
        _maybe(draw, fields, "task", target)
        _maybe(draw, fields, "id", task_id)
        if name in ("done", "drop", "rm"):
            _maybe(draw, fields, "phase", phase)
        if name == "note":
            _maybe(draw, fields, "text", text_from(None))
        if name == "block":
            _maybe(draw, fields, "reason", text_from(None))
        if name == "update":
            _maybe(draw, fields, "content", target)
            _maybe(draw, fields, "status", st.sampled_from(STATUSES))
            _maybe(draw, fields, "addFiles", st.lists(text_from(None), max_size=3))
            _v2_fields(draw, fields)
    return fields


@st.composite
def write_item(draw: st.DrawFn) -> dict[str, Any]:
    text = text_from("content")
    fields: dict[str, Any] = {
        "content": draw(text),
        draw(st.sampled_from(("activeForm", "active_form"))): draw(text),
        "status": draw(st.sampled_from(STATUSES)),
    }
    _maybe(draw, fields, "id", st.builds(Ref, st.just("id"), st.integers(0, 10_000)))
    _maybe(draw, fields, "phase", text_from("phase"))
    _maybe(draw, fields, "notes", st.lists(text_from(None), max_size=3))
    _v2_fields(draw, fields)
    return fields


@dataclass(frozen=True)
class Markdown:
    """A checklist whose lines may name what exists (resolved late, as Ref is)."""

    lines: tuple[tuple[str, Any], ...]  # (prefix, text)


@st.composite
def markdown(draw: st.DrawFn) -> Markdown:
    lines = []
    marks = (" ", "x", "X", "/", ">", "-", "~", "?", "")
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(("heading", "task", "note", "junk", "blank")))
        text = draw(text_from("phase" if kind == "heading" else "content"))
        if kind == "heading":
            lines.append(("## ", text))
        elif kind == "task":
            lines.append((f"- [{draw(st.sampled_from(marks))}] ", text))
        elif kind == "note":
            lines.append(("  > ", text))
        elif kind == "junk":
            lines.append(("", text))
        else:
            lines.append(("", ""))
    return Markdown(tuple(lines))


# Every agent's statuses, and some no agent has.
AGENT_STATUSES = (
    "pending",
    "in_progress",
    "completed",
    "cancelled",
    "blocked",
    "not-started",
    "in-progress",
    "deleted",
    "done",
)


@st.composite
def agent_payload(draw: st.DrawFn, format_name: str) -> Any:
    """A payload in an agent's own shape (see tests/fixtures/agents/), its texts and
    statuses drawn as an agent might send them."""
    text = text_from("content")
    status = st.sampled_from(AGENT_STATUSES)
    priority = st.sampled_from(("high", "medium", "low", "_custom"))
    count = draw(st.integers(0, 5))

    def items(build: Any) -> list[Any]:
        return [build() for _ in range(count)]

    if format_name == "claude-todowrite":
        return {
            "todos": items(
                lambda: {"content": draw(text), "status": draw(status), "activeForm": draw(text)}
            )
        }
    if format_name == "claude-tasks":
        task_id = draw(st.sampled_from(("1", "2", "3", "")))
        if draw(st.booleans()):
            return {
                "tool_name": "TaskCreate",
                "tool_input": {"subject": draw(text), "description": draw(text)},
                "tool_response": {"task": {"id": task_id, "subject": "x"}},
            }
        update: dict[str, Any] = {"taskId": task_id, "status": draw(status)}
        _maybe(draw, update, "subject", text)
        _maybe(draw, update, "owner", st.sampled_from(("lead", "helper", "")))
        _maybe(draw, update, "addBlockedBy", st.lists(st.sampled_from(("1", "2", "9")), max_size=2))
        _maybe(draw, update, "addBlocks", st.lists(st.sampled_from(("1", "2", "9")), max_size=2))
        return {"tool_name": "TaskUpdate", "tool_input": update}
    if format_name == "codex-plan":
        plan: dict[str, Any] = {"plan": items(lambda: {"step": draw(text), "status": draw(status)})}
        _maybe(draw, plan, "explanation", text_from(None))
        return plan
    if format_name == "gemini-todos":
        return {"todos": items(lambda: {"description": draw(text), "status": draw(status)})}
    if format_name == "opencode-todos":
        return {
            "todos": items(
                lambda: {
                    "content": draw(text),
                    "status": draw(status),
                    "priority": draw(priority),
                    "id": draw(st.sampled_from(("a", "b", "c"))),
                }
            )
        }
    if format_name == "acp-plan":
        entries = items(
            lambda: {"content": draw(text), "status": draw(status), "priority": draw(priority)}
        )
        if draw(st.booleans()):
            return {"sessionUpdate": "plan", "entries": entries}
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p", "entries": entries},
        }
    if format_name == "vscode-todos":
        return {
            "operation": draw(st.sampled_from(("write", "write", "read"))),
            "todoList": items(
                lambda: {"id": draw(st.integers(1, 4)), "title": draw(text), "status": draw(status)}
            ),
        }
    if format_name == "roo-todos":
        marks = ("[ ] ", "[x] ", "[-] ", "- [~] ", "", "[?] ")
        lines = items(lambda: draw(st.sampled_from(marks)) + draw(st.sampled_from(WORDS)))
        return {"todos": "\n".join(lines)}
    return {"text": draw(markdown())}


@st.composite
def plansight_params(draw: st.DrawFn, method: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if method != "plansight/sessions" and draw(st.integers(0, 4)) < 4:
        params["session"] = draw(
            st.one_of(st.sampled_from(SESSIONS), random_text, st.just(""), huge_text)
            if draw(st.integers(0, 9)) == 9
            else st.sampled_from(SESSIONS)
        )
    changes = (
        "plansight/apply",
        "plansight/write",
        "plansight/clear",
        "plansight/import",
        "plansight/restore",
        "plansight/ingest",
        "plansight/undo",
    )
    if method in changes and draw(st.integers(0, 5)) == 5:
        params["origin"] = draw(st.sampled_from(("agent", "user", "robot")))
    if method in ("plansight/apply", "plansight/write") and draw(st.integers(0, 6)) == 6:
        params["baseVersion"] = draw(st.integers(-1, 40))
    if method == "plansight/apply":
        params["ops"] = draw(st.lists(op(), min_size=1, max_size=6))
    elif method == "plansight/write":
        params["todos"] = draw(st.lists(write_item(), max_size=6))
    elif method == "plansight/export":
        _maybe(draw, params, "format", st.sampled_from(("markdown", "json", "html")))
    elif method == "plansight/import":
        params["markdown"] = draw(markdown())
    elif method == "plansight/history":
        _maybe(draw, params, "limit", st.integers(0, 300))
    elif method == "plansight/restore":
        params["version"] = draw(st.integers(-1, 40))
    elif method == "plansight/ingest":
        params["format"] = draw(st.sampled_from(FORMATS))
        params["payload"] = draw(agent_payload(params["format"]))
        _maybe(draw, params, "title", text_from(None))
    return params


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out.extend(_paths(inner, (*prefix, key)))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out.extend(_paths(inner, (*prefix, index)))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    if new is MISSING and not rest:
        del copy[head]
        return copy
    copy[head] = _replace(value[head], tuple(rest), new)
    return copy


@st.composite
def mutated(draw: st.DrawFn, params: Any) -> Any:
    """Break a well-formed params object the ways clients do."""
    kind = draw(
        st.sampled_from(("wrong-type", "missing", "extra", "deep", "null", "not-object", "none"))
    )
    paths = _paths(params)
    if kind == "wrong-type" and paths:
        return _replace(params, draw(st.sampled_from(paths)), draw(junk))
    if kind == "missing" and paths:
        return _replace(params, draw(st.sampled_from(paths)), MISSING)
    if kind == "extra" and isinstance(params, dict):
        return {**params, draw(random_text): draw(junk)}
    if kind == "deep":
        if paths and draw(st.booleans()):
            return _replace(params, draw(st.sampled_from(paths)), draw(deep))
        return {**params, "nested": draw(deep)} if isinstance(params, dict) else draw(deep)
    if kind == "null":
        return None
    if kind == "not-object":
        return draw(st.one_of(st.lists(junk, max_size=3), json_scalars))
    return params


@dataclass(frozen=True)
class Request:
    method: str
    params: Any  # MISSING: no `params` member at all
    encoding: str  # "ascii" (escapes), "utf-8" (raw; lone surrogates make it invalid)
    notification: bool = False


@st.composite
def request(draw: st.DrawFn) -> Request:
    roll = draw(st.integers(0, 99))
    method = draw(st.sampled_from(OTHER_METHODS)) if roll >= 96 else draw(st.sampled_from(METHODS))
    params: Any = draw(plansight_params(method)) if method.startswith("plansight/") else draw(junk)
    if draw(st.integers(0, 3)) == 3:
        params = draw(mutated(params))
    if draw(st.integers(0, 19)) == 19:
        params = MISSING
    encoding = draw(st.sampled_from(("ascii", "ascii", "utf-8")))
    notification = draw(st.integers(0, 49)) == 49
    return Request(method, params, encoding, notification)
