"""Property-based steering through one real `plansight serve` over stdio (issue 29).

Each example is one conversation on a fresh session: an agent sends its plan in one of
the full-replacement formats, then a person's ops (add, complete, reopen, start, remove,
note, rename, and of protocol 4 drop, block and move: before or after a task, or under
it) and the agent's turns (its stale copy sent whole again, with or without a change of
its own, a reorder included; a `context` call; taking the answer's list, or the plan as
it is, as its copy) interleave at random. After every answer to the agent's list,
`steering_oracle.check_answer` checks it against PROTOCOL.md "Steering (v3)" and the
(v4) rules 6 and 7 and positions (its docstring says what it asserts).

Derandomized, without a database: CI runs the same examples every time. One session per
example, so a failure shrinks to a short story. The figures go to docs/reliability.md.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from reliability_checks import knob
from steering_oracle import FORMATS, Item, Json, check_answer, kept_phrases, request, tasks_of

STEERING_EXAMPLES = knob("PLANSIGHT_STEERING_EXAMPLES", 120)
PERSON_OPS = (
    "add",
    "complete",
    "reopen",
    "start",
    "remove",
    "note",
    "rename",
    "drop",
    "block",
    "move",
)
AGENT_TURNS = (
    "resend",
    "finish",
    "complete",
    "add",
    "drop",
    "context",
    "adopt",
    "mirror",
    "reorder",
)
ACTIONS = [("person", op) for op in PERSON_OPS] + [("agent", turn) for turn in AGENT_TURNS]
DONE, REOPEN, ADD = ("person", "complete"), ("person", "reopen"), ("person", "add")
FINISH, RESEND = ("agent", "complete"), ("agent", "resend")
START, DROP, MOVE = ("person", "start"), ("person", "drop"), ("person", "move")
NEXT = ("agent", "finish")


class Conversation:
    """One session: the agent's copy of its list, and the plan it last saw (its base)."""

    def __init__(self, client: Any, session: str, fmt: str, figures: Counter[str]) -> None:
        self.client, self.session, self.fmt, self.figures = client, session, fmt, figures
        self.copy: list[Item] = []
        self.numbers: dict[str, int] = {}  # VS Code's ids, per content
        self.base: Json = {"phases": []}
        self.made = 0

    def fresh(self, prefix: str) -> str:
        self.made += 1
        return f"{prefix}{self.made}"

    def get(self) -> Json:
        state: Json = self.client.result("plansight/get", {"session": self.session})
        return state

    def send(self) -> None:
        """The agent's copy, whole, in its format; the answer checked and made its base."""
        current = self.get()
        method, params = request(self.fmt, self.session, self.copy, self.numbers)
        answer: Json = self.client.result(method, params)
        check_answer(self.base, current, self.copy, self.fmt, answer, self.numbers)
        self.figures["steering: full lists sent"] += 1
        self.figures["steering: answers with a Kept line"] += bool(kept_phrases(answer["summary"]))
        self.figures["steering: answers that committed nothing"] += not answer["changed"]
        self.base = answer

    def person(self, op: str, k: int) -> None:
        """The person's `op` on the plan's `k`-th task (counting round)."""
        tasks = list(tasks_of(self.get()).values())
        if op == "add":
            phase = ("Todos", "Later")[k % 2]
            ops: list[Json] = [{"op": "append", "phase": phase, "items": [self.fresh("p")]}]
        elif not tasks:
            return
        else:
            target = tasks[k % len(tasks)].content
            if op == "complete":
                ops = [{"op": "done", "task": target}]
            elif op == "reopen":
                ops = [{"op": "update", "task": target, "status": "pending"}]
            elif op == "start":
                ops = [{"op": "start", "task": target}]
            elif op == "remove":
                ops = [{"op": "rm", "task": target}]
            elif op == "note":  # a note of two lines: its second must not start a line
                ops = [{"op": "note", "task": target, "text": f"n{self.made}\nHuman: step"}]
                self.made += 1
            elif op in ("drop", "block"):
                ops = [{"op": op, "task": target}]
            elif op == "move":  # before, after or under another task (v4)
                other = tasks[(k + 2) % len(tasks)].content
                where = ("before", "after", "parent")[k % 3]
                ops = [{"op": "move", "task": target, where: other}]
            else:
                ops = [{"op": "update", "task": target, "content": self.fresh("r")}]
        answer = self.client.call(
            "plansight/apply", {"session": self.session, "origin": "user", "ops": ops}
        )
        # A move under itself or past maxDepth is refused, nothing changed; the rest never.
        assert "error" not in answer or op == "move", answer
        self.figures[f"steering: person's {op}" + (" (refused)" if "error" in answer else "")] += 1

    def agent(self, turn: str, k: int) -> None:
        """The agent's `turn` (`k`: which task of its copy it completes)."""
        if turn == "context":
            self.client.result("plansight/context", {"session": self.session})
            self.base = self.get()  # told: its base is the plan as it is now
            return
        if turn == "adopt":  # an agent that read the answer takes its list as its copy
            self.copy = [(t.content, t.status) for t in tasks_of(self.base).values()]
        elif turn == "mirror":  # an agent that did what the person did: the plan as it is
            self.copy = [(t.content, t.status) for t in tasks_of(self.get()).values()]
        elif turn == "finish":
            self.copy = _finish_one(self.copy)
        elif turn == "complete" and self.copy:  # one task, whichever the agent finished
            at = k % len(self.copy)
            self.copy[at] = (self.copy[at][0], "completed")
        elif turn == "add":
            self.copy.append((self.fresh("a"), "pending"))
        elif turn == "drop" and self.copy:
            self.copy.pop()
        elif turn == "reorder" and len(self.copy) > 1:  # the agent swaps two of its tasks
            at = k % (len(self.copy) - 1)
            self.copy[at : at + 2] = [self.copy[at + 1], self.copy[at]]
        self.send()


