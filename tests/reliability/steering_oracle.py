"""The steering property test's pieces: an agent's list in each full-replacement format,
and the oracle that checks an answer against PROTOCOL.md "Steering (v3)" and its (v4)
rules.

The oracle checks rules 1-5, that the Kept line names only what the result holds and is
not said when no person changed anything since the base, that every answer to a full
replacement moves the base (the model's base is the plan the previous answer showed: a
server whose base stayed behind fails rules 1 and 5 and repeats its Kept line), and that
a person's added task and completion survive. Of protocol 4: rule 6 (a task the person
started since the base is the one leaf in progress, the agent's goes back to pending,
and `started "C" (so "B" is pending again)` holds), rule 7 (a status the format cannot
carry, shown as `pending`, keeps the current one), and positions merged as fields: a
task's parent is the list's where the list changed it (only `markdown` carries one: its
flat list makes each task top-level, a move only when it holds the base's parent), else
the current one, a gone parent's children
taking its place; and among the siblings that the base, the plan and the list all hold,
a list that kept the base's order leaves them in the plan's current order. `merge:
"mine"` (a person's stale edit) has its own tests (`tests/e2e/test_steering_v4.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]
KEPT = "Kept the user's changes your list does not have: "

# Every full replacement an agent sends: `write` (TodoWrite) and each ingest format.
FORMATS = (
    "write",
    "claude-todowrite",
    "codex-plan",
    "gemini-todos",
    "opencode-todos",
    "acp-plan",
    "vscode-todos",
    "roo-todos",
    "markdown",
)
_VSCODE = {"pending": "not-started", "in_progress": "in-progress", "completed": "completed"}
_ROO = {"pending": "[ ]", "in_progress": "[-]", "completed": "[x]"}
_MARKDOWN = {
    "pending": "[ ]",
    "in_progress": "[/]",
    "completed": "[x]",
    "abandoned": "[-]",
    "blocked": "[!]",
}
_CANCELLED = {"abandoned": "cancelled"}  # the formats' own word, where they have one
# The statuses each format can carry (docs/protocol.md, steering rule 7).
_THREE = frozenset({"pending", "in_progress", "completed"})
CARRIES: dict[str, frozenset[str]] = {
    "write": _THREE | {"abandoned", "blocked"},
    "markdown": _THREE | {"abandoned", "blocked"},
    "gemini-todos": _THREE | {"abandoned", "blocked"},
    "opencode-todos": _THREE | {"abandoned"},
    "claude-todowrite": _THREE,
    "codex-plan": _THREE,
    "acp-plan": _THREE,  # v1's `sessionUpdate: "plan"`, as sent here
    "vscode-todos": _THREE,
    "roo-todos": _THREE,
}


def shown(fmt: str, status: str) -> str:
    """A status as an agent's tool in `fmt` shows it: one it cannot carry as `pending`,
    the only way it can keep the task (Claude's TodoWrite after a person's drop)."""
    return status if status in CARRIES[fmt] else "pending"


Item = tuple[str, str]  # (content, status) as the agent's list has it


def request(fmt: str, session: str, items: list[Item], numbers: dict[str, int]) -> tuple[str, Json]:
    """The method and params an agent's list of `items` is sent with in `fmt`; `numbers`
    gives VS Code's numeric ids, stable per content as the agent's own tool keeps them."""
    items = [(c, shown(fmt, s)) for c, s in items]
    if fmt == "write":
        todos = [{"content": c, "activeForm": c, "status": s} for c, s in items]
        return "plansight/write", {"session": session, "todos": todos}
    payload: Json
    if fmt == "claude-todowrite":
        payload = {"todos": [{"content": c, "status": s, "activeForm": c} for c, s in items]}
    elif fmt == "codex-plan":
        payload = {"plan": [{"step": c, "status": s} for c, s in items]}
    elif fmt == "gemini-todos":
        todos = [{"description": c, "status": _CANCELLED.get(s, s)} for c, s in items]
        payload = {"todos": todos}
    elif fmt == "opencode-todos":
        todos = [
            {"content": c, "status": _CANCELLED.get(s, s), "priority": "medium"} for c, s in items
        ]
        payload = {"todos": todos}
    elif fmt == "acp-plan":
        entries = [{"content": c, "priority": "medium", "status": s} for c, s in items]
        payload = {"sessionUpdate": "plan", "entries": entries}
    elif fmt == "vscode-todos":
        todo_list = [
            {"id": numbers.setdefault(c, len(numbers) + 1), "title": c, "status": _VSCODE[s]}
            for c, s in items
        ]
        payload = {"operation": "write", "todoList": todo_list}
    elif fmt == "roo-todos":
        payload = {"todos": "\n".join(f"{_ROO[s]} {c}" for c, s in items)}
    else:
        payload = {"text": "".join(f"- {_MARKDOWN[s]} {c}\n" for c, s in items)}
    return "plansight/ingest", {"session": session, "format": fmt, "payload": payload}


@dataclass(frozen=True, slots=True)
class Seen:
    content: str
    status: str
    created_by: str
    phase: str
    notes: tuple[str, ...]
    external_id: str | None
    parent: str | None  # its id


def tasks_of(state: Json) -> dict[str, Seen]:
    """A TodoState's tasks by id, in document order."""
    return {
        t["id"]: Seen(
            t["content"],
            t["status"],
            t["createdBy"],
            p["name"],
            tuple(t["notes"]),
            t["externalId"],
            t.get("parent"),
        )
        for p in state["phases"]
        for t in p["tasks"]
    }


