"""The shape of a phase's tasks as a tree (protocol 4): a task's `parent` names another
task of the same phase; a task with subtasks is a parent, one without is a leaf.

A phase keeps its tasks in document order: every task's subtasks follow it, each with
its own subtasks, before its next sibling (a pre-order walk). So a task's subtree is one
contiguous run of the phase's list, starting at the task, and a client that knows
nothing of `parent` still reads every task in a sensible order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from plansight.core.model import Task


class PhaseTree:
    """One phase's tasks seen as a tree, built once from its list (in document order)
    and read many times; a change to the list needs a new PhaseTree."""

    __slots__ = ("_at", "_children", "tasks")

    def __init__(self, tasks: Sequence[Task]) -> None:
        self.tasks = tasks
        self._at = {task.id: index for index, task in enumerate(tasks)}
        self._children: dict[str | None, list[Task]] = {}
        for task in tasks:
            parent = task.parent if task.parent in self._at else None
            self._children.setdefault(parent, []).append(task)

    def children(self, task: Task | None) -> list[Task]:
        """The subtasks of `task` (None: the phase's top-level tasks), in order."""
        return self._children.get(task.id if task is not None else None, [])

    def is_parent(self, task: Task) -> bool:
        return task.id in self._children

    def parent_of(self, task: Task) -> Task | None:
        at = self._at.get(task.parent) if task.parent is not None else None
        return self.tasks[at] if at is not None else None

    def subtree(self, task: Task) -> list[Task]:
        """`task` and every task under it, in document order."""
        at = self._at.get(task.id)
        if at is None:
            return [task]
        # Document order: the subtree is the run after `task` of deeper tasks.
        end = at + 1
        while end < len(self.tasks) and self._below(self.tasks[end], task):
            end += 1
        return list(self.tasks[at:end])

    def _below(self, task: Task, ancestor: Task) -> bool:
        parent = self.parent_of(task)
        while parent is not None:
            if parent.id == ancestor.id:
                return True
            parent = self.parent_of(parent)
        return False

    def leaves(self, task: Task) -> list[Task]:
        """The tasks without subtasks under `task` (itself, when it has none)."""
        return [t for t in self.subtree(task) if not self.is_parent(t)]

    def depth(self, task: Task) -> int:
        """1 at the top of the phase, one more per parent above."""
        depth = 1
        parent = self.parent_of(task)
        while parent is not None:
            depth += 1
            parent = self.parent_of(parent)
        return depth

    def height(self, task: Task) -> int:
        """How many levels `task`'s subtree spans (1: a leaf)."""
        top = self.depth(task)
        return 1 + max((self.depth(t) - top for t in self.subtree(task)), default=0)

    def is_under(self, task: Task, ancestor: Task) -> bool:
        """Whether `task` is `ancestor` or one of its subtasks, at any depth."""
        return task.id == ancestor.id or self._below(task, ancestor)


def in_order(tasks: Sequence[Task]) -> bool:
    """Whether `in_document_order(tasks)` is `tasks` as they are: each task's parent is
    one of the tasks it follows the subtree of (the path from the top down to the task
    before it), or none of the others (the top level). One pass,
    without the dictionaries of a reordering: most changes leave the order as it was."""
    ids = {task.id for task in tasks}
    path: list[str] = []  # the ids from the top level down to the task before
    for task in tasks:
        parent = task.parent
        if parent is None or parent == task.id or parent not in ids:
            path.clear()  # at the top level
        else:
            while path and path[-1] != parent:
                path.pop()
            if not path:  # its parent comes later, or is in a cycle
                return False
        path.append(task.id)
    return True


def in_document_order(tasks: Iterable[Task]) -> list[Task]:
    """The tasks with each one's subtasks right after it (pre-order), siblings keeping
    the order they have in `tasks`. A `parent` naming no task of the list, or a cycle,
    puts the task at the top level: nothing is ever lost."""
    listed = list(tasks)
    ids = {task.id for task in listed}
    children: dict[str | None, list[Task]] = {}
    for task in listed:
        parent = task.parent if task.parent in ids and task.parent != task.id else None
        children.setdefault(parent, []).append(task)
    ordered: list[Task] = []
    placed: set[str] = set()

    def place(top: Task) -> None:
        # A walk with a stack of its own: a deep chain read from a damaged store must
        # not reach Python's recursion limit.
        stack = [top]
        while stack:
            task = stack.pop()
            if task.id in placed:
                continue
            placed.add(task.id)
            ordered.append(task)
            stack.extend(reversed(children.get(task.id, [])))

    for task in children.get(None, []):
        place(task)
    # A cycle (A under B under A) reaches none of its tasks from the top: lift them there.
    for task in listed:
        if task.id not in placed:
            task.parent = None
            place(task)
    return ordered
