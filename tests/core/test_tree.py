"""A phase's tasks as a tree: document order, subtrees, depth, and what a damaged list
(a parent that is gone, a cycle) becomes."""

from __future__ import annotations

import random

from plansight.core.model import Task
from plansight.core.tree import PhaseTree, in_document_order, in_order

NOW = "2026-01-01T00:00:00.000Z"


def task(id: str, parent: str | None = None) -> Task:
    return Task(id, id, id, "pending", [], NOW, NOW, parent=parent)


def ids(tasks: list[Task]) -> list[str]:
    return [t.id for t in tasks]


def test_document_order_puts_each_subtask_after_its_parent_keeping_sibling_order() -> None:
    listed = [task("b1", "b"), task("a"), task("b"), task("a1", "a"), task("b2", "b")]
    assert ids(in_document_order(listed)) == ["a", "a1", "b", "b1", "b2"]


def test_a_missing_parent_or_a_cycle_puts_the_task_at_the_top_and_loses_nothing() -> None:
    listed = [task("x", "gone"), task("c1", "c2"), task("c2", "c1"), task("y")]
    ordered = in_document_order(listed)
    assert sorted(ids(ordered)) == ["c1", "c2", "x", "y"]
    assert ids(ordered)[:2] == ["x", "y"]
    tree = PhaseTree(ordered)
    assert all(tree.depth(t) <= 2 for t in ordered)


def test_a_deep_chain_is_walked_without_recursion() -> None:
    chain = [task("t0")] + [task(f"t{i}", f"t{i - 1}") for i in range(1, 3000)]
    ordered = in_document_order(reversed(chain))
    assert ids(ordered) == ids(chain)
    tree = PhaseTree(ordered)
    assert len(tree.subtree(ordered[0])) == 3000


def test_subtree_leaves_depth_and_height() -> None:
    ordered = in_document_order(
        [task("a"), task("a1", "a"), task("a1x", "a1"), task("a2", "a"), task("b")]
    )
    tree = PhaseTree(ordered)
    a, a1, a1x, a2, b = ordered
    assert ids(tree.subtree(a)) == ["a", "a1", "a1x", "a2"]
    assert ids(tree.leaves(a)) == ["a1x", "a2"]
    assert ids(tree.children(None)) == ["a", "b"]
    assert (tree.depth(a), tree.depth(a1), tree.depth(a1x)) == (1, 2, 3)
    assert (tree.height(a), tree.height(b)) == (3, 1)
    assert tree.is_under(a1x, a) and not tree.is_under(a, a1x)
    assert tree.parent_of(a1x) is a1 and tree.is_parent(a1) and not tree.is_parent(a2)


def test_in_order_says_exactly_when_document_order_would_leave_the_list_as_it_is() -> None:
    # What lets `settle` skip the reordering: every list of up to seven tasks with parents
    # among them, gone, themselves or in cycles, drawn at random with a fixed seed.
    draw = random.Random(34)
    for _ in range(3000):
        names = [f"t{i}" for i in range(draw.randint(0, 7))]
        listed = [
            task(name, draw.choice([None, None, "gone", *names]))
            for name in draw.sample(names, len(names))
        ]
        before = [(t.id, t.parent) for t in listed]
        answer = in_order(listed)
        assert [(t.id, t.parent) for t in listed] == before  # it changes nothing
        ordered = in_document_order([t.copy() for t in listed])
        # (a cycle is broken by lifting a task to the top: not the list as it was)
        assert answer == ([(t.id, t.parent) for t in ordered] == before), before
