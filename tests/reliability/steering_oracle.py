"""The steering property test's pieces: an agent's list in each full-replacement format,
and the oracle that checks an answer against PROTOCOL.md "Steering (v3)".

The oracle checks rules 1-5 as the current code has them, that the Kept line names only
what the result holds and is not said when no person changed anything since the base,
that every answer to a full replacement moves the base (the model's base is the plan the
previous answer showed: a server whose base stayed behind fails rules 1 and 5 and repeats
its Kept line), and that a person's added task and completion survive. Rules 6 and 7
(v4) and `merge: "mine"` belong to issue 32: where they would decide (a person's start
against the agent's, a status a format cannot carry), the oracle asserts nothing.
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
_MARKDOWN = {"pending": "[ ]", "in_progress": "[/]", "completed": "[x]"}

Item = tuple[str, str]  # (content, status) as the agent's list has it


def request(fmt: str, session: str, items: list[Item], numbers: dict[str, int]) -> tuple[str, Json]:
    """The method and params an agent's list of `items` is sent with in `fmt`; `numbers`
    gives VS Code's numeric ids, stable per content as the agent's own tool keeps them."""
    if fmt == "write":
        todos = [{"content": c, "activeForm": c, "status": s} for c, s in items]
        return "plansight/write", {"session": session, "todos": todos}
    payload: Json
    if fmt == "claude-todowrite":
        payload = {"todos": [{"content": c, "status": s, "activeForm": c} for c, s in items]}
    elif fmt == "codex-plan":
        payload = {"plan": [{"step": c, "status": s} for c, s in items]}
    elif fmt == "gemini-todos":
        payload = {"todos": [{"description": c, "status": s} for c, s in items]}
    elif fmt == "opencode-todos":
        payload = {"todos": [{"content": c, "status": s, "priority": "medium"} for c, s in items]}
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


def tasks_of(state: Json) -> dict[str, Seen]:
    """A TodoState's tasks by id."""
    return {
        t["id"]: Seen(
            t["content"], t["status"], t["createdBy"], p["name"], tuple(t["notes"]), t["externalId"]
        )
        for p in state["phases"]
        for t in p["tasks"]
    }


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
    result = by_content(r)
    sent = dict(items)
    b_ids = {t.content: i for i, t in b.items()}
    b_external = {t.external_id: i for i, t in b.items() if t.external_id is not None}
    expected: set[str] = set()
    matched: set[str] = set()  # the base's tasks the list names
    for content, status in items:
        number = str(numbers[content]) if fmt == "vscode-todos" else None
        old_id = b_external.get(number) or b_ids.get(content)
        if old_id is not None:
            matched.add(old_id)
        if old_id is None:  # new in the list (rule 2), or a current task it names
            expected.add(content)
            assert content in result, (content, "the agent's new task is missing")
            continue
        old, now = b[old_id], c.get(old_id)
        if now is None:  # the person removed it since the base: it stays removed (rule 5)
            assert content not in result or content in by_content(c), (content, "rule 5")
            continue
        # Rule 1: the agent's value where it changed it (a content only by VS Code's id,
        # a task renamed in its list), else the current one. Only "completed" is asserted
        # exactly: who keeps "in progress" is rule 6's (v4).
        name = content if content != old.content else now.content
        expected.add(name)
        got = result.get(name)
        assert got is not None, (name, "a task of the list and the plan is missing")
        want = status if status != old.status else now.status
        assert (got.status == "completed") == (want == "completed"), (name, want, got)
    for task_id, task in c.items():
        kept = task.created_by == "user" or task_id not in b
        if kept:  # rule 4: a person's task, or one the agent never saw
            expected.add(task.content)
            assert task.content in result, (task.content, "rule 4")
        elif task_id not in matched and task.content not in sent:
            assert task.content not in result, (task.content, "rule 3")
    assert set(result) <= expected | set(sent), (set(result) - expected, "a task from nowhere")
    _check_kept_line(b, c, r, items, fmt, answer["summary"])


def _check_kept_line(
    b: dict[str, Seen],
    c: dict[str, Seen],
    r: dict[str, Seen],
    items: list[Item],
    fmt: str,
    summary: str,
) -> None:
    phrases = kept_phrases(summary)
    if b == c:  # no change of a person's since the base: nothing to tell (issue 29)
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
    elif m := re.fullmatch(r'started "(.+)"', phrase):
        # Another task kept "in progress" over it is rule 6's (v4, issue 32): not asserted.
        assert m[1] in result, phrase
        assert result[m[1]].status == "in_progress" or in_progress, phrase
    elif m := re.fullmatch(r'added a note to "(.+)": "(.+)"', phrase, re.DOTALL):
        assert m[1] in result and m[2] in result[m[1]].notes, phrase