def leaves(tasks: dict[str, Seen]) -> dict[str, Seen]:
    """The tasks no task names as its parent (a parent's status is its subtasks')."""
    parents = {t.parent for t in tasks.values()}
    return {i: t for i, t in tasks.items() if i not in parents}


def by_content(tasks: dict[str, Seen]) -> dict[str, Seen]:
    return {t.content: t for t in tasks.values()}


def kept_phrases(summary: str) -> list[str]:
    """The Kept line's phrases (the tests' contents and notes hold no `; `), with the
    indented lines of a quoted note joined back."""
    lines = summary.split("\n")
    for at, line in enumerate(lines):
        if line.startswith(KEPT):
            text = line[len(KEPT) :]
            for more in lines[at + 1 :]:
                if not more.startswith("    "):
                    break
                text += "\n" + more[4:]
            return text.split("; ")
    return []


def check_answer(
    base: Json, current: Json, items: list[Item], fmt: str, answer: Json, numbers: dict[str, int]
) -> None:
    """An agent's list `items` (made from a stale copy), sent when the plan was `current`
    and the agent had last seen `base`, answered with `answer`. An item is the base's task
    of its id (VS Code's, `numbers`), else of its content, as the server matches them."""
    b, c, r = tasks_of(base), tasks_of(current), tasks_of(answer)
    items = [(content, shown(fmt, status)) for content, status in items]
    result = by_content(r)
    r_leaves = leaves(r)
    sent = dict(items)
    b_ids = {t.content: i for i, t in b.items()}
    b_external = {t.external_id: i for i, t in b.items() if t.external_id is not None}
    expected: set[str] = set()
    # The base's tasks the list names: id -> the status the agent gave it, None if unchanged.
    listed: dict[str, str | None] = {}
    for content, status in items:
        number = str(numbers[content]) if fmt == "vscode-todos" else None
        old_id = b_external.get(number) or b_ids.get(content)
        if old_id is not None:
            old_status = b[old_id].status
            unchanged = status == old_status or (
                old_status not in CARRIES[fmt] and status == "pending"
            )
            listed[old_id] = None if unchanged else status
        if old_id is None:  # new in the list (rule 2), or a current task it names
            expected.add(content)
            assert content in result, (content, "the agent's new task is missing")
            continue
        old, now = b[old_id], c.get(old_id)
        if now is None:  # the person removed it since the base: it stays removed (rule 5)
            assert content not in result or content in by_content(c), (content, "rule 5")
            continue
        # Rule 1: the agent's value where it changed it (a content only by VS Code's id,
        # a task renamed in its list), else the current one; rule 7: a status the format
        # cannot carry, shown as pending, is not the agent's change. A parent's status is
        # its subtasks', and who keeps "in progress" is rule 6's (below).
        name = content if content != old.content else now.content
        expected.add(name)
        got = result.get(name)
        assert got is not None, (name, "a task of the list and the plan is missing")
        unchanged = listed[old_id] is None
        want = now.status if unchanged else status
        if old_id in r_leaves:
            assert (got.status == "completed") == (want == "completed"), (name, want, got)
            if want in ("abandoned", "blocked"):
                assert got.status == want, (name, want, got, "rule 7" if unchanged else "rule 1")
    for task_id, task in c.items():
        kept = task.created_by == "user" or task_id not in b
        if kept:  # rule 4: a person's task, or one the agent never saw
            expected.add(task.content)
            assert task.content in result, (task.content, "rule 4")
        elif task_id not in listed and task.content not in sent:
            assert task.content not in result, (task.content, "rule 3")
    assert set(result) <= expected | set(sent), (set(result) - expected, "a task from nowhere")
    _check_persons_start(b, c, r, listed)
    _check_parents(b, c, r, listed, fmt)
    _check_positions(b, c, r, [i for i in _listed_order(items, fmt, b_ids, b_external, numbers)])
    _check_kept_line(b, c, r, items, fmt, answer["summary"])


def _listed_order(
    items: list[Item],
    fmt: str,
    b_ids: dict[str, str],
    b_external: dict[str | None, str],
    numbers: dict[str, int],
) -> list[str]:
    """The base's ids of the tasks the list names, in the list's order."""
    order = []
    for content, _ in items:
        number = str(numbers[content]) if fmt == "vscode-todos" else None
        old_id = b_external.get(number) or b_ids.get(content)
        if old_id is not None:
            order.append(old_id)
    return order