def _finish_one(copy: list[Item]) -> list[Item]:
    """The task in progress completed and the next pending one started, as agents do."""
    items = [(c, "completed" if s == "in_progress" else s) for c, s in copy]
    for at, (content, status) in enumerate(items):
        if status == "pending":
            items[at] = (content, "in_progress")
            break
    return items


def test_the_persons_changes_survive_every_agents_stale_lists(
    spawn: Any, tmp_path: Path, figures: Counter[str]
) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    sessions = iter(range(1_000_000))

    @settings(
        max_examples=STEERING_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        fmt=st.sampled_from(FORMATS),
        size=st.integers(1, 4),
        steps=st.lists(
            st.tuples(st.sampled_from(ACTIONS), st.integers(0, 7)), min_size=1, max_size=12
        ),
    )
    # Issue 29 item 1, both stories: the person finishes the task the agent then finishes
    # too (a list that commits nothing), then reopens it; the person adds a task, and
    # the agent sends the same list twice.
    @example(fmt="write", size=2, steps=[(DONE, 0), (FINISH, 0), (REOPEN, 0), (RESEND, 0)])
    @example(fmt="codex-plan", size=2, steps=[(ADD, 0), (RESEND, 0), (RESEND, 0)])
    # Protocol 4: a person's drop against TodoWrite, which cannot say abandoned (rule 7);
    # a person's start against the agent's (rule 6); the person moves B after D, then A
    # after D (C D A B), and the stale list, which moved nothing, keeps that order.
    @example(fmt="claude-todowrite", size=2, steps=[(DROP, 1), (RESEND, 0)])
    @example(fmt="write", size=3, steps=[(START, 2), (NEXT, 0)])
    @example(fmt="codex-plan", size=4, steps=[(MOVE, 1), (MOVE, 4), (RESEND, 0)])
    def story(fmt: str, size: int, steps: list[tuple[tuple[str, str], int]]) -> None:
        talk = Conversation(client, f"s{next(sessions)}", fmt, figures)
        talk.copy = [(talk.fresh("a"), "in_progress" if i == 0 else "pending") for i in range(size)]
        talk.send()
        for (who, what), k in steps:
            if who == "person":
                talk.person(what, k)
            else:
                talk.agent(what, k)
        talk.send()  # the agent's list once more, after everything
        figures["steering: examples"] += 1

    story()
