"""A person steering from the terminal in plain verbs: `add`, `start`, `done`, `drop`,
`block`, `note`, `rm`, `move` and `undo`, each declared beside its handler. They act as the person
(`origin: "user"`) on the plan the agent is working on (the session an agent changed
last, or `--session`'s), print the plan as `plansight show` draws it, and never start a
task by themselves (only an agent's change may auto-start one). `apply`, `write` and
`ingest` stay the agents' (`cli/changing.py`)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from plansight.cli.command import (
    EXIT_OK,
    EXIT_RESULT_ERROR,
    BadInput,
    Command,
    store_flags,
)
from plansight.cli.output import console, out
from plansight.cli.stores import require_session, service_of

if TYPE_CHECKING:
    from plansight.core.model import Plan, Task
    from plansight.service import Outcome, PlanService

# Where `add` puts a task when no phase is named and the plan has none yet: the phase
# a TodoWrite list's tasks go to (PROTOCOL.md, `plansight/write`).
FIRST_PHASE = "Todos"
# A task's id as a person may type it: `t3`, `#3`, `#t3` or `3`.
_ID = re.compile(r"#?t?([0-9]+)")


def steered_session(service: PlanService, args: argparse.Namespace) -> str:
    """`--session`'s (which must exist: a typo must not make a plan of its own), else the
    session an agent changed last."""
    if args.session:
        return require_session(service, args)
    session = service.agent_session()
    if session is None:
        raise BadInput(
            "no agent has written a plan in this store yet, so there is none to steer; "
            "name a session with --session S (`plansight sessions` lists them)"
        )
    return session


def find_task(plan: Plan, name: str) -> Task:
    """The one task `name` names: its exact content, else its id (`t3`, `#3`, `3`), else
    its content in any case. Unknown or ambiguous: BadInput, naming what a person can type."""
    tasks = list(plan.tasks())
    exact = [task for task in tasks if task.content == name]
    if len(exact) == 1:
        return exact[0]
    if exact:
        raise _ambiguous(plan, name, exact)
    number = _ID.fullmatch(name.strip())
    task_id = f"t{number.group(1)}" if number is not None else name.strip()
    for task in tasks:
        if task.id == task_id:
            return task
    folded = " ".join(name.split()).casefold()
    loose = [task for task in tasks if " ".join(task.content.split()).casefold() == folded]
    if len(loose) == 1:
        return loose[0]
    if loose:
        raise _ambiguous(plan, name, loose)
    raise BadInput(
        f'no task "{name}" in the plan of session "{plan.session}"; name a task by its '
        "content or its id (`plansight show --format json` lists them)"
    )


def _ambiguous(plan: Plan, name: str, tasks: list[Task]) -> BadInput:
    phases = {task.id: phase.name for phase, task in plan.tasks_with_phase()}
    listed = ", ".join(f'{task.id} (phase "{phases[task.id]}")' for task in tasks)
    return BadInput(f'"{name}" names {len(tasks)} tasks: {listed}; name one by its id')


def add_phase(plan: Plan) -> str:
    """Where a person's new task goes when no phase is named: the phase of the task in
    progress (the work at hand), else of the first task not yet ended (the work to come),
    else the last phase (the plan is done: the new task comes after it), else the phase a
    TodoWrite list's tasks go to."""
    from plansight.core.model import FINISHED

    current = plan.current()
    for phase, task in plan.tasks_with_phase():
        if task is current or (current is None and task.status not in FINISHED):
            return phase.name
    return plan.phases[-1].name if plan.phases else FIRST_PHASE


# ---------------------------------------------------------------- running a verb


def _steer(args: argparse.Namespace, ops: Callable[[Plan], list[dict[str, Any]]]) -> int:
    """Run the ops made from the steered session's plan as the person, then print it.
    Tasks are named by id in the ops: the id stays the task's whatever changes meanwhile."""
    from plansight.protocol.requests import ApplyParams

    service = service_of(args)
    session = steered_session(service, args)
    params = {"session": session, "ops": ops(service.load(session)), "origin": "user"}
    return _print(service.apply(ApplyParams.validate(params), params), args.json)


def _print(outcome: Outcome, as_json: bool) -> int:
    """The plan as it now is (`plansight show`'s panel), or the whole result as JSON; the
    ops the server skipped, one line each on stderr (exit 1)."""
    if as_json:
        out(json.dumps(outcome.result, indent=2, ensure_ascii=False))
    else:
        from plansight.cli.panel import render_state
        from plansight.protocol.text import terminal_safe

        console().print(render_state(outcome.result))
        for error in outcome.errors:
            print(f"plansight: {terminal_safe(error)}", file=sys.stderr)
    return EXIT_RESULT_ERROR if outcome.is_error else EXIT_OK


def _person_flags(parser: argparse.ArgumentParser) -> None:
    store_flags(parser)
    parser.add_argument(
        "--session",
        metavar="S",
        help="the session (default: the one an agent changed last; `plansight sessions`)",
    )
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")


def _tasks_argument(parser: argparse.ArgumentParser, many: bool = True) -> None:
    _person_flags(parser)
    parser.add_argument(
        "tasks" if many else "task",
        nargs="+" if many else None,
        metavar="TASK",
        help="a task: its content, or its id (t3, #3 or 3)",
    )


def _on_each(op: str) -> Callable[[argparse.Namespace], int]:
    """A verb that names tasks and changes each of them with `op`."""

    def run(args: argparse.Namespace) -> int:
        names: Sequence[str] = getattr(args, "tasks", None) or [args.task]

        def ops(plan: Plan) -> list[dict[str, Any]]:
            # Every name found before anything changes: one unknown changes nothing.
            return [{"op": op, "id": find_task(plan, name).id} for name in names]

        return _steer(args, ops)

    return run


