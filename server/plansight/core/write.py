"""`plansight/write`: the strict, TodoWrite-compatible full replacement."""

from __future__ import annotations

from collections import Counter

from plansight.core.errors import FieldError, RequestRefused
from plansight.core.items import clean_notes, optional_fields
from plansight.core.limits import content_problem, phase_count_problem, task_count_problem
from plansight.core.model import DEFAULT_PHASE, Plan, Task
from plansight.core.nesting import depth_problem, settle
from plansight.core.rebuild import Entry, group_by_phase, rebuild
from plansight.core.settings import Settings
from plansight.protocol.requests import WriteItem
from plansight.protocol.text import clean_content

ONE_IN_PROGRESS = "Only one task can be in_progress at a time"


def write_todos(plan: Plan, items: list[WriteItem], settings: Settings, now: str) -> None:
    """Replace the list with `items`, or raise RequestRefused (the caller then drops the
    half-changed plan: nothing is committed)."""
    errors: list[FieldError] = []
    pairs: list[tuple[str, Entry]] = []
    parent_of: dict[int, int] = {}  # item index -> the index of the item it is under
    # The task each item continues (by id, else content), as `rebuild` will match it.
    kept = [_kept_task(plan, item.id, clean_content(item.content)) for item in items]
    for index, item in enumerate(items):
        path = f"todos.{index}"
        content = clean_content(item.content)
        active_form = clean_content(item.active_form)
        if not content:
            errors.append(FieldError(f"{path}.content", "Content must not be empty"))
        elif problem := content_problem(content, settings):
            errors.append(FieldError(f"{path}.content", problem))
        if not active_form:
            errors.append(FieldError(f"{path}.activeForm", "activeForm must not be empty"))
        elif problem := content_problem(active_form, settings, "Active form"):
            errors.append(FieldError(f"{path}.activeForm", problem))
        phase = clean_content(item.phase or "") or DEFAULT_PHASE
        if problem := content_problem(phase, settings, "Phase name"):
            errors.append(FieldError(f"{path}.phase", problem))
        if "parent" in item.named and item.parent is not None:
            under = _earlier_item(items, kept, index, clean_content(item.parent))
            if under is None:
                missing = f'No earlier item has the id or content "{clean_content(item.parent)}"'
                errors.append(FieldError(f"{path}.parent", missing))
            else:
                parent_of[index] = under
                phase = pairs[under][0]  # a subtask sits in its parent's phase
        notes = None
        if item.notes is not None:
            notes, problems = clean_notes(item.notes, content, settings)
            errors.extend(FieldError(f"{path}.notes", p) for p in problems)
        fields, problems = optional_fields(item, content, settings)
        errors.extend(FieldError(f"{path}.description", p) for p in problems)
        entry = Entry(content, item.status, active_form, notes, item.id, fields, item.blocked_by)
        entry.top_level = "parent" in item.named and item.parent is None
        pairs.append((phase, entry))

    # (v4) Leaves only: a parent item's own status is ignored, its subtasks set it.
    parents = _parent_items(kept, pairs, parent_of)
    owners = Counter(
        _owner(plan, entry)
        for index, (_, entry) in enumerate(pairs)
        if entry.status == "in_progress" and index not in parents
    )
    if any(count > 1 for count in owners.values()):
        errors.append(FieldError("todos", ONE_IN_PROGRESS))
    if problem := task_count_problem(len(items), settings):
        errors.append(FieldError("todos", problem))
    phases = group_by_phase(pairs)
    if problem := phase_count_problem(len(phases), settings):
        errors.append(FieldError("todos", problem))
    if not errors:
        item_of = {id(entry): index for index, (_, entry) in enumerate(pairs)}
        entries = [entry for phase in phases for entry in phase.entries]
        position_of = {id(entry): position for position, entry in enumerate(entries)}
        for index, under in parent_of.items():
            pairs[index][1].parent_entry = position_of[id(pairs[under][1])]
        for position, line in rebuild(plan, phases, now):
            errors.append(FieldError(f"todos.{item_of[id(entries[position])]}.blockedBy", line))
        errors.extend(_depth_errors(plan, entries, item_of, settings, now))
    if errors:
        message = ONE_IN_PROGRESS if any(e.message == ONE_IN_PROGRESS for e in errors) else None
        raise RequestRefused(errors, message)


def _earlier_item(
    items: list[WriteItem], kept: list[Task | None], index: int, ref: str
) -> int | None:
    """The item before `index` that `ref` names: by its `id` or its content, else by the
    id of the task it continues (an agent may name a task by the id it was given)."""
    for earlier in range(index):
        item = items[earlier]
        if (item.id is not None and clean_content(item.id) == ref) or clean_content(
            item.content
        ) == ref:
            return earlier
    for earlier in range(index):
        task = kept[earlier]
        if task is not None and task.id == ref:
            return earlier
    return None


def _parent_items(
    kept: list[Task | None], pairs: list[tuple[str, Entry]], parent_of: dict[int, int]
) -> set[int]:
    """The items that will have subtasks: named as `parent`, or holding the task that a
    task kept with its parent (an item without `parent`) is under."""
    parents = set(parent_of.values())
    index_of = {task.id: index for index, task in enumerate(kept) if task is not None}
    for index, (_, entry) in enumerate(pairs):
        task = kept[index]
        if index in parent_of or entry.top_level or task is None or task.parent is None:
            continue
        if task.parent in index_of:
            parents.add(index_of[task.parent])
    return parents


def _depth_errors(
    plan: Plan, entries: list[Entry], item_of: dict[int, int], settings: Settings, now: str
) -> list[FieldError]:
    """(v4) The first item in document order past maxDepth, at its `parent`."""
    item_of_task = {
        id(task): item_of[id(entry)] for task, entry in zip(plan.tasks(), entries, strict=True)
    }
    settle(plan, now)
    found = depth_problem(plan, settings.max_depth)
    if found is None:
        return []
    task, line = found
    return [FieldError(f"todos.{item_of_task[id(task)]}.parent", line)]


def _kept_task(plan: Plan, task_id: str | None, content: str) -> Task | None:
    """The task an item continues: by id, else by content (as `rebuild` matches)."""
    for task in plan.tasks():
        if task_id is not None and task.id == task_id:
            return task
    for task in plan.tasks():
        if task.content == content:
            return task
    return None


def _owner(plan: Plan, entry: Entry) -> str | None:
    """The item's owner, else that of the task it keeps (by id, then content)."""
    if "owner" in entry.fields:
        return entry.fields["owner"]  # type: ignore[no-any-return]
    for task in plan.tasks():
        if entry.id is not None and task.id == entry.id:
            return task.owner
    for task in plan.tasks():
        if task.content == entry.content:
            return task.owner
    return None