def _check_persons_start(
    b: dict[str, Seen], c: dict[str, Seen], r: dict[str, Seen], listed: dict[str, str | None]
) -> None:
    """Rule 6 (v4): of the leaves the person started since the base (or added started)
    that the list left alone, the first in the result keeps "in progress", and it is the
    only leaf in progress (one owner here: none)."""
    r_leaves = leaves(r)
    started = [
        i
        for i, t in c.items()
        if t.status == "in_progress"
        and (i not in b or b[i].status != "in_progress")
        and listed.get(i) in (None, "in_progress")
        and i in r_leaves
    ]
    if not started:
        return
    keeper = next(i for i in r_leaves if i in started)
    in_progress = [i for i, t in r_leaves.items() if t.status == "in_progress"]
    assert in_progress == [keeper], (
        "rule 6",
        r[keeper].content,
        [r[i].content for i in in_progress],
    )


def _check_parents(
    b: dict[str, Seen],
    c: dict[str, Seen],
    r: dict[str, Seen],
    listed: dict[str, str | None],
    fmt: str,
) -> None:
    """A task's parent: the list's where it changed it (a markdown list, flat here, makes
    each task it names top-level; a list that lacks the base's parent has not moved it),
    else the current one; a parent that is gone is replaced by its own parent."""
    for task_id, task in r.items():
        if task_id not in c:
            continue  # new in the list: top-level, or the list's
        want = c[task_id].parent
        if fmt == "markdown" and task_id in listed and b[task_id].parent in listed:
            want = None  # the agent's list moved it to the top level of a parent it holds
        while want is not None and want not in r:
            gone = c.get(want) or b.get(want)
            want = gone.parent if gone is not None else None
        got = r[task.parent].content if task.parent in r else task.parent
        named = r[want].content if want is not None else None
        assert task.parent == want, (task.content, "parent", got, named)


def _check_positions(
    b: dict[str, Seen], c: dict[str, Seen], r: dict[str, Seen], order: list[str]
) -> None:
    """Among the siblings that the base, the plan and the list all hold, a list that
    kept the base's order leaves them in the plan's current order (the person's moves)."""
    groups: dict[tuple[str, str | None], list[str]] = {}
    for task_id, task in r.items():
        if task_id in b and task_id in c and task_id in order:
            groups.setdefault((task.phase, task.parent), []).append(task_id)
    b_order, c_order = list(b), list(c)
    for common in groups.values():
        in_list = sorted(common, key=order.index)
        if in_list == sorted(common, key=b_order.index):
            want = sorted(common, key=c_order.index)
            assert common == want, (
                "position",
                [r[i].content for i in common],
                [r[i].content for i in want],
            )


def _check_kept_line(
    b: dict[str, Seen],
    c: dict[str, Seen],
    r: dict[str, Seen],
    items: list[Item],
    fmt: str,
    summary: str,
) -> None:
    phrases = kept_phrases(summary)
    # No change of a person's since the base (a move included): nothing to tell (issue 29).
    if list(b.items()) == list(c.items()):
        assert not phrases, ("a Kept line with nothing kept", phrases)
    sent = {content for content, _ in items}
    for task_id, task in c.items():
        if task_id not in b and task.created_by == "user" and task.content not in sent:
            assert any(p.startswith(f'added "{task.content}"') for p in phrases), (task, phrases)
    result = by_content(r)
    in_progress = [t for t in r.values() if t.status == "in_progress"]
    # A note's lines are quoted as `context` quotes them: none starts a line (item 8).
    assert not re.search(r"^Human:", summary, re.MULTILINE), summary
    for phrase in phrases:
        _check_phrase(phrase, result, in_progress, fmt)


def _check_phrase(phrase: str, result: dict[str, Seen], in_progress: list[Seen], fmt: str) -> None:
    """One phrase of the Kept line names what the result holds."""
    if m := re.fullmatch(r'added "(.+)" to phase "(.+)"', phrase):
        assert m[1] in result and result[m[1]].phase == m[2], phrase
    elif m := re.fullmatch(r'completed "(.+)"', phrase):
        assert m[1] in result and result[m[1]].status == "completed", phrase
    elif m := re.fullmatch(r'removed "(.+)"', phrase):
        assert m[1] not in result, phrase
    elif m := re.fullmatch(r'renamed "(.+)" to "(.+)"', phrase):
        assert m[2] in result, phrase
    elif m := re.fullmatch(r'marked "(.+)" pending', phrase):
        # Markdown imports as `import` does, which may start the first pending task.
        allowed = {"pending", "in_progress"} if fmt == "markdown" else {"pending"}
        assert m[1] in result and result[m[1]].status in allowed, phrase
    elif m := re.fullmatch(r'started "(.+?)" \(so (.+) (?:is|are) pending again\)', phrase):
        # Rule 6 (v4): the person's start holds, and what it set back is pending.
        assert m[1] in result and result[m[1]].status == "in_progress", phrase
        for name in re.findall(r'"(.+?)"', m[2]):
            assert name in result and result[name].status != "in_progress", phrase
    elif m := re.fullmatch(r'started "(.+)"', phrase):
        assert m[1] in result and result[m[1]].status == "in_progress", phrase
    elif m := re.fullmatch(r'added a note to "(.+)": "(.+)"', phrase, re.DOTALL):
        assert m[1] in result and m[2] in result[m[1]].notes, phrase