# ---------------------------------------------------------------- the verbs


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    _person_flags(parser)
    parser.add_argument("tasks", nargs="+", metavar="TASK", help="the task to add, as it reads")
    parser.add_argument(
        "--phase",
        metavar="P",
        help="the phase (default: the one of the task in progress, else of the next task "
        "to do, else the last); made when missing",
    )


def _add(args: argparse.Namespace) -> int:
    def ops(plan: Plan) -> list[dict[str, Any]]:
        phase = args.phase if args.phase is not None else add_phase(plan)
        return [{"op": "append", "phase": phase, "items": list(args.tasks)}]

    return _steer(args, ops)


ADD = Command(
    "add",
    "add a task to the agent's plan, pending (as the user)",
    _add_arguments,
    _add,
    description="Add tasks to the plan the agent is working on, as yours: pending, at the "
    "end of the phase of the task in progress (--phase P to choose). The agent is told "
    "and keeps them; nothing is started.",
)

START = Command(
    "start",
    "start a task (as the user)",
    lambda parser: _tasks_argument(parser, many=False),
    _on_each("start"),
    description="Mark a task in progress, as yours; the task in progress before it goes "
    "back to pending.",
)

DONE = Command(
    "done",
    "mark tasks completed (as the user)",
    _tasks_argument,
    _on_each("done"),
    description="Mark tasks completed, as yours. The next task is not started: the agent "
    "starts its next one.",
)

DROP = Command(
    "drop",
    "mark tasks abandoned (as the user)",
    _tasks_argument,
    _on_each("drop"),
    description="Mark tasks abandoned (they stay in the plan, struck out), as yours.",
)

RM = Command(
    "rm",
    "remove tasks from the plan (as the user)",
    _tasks_argument,
    _on_each("rm"),
    description="Remove tasks from the plan, as yours: the agent's stale list does not "
    "bring them back.",
)


def _block_arguments(parser: argparse.ArgumentParser) -> None:
    _tasks_argument(parser, many=False)
    parser.add_argument("--reason", metavar="R", help="why, added to the task as a note")


def _block(args: argparse.Namespace) -> int:
    def ops(plan: Plan) -> list[dict[str, Any]]:
        op: dict[str, Any] = {"op": "block", "id": find_task(plan, args.task).id}
        if args.reason is not None:
            op["reason"] = args.reason
        return [op]

    return _steer(args, ops)


BLOCK = Command(
    "block",
    "mark a task blocked (as the user)",
    _block_arguments,
    _block,
    description="Mark a task blocked: it cannot go on for now (waiting on you, a "
    "decision, something outside). Nothing else is started.",
)


def _note_arguments(parser: argparse.ArgumentParser) -> None:
    _tasks_argument(parser, many=False)
    parser.add_argument("text", metavar="TEXT", help="the note")


def _note(args: argparse.Namespace) -> int:
    def ops(plan: Plan) -> list[dict[str, Any]]:
        return [{"op": "note", "id": find_task(plan, args.task).id, "text": args.text}]

    return _steer(args, ops)


NOTE = Command(
    "note",
    "add a note to a task (as the user)",
    _note_arguments,
    _note,
    description="Add a note to a task, as yours; the agent is told, as of any change of yours.",
)


def _move_arguments(parser: argparse.ArgumentParser) -> None:
    _tasks_argument(parser, many=False)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--before", metavar="B", help="right before task B, beside it")
    where.add_argument("--after", metavar="B", help="right after task B (and its subtasks)")
    where.add_argument("--under", metavar="B", help="as the last subtask of task B")
    where.add_argument("--top", action="store_true", help="to the top level of its phase, last")
    where.add_argument("--phase", metavar="P", help="to the end of phase P (made when missing)")


def _move(args: argparse.Namespace) -> int:
    def ops(plan: Plan) -> list[dict[str, Any]]:
        op: dict[str, Any] = {"op": "move", "id": find_task(plan, args.task).id}
        if args.top:
            op["parent"] = None
        elif args.phase is not None:
            op["phase"] = args.phase
        else:
            # The server reads before/after/parent as an id first: the task B names.
            place, name = next(
                (place, name)
                for place, name in (
                    ("before", args.before),
                    ("after", args.after),
                    ("parent", args.under),
                )
                if name is not None
            )
            op[place] = find_task(plan, name).id
        return [op]

    return _steer(args, ops)


MOVE = Command(
    "move",
    "move a task, with its subtasks (as the user)",
    _move_arguments,
    _move,
    description="Move a task with its subtasks, as yours: --before B or --after B (beside "
    "task B), --under B (its last subtask), --top (the top level of its phase) or "
    "--phase P (the end of phase P). The agent is told and keeps the move.",
)


def _undo(args: argparse.Namespace) -> int:
    """Step back one change, as the person: a second undo steps back one more."""
    from plansight.protocol.requests import UndoParams

    service = service_of(args)
    params = {"session": steered_session(service, args), "origin": "user"}
    return _print(service.undo(UndoParams.validate(params), params), args.json)


UNDO = Command(
    "undo",
    "step back one change (as the user); again steps back one more",
    _person_flags,
    _undo,
    description="Step back one change of the plan the agent is working on (whoever made "
    "it), as yours; again steps back one more. `plansight history` lists the changes.",
    relayed=True,
)

# In the order `plansight --help` lists them.
VERBS: tuple[Command, ...] = (ADD, START, DONE, DROP, BLOCK, NOTE, RM, MOVE, UNDO)
