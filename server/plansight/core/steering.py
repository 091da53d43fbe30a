"""Steering: a whole list sent from a stale copy, merged with what others changed.

Three plans: `base`, the plan the sender last saw; `mine`, what the sender meant, the v2
replacement run on a copy of `base`; `current`, the plan now. Per task and field, the
sender's value wins where it differs from the base (it changed it), else the current one
stays (someone else's change survives the stale copy). For an agent (rules 1-6 of the
contract) nothing conflicts: its change wins, a person's removal stands, and what a person
created or the agent never saw is never removed by its list. For a person's stale edit (an
editor's `merge: true`) a field both changed differently, or a task one removed and the
other changed, is a conflict and nothing is merged.

Pure: no I/O. With `base` equal to `current` and no task of a person's, the result is
exactly `mine`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from plansight.core import merged_ids
from plansight.core.changes import describe_changes, snapshot
from plansight.core.context import change_phrases
from plansight.core.merged_ids import id_in, ids_in, renamed, settle_blockers, settle_parents
from plansight.core.merged_order import settle_positions
from plansight.core.model import SEEN_FIELDS, STATUS_STAMPS, Phase, Plan, Task
from plansight.core.nesting import settle
from plansight.core.persons_start import as_pending, keep_persons_starts, told_starts
from plansight.protocol.shape import camel

# The Task fields a full replacement may change, merged one by one ("phase" as well):
# every field a reader sees but the id and who created the task.
MERGED_FIELDS: tuple[str, ...] = tuple(n for n in SEEN_FIELDS if n not in ("id", "created_by"))
KEPT_LINE = "Kept the user's changes your list does not have: "
# The fields that name tasks: each side's ids compared as the merged plan names them.
_ID_FIELDS: dict[str, Callable[[Any, dict[str, str]], Any]] = {
    "blocked_by": ids_in,
    "parent": id_in,
}


@dataclass(frozen=True, slots=True)
class Conflict:
    """A field both sides changed differently ("task": one removed what the other
    changed), as `ContentModified`'s `data.conflicts` lists it."""

    id: str
    content: str
    field: str


@dataclass(frozen=True, slots=True)
class Limits:
    """The most tasks and phases a merged plan may hold (the `maxTasks` and `maxPhases`
    settings): a merge that would pass one changes nothing (issue 29)."""

    tasks: int
    phases: int


@dataclass(slots=True)
class Merged:
    kept: list[str] = field(default_factory=list)  # what `current` kept that `mine` lacked
    conflicts: list[Conflict] = field(default_factory=list)
    too_big: str | None = None  # the limit the merge would pass: nothing was merged

    @property
    def kept_line(self) -> str | None:
        """The summary's line telling the agent what was kept, if anything was, each change
        quoted as `context` quotes it."""
        return KEPT_LINE + change_phrases(self.kept) if self.kept else None


@dataclass(slots=True)
class _Match:
    mine: Task
    phase: str  # its phase in `mine`
    base: Task | None
    current: Task | None


def merge(
    base: Plan,
    mine: Plan,
    current: Plan,
    now: str,
    *,
    agent: bool,
    anew: bool = False,
    limits: Limits | None = None,
    mine_wins: bool = False,
) -> Merged:
    """Make `current` the merge of `mine` (sent from a copy of `base`) with it.

    `agent`: the agent's rules (no conflicts); else a person's three-way merge, which
    changes nothing when there are conflicts. `anew` (an `init`): `mine`'s tasks are new
    tasks whatever they continue, matched to the base by content; they take the merged
    values and the `createdBy` of the task they continue. `limits`: a merge that would
    pass one changes nothing (`too_big` says which). `mine_wins` (a person's `merge:
    "mine"`): each conflict takes the list's side instead, a task the list changed and
    others removed coming back as a new task of the person's."""
    was = current.sharing_tasks()  # the current plan before the merge: where parents were
    base_phase = {t.id: p.name for p, t in base.tasks_with_phase()}
    current_phase = {t.id: p.name for p, t in current.tasks_with_phase()}
    matches = _matches(base, mine, current, anew)
    result_id = _result_ids(matches, anew)
    conflicts: list[Conflict] = []
    # A side that wins no conflict: the agent (it has none) or the person's `mine`.
    clashes = None if agent or mine_wins else conflicts
    brought_back = _BroughtBack(mine, now) if mine_wins else None
    merged_ids.give_parents_back(base, mine, [(m.mine, m.base) for m in matches], result_id)
    merged = _merge_matched(
        matches, base_phase, current_phase, result_id, now, anew, clashes, brought_back
    )
    kept, seen_as_is = _left_out(base, current, base_phase, matches, result_id, agent, clashes)
    if conflicts:
        return Merged(conflicts=conflicts)
    if limits is not None and (too_big := _too_big(merged, kept, limits, agent)):
        return Merged(too_big=too_big)

    # The list's own result as it is now (`init`: before any task changes below).
    said = renamed(snapshot(mine), result_id) if anew else None
    if mine.title != base.title:
        current.title = mine.title
    _lay_out(current, mine, merged, kept)
    settle_blockers(
        current,
        result_id,
        [(r.task, r.current_blockers) for r in merged.values() if r.mine_won_blockers],
    )
    settle_parents(current, result_id, (was, base, mine))
    # A move among siblings that others made and the list did not is kept, and told.
    moved = settle_positions(current, base, was, mine, result_id)
    current.next_id = max(current.next_id, mine.next_id)
    # Rule 6: a task the person started since the base keeps it over the agent's.
    demoted = keep_persons_starts(current, _persons_starts(matches, kept), now) if agent else []
    # Parents' statuses as settle leaves them: the Kept line names what the result holds.
    settle(current, now)
    demoted_ids = {t.id for _, tasks in demoted for t in tasks}
    # The Kept line tells what a person changed since the base: a person's task the
    # sender saw as it is now, and left out of its list, is no news (told once, not twice).
    if said is not None:
        words = describe_changes(as_pending(said, demoted_ids), _without(current, seen_as_is))
    else:
        words = _kept_words(mine, current, merged, result_id, seen_as_is, demoted_ids, moved)
    return Merged(kept=told_starts(words, demoted))


def _result_ids(matches: list[_Match], anew: bool) -> dict[str, str]:
    """Every id of each side as the merged plan names it: blockedBy of each side compared
    alike."""
    result_id: dict[str, str] = {}
    for m in matches:
        rid = m.mine.id if anew or m.current is None else m.current.id
        result_id[m.mine.id] = rid
        if m.base is not None:
            result_id.setdefault(m.base.id, rid)
        if m.current is not None:
            result_id.setdefault(m.current.id, rid)
    return result_id


def _merge_matched(
    matches: list[_Match],
    base_phase: dict[str, str],
    current_phase: dict[str, str],
    result_id: dict[str, str],
    now: str,
    anew: bool,
    conflicts: list[Conflict] | None,
    brought_back: _BroughtBack | None,
) -> dict[str, _Result]:
    """The tasks of the sender's list, each merged with what it continues (by mine's id);
    a person's clashes are added to `conflicts` (None: no side conflicts, the list's
    wins). `brought_back`: a task the list changed and others removed comes back."""
    merged: dict[str, _Result] = {}
    for m in matches:
        if m.current is None:
            if m.base is not None:
                # Removed since the base by someone else: it stays removed (rule 5), unless a
                # person's stale edit changed it meanwhile (a conflict, or it comes back).
                changed = brought_back is not None or conflicts is not None
                if changed and _changed(m.base, base_phase[m.base.id], m.mine, m.phase, result_id):
                    if brought_back is not None:
                        task = brought_back.task(m.mine)
                        result_id[m.mine.id] = result_id[m.base.id] = task.id
                        merged[m.mine.id] = _Result(task, m.phase, None, [], False)
                    elif conflicts is not None:
                        conflicts.append(Conflict(m.base.id, m.base.content, "task"))
                continue
            merged[m.mine.id] = _Result(m.mine, m.phase, None, [], False)  # new (rule 2)
            continue
        c = m.current
        # A current task the base lacks is its own base: only the sender's list changes it.
        b = m.base if m.base is not None else c
        c_phase = current_phase[c.id]
        b_phase = base_phase.get(b.id, c_phase)
        task, phase, won, clashed = _merge_task(
            b, b_phase, m.mine, m.phase, c, c_phase, result_id, now, anew
        )
        if conflicts is not None:
            conflicts.extend(Conflict(c.id, c.content, camel(name)) for name in clashed)
        merged[m.mine.id] = _Result(task, phase, c.id, list(c.blocked_by), "blocked_by" in won)
    return merged


def _left_out(
    base: Plan,
    current: Plan,
    base_phase: dict[str, str],
    matches: list[_Match],
    result_id: dict[str, str],
    agent: bool,
    conflicts: list[Conflict] | None,
) -> tuple[list[_Result], set[str]]:
    """The current tasks the sender's list lacks that stay, and of those the ones the
    sender saw as they are now; a person's removal of a task others changed is added to
    `conflicts`."""
    matched_current = {m.current.id for m in matches if m.current is not None}
    kept: list[_Result] = []
    seen_as_is: set[str] = set()
    base_by_id = {t.id: t for t in base.tasks()}
    for in_phase, task in current.tasks_with_phase():
        if task.id in matched_current:
            continue
        result_id.setdefault(task.id, task.id)
        old = base_by_id.get(task.id)
        if old is None or (agent and task.created_by == "user"):
            # Never seen by the sender, or a person's task: a whole list does not remove
            # it (rule 4). Otherwise the sender removed it (rule 3).
            kept.append(
                _Result(
                    task,
                    in_phase.name,
                    task.id,
                    list(task.blocked_by),
                    False,
                    old.status if old is not None else None,
                )
            )
            if old is not None and not _changed(
                old, base_phase[old.id], task, in_phase.name, result_id
            ):
                seen_as_is.add(task.id)  # no change of a person's since the base
        elif conflicts is not None and _changed(
            old, base_phase[old.id], task, in_phase.name, result_id
        ):
            conflicts.append(Conflict(task.id, task.content, "task"))
        # Else the list removed it: gone (rule 3; `merge: "mine"`: the person's removal
        # wins over the change others made).
    return kept, seen_as_is


def _too_big(
    merged: dict[str, _Result], kept: list[_Result], limits: Limits, agent: bool
) -> str | None:
    """The limit the merged plan would pass, in words. The list itself is within them (the
    replacement checked it): what passes them is what the merge keeps of the current plan
    (an agent's: the person's tasks; a person's stale edit: the tasks added since)."""
    whose = "the user's tasks your list does not have" if agent else "the tasks added since"
    tasks = len(merged) + len(kept)
    if tasks > limits.tasks:
        return f"Too many tasks ({tasks} with {whose}, the limit is {limits.tasks})"
    phases = len({r.phase for r in merged.values()} | {r.phase for r in kept})
    if phases > limits.phases:
        return f"Too many phases ({phases} with {whose}, the limit is {limits.phases})"
    return None


def _without(plan: Plan, ids: set[str]) -> Plan:
    """`plan` as far as the Kept line looks at it: without the tasks `ids`."""
    if not ids:
        return plan
    shown = Plan(plan.session, title=plan.title)
    shown.phases = [Phase(p.name, [t for t in p.tasks if t.id not in ids]) for p in plan.phases]
    return shown


class _BroughtBack:
    """`merge: "mine"`: a task the person's list changed that others removed since comes
    back with the person's change, as a new task of the person's (an id never names two
    tasks: the removed one's stays gone)."""

    def __init__(self, mine: Plan, now: str) -> None:
        self._mine, self._now = mine, now

    def task(self, listed: Task) -> Task:
        task = listed.copy()
        task.id = self._mine.new_id()  # past every id of the current plan too (`steer`)
        task.created_by = "user"
        task.created_at = task.updated_at = self._now
        return task


@dataclass(slots=True)
class _Result:
    """A task of the merged plan and where it comes from."""

    task: Task
    phase: str
    current_id: str | None  # the current task it continues (None: new)
    current_blockers: list[str]  # that task's blockedBy (a cycle falls back to them)
    mine_won_blockers: bool
    base_status: str | None = None  # a task kept out of the list: its status in the base


def _matches(base: Plan, mine: Plan, current: Plan, anew: bool) -> list[_Match]:
    """Each task of `mine` with the base task it continues (by id; for `anew` by content)
    and that task now; a task new in `mine` with a current task the base lacks, or one
    renamed since, that has its content now."""
    base_by_id = {t.id: t for t in base.tasks()}
    current_by_id = {t.id: t for t in current.tasks()}
    base_by_content: dict[str, list[Task]] = {}
    for task in base.tasks():
        base_by_content.setdefault(task.content, []).append(task)
    used_base: set[str] = set()
    matches: list[_Match] = []
    for phase, task in mine.tasks_with_phase():
        b: Task | None = None
        if not anew:
            b = base_by_id.get(task.id)
        else:
            b = next(
                (t for t in base_by_content.get(task.content, ()) if t.id not in used_base), None
            )
        if b is not None:
            used_base.add(b.id)
        matches.append(
            _Match(task, phase.name, b, current_by_id.get(b.id) if b is not None else None)
        )
    taken = {m.current.id for m in matches if m.current is not None}
    unseen: dict[str, list[Task]] = {}
    for task in current.tasks():
        b = base_by_id.get(task.id)
        if task.id not in taken and (b is None or b.content != task.content):
            unseen.setdefault(task.content, []).append(task)
    for m in matches:
        if m.base is None:
            found = next((t for t in unseen.get(m.mine.content, ()) if t.id not in taken), None)
            if found is not None:
                taken.add(found.id)
                m.current = found
                m.base = base_by_id.get(found.id)
    return matches


def _merge_task(
    b: Task,
    b_phase: str,
    a: Task,
    a_phase: str,
    c: Task,
    c_phase: str,
    result_id: dict[str, str],
    now: str,
    anew: bool,
) -> tuple[Task, str, set[str], set[str]]:
    """The merged task, its phase, the fields whose value came from the list (`a`), and
    of those the ones the current task had changed too, differently (for a person's edit,
    conflicts)."""
    if not anew and a_phase == b_phase and a.seen() == b.seen():
        return c, c_phase, set(), set()  # the list left it as it was: as it is now
    if not anew and a.id == c.id and c_phase == b_phase and c.seen() == b.seen():
        # Nobody else changed it: as the list says (its stamps too).
        won = {name for name in MERGED_FIELDS if getattr(a, name) != getattr(b, name)}
        return a, a_phase, won | ({"phase"} if a_phase != b_phase else set()), set()
    task = a.copy() if anew else c.copy()
    if anew:
        task.created_by = c.created_by
    won = set()
    clashed: set[str] = set()
    for name in MERGED_FIELDS:
        av, bv, cv = getattr(a, name), getattr(b, name), getattr(c, name)
        if name in _ID_FIELDS:
            av, bv, cv = (_ID_FIELDS[name](v, result_id) for v in (av, bv, cv))
        if av != bv:
            won.add(name)
            if cv not in (bv, av):
                clashed.add(name)
        value = getattr(a if av != bv else c, name)
        setattr(task, name, list(value) if isinstance(value, list) else value)
    status_from = a if task.status == a.status else c
    for name in STATUS_STAMPS:  # they follow the side whose status won
        setattr(task, name, getattr(status_from, name))
    phase = c_phase
    if a_phase != b_phase:
        won.add("phase")
        if c_phase not in (b_phase, a_phase):
            clashed.add("phase")
        phase = a_phase
    if not anew and task.seen() != c.seen():
        task.updated_at = now
    return task, phase, won, clashed


def _changed(
    before: Task, before_phase: str, after: Task, after_phase: str, result_id: dict[str, str]
) -> bool:
    """Whether `after` differs from `before` in a merged field or its phase."""
    if before_phase != after_phase:
        return True
    for name in MERGED_FIELDS:
        old, new = getattr(before, name), getattr(after, name)
        if name in _ID_FIELDS:
            old, new = (_ID_FIELDS[name](v, result_id) for v in (old, new))
        if old != new:
            return True
    return False


def _lay_out(current: Plan, mine: Plan, merged: dict[str, _Result], kept: list[_Result]) -> None:
    """The list's phases and order; then each task that stays where the current plan has
    it (kept, or moved there by someone else): in its phase (a phase the list lacks goes
    after the phase before it), right after the nearest task before it still there."""
    phases: list[Phase] = []
    by_name: dict[str, Phase] = {}
    phase_of: dict[str, str] = {}  # merged task id -> its phase, once placed
    by_current: dict[str, Task] = {}  # current id -> merged task placed
    later: dict[str, Task] = {}  # current id -> merged task to place as the current plan has it
    for phase in mine.phases:
        for a in phase.tasks:
            result = merged.get(a.id)
            if result is None:
                continue
            if result.phase != phase.name:
                assert result.current_id is not None  # only a current phase differs
                later[result.current_id] = result.task
                continue
            if phase.name not in by_name:
                by_name[phase.name] = Phase(phase.name)
                phases.append(by_name[phase.name])
            by_name[phase.name].tasks.append(result.task)
            phase_of[result.task.id] = phase.name
            if result.current_id is not None:
                by_current[result.current_id] = result.task
    for result in kept:
        later[result.task.id] = result.task
    if later:
        for c_phase in current.phases:
            before: Task | None = None
            for c_task in c_phase.tasks:
                task = later.get(c_task.id)
                if task is None:
                    here = by_current.get(c_task.id)
                    if here is not None and phase_of.get(here.id) == c_phase.name:
                        before = here
                    continue
                target = by_name.get(c_phase.name)
                if target is None:
                    target = by_name[c_phase.name] = Phase(c_phase.name)
                    phases.insert(_phase_slot(current, phases, c_phase.name), target)
                at = 0 if before is None else target.tasks.index(before) + 1
                target.tasks.insert(at, task)
                phase_of[task.id] = c_phase.name
                before = task
    current.phases = [phase for phase in phases if phase.tasks]


def _phase_slot(current: Plan, phases: list[Phase], name: str) -> int:
    """Where a phase the list lacks goes: right after the nearest phase before it (in the
    current plan) that the merged plan has, else first."""
    names = [p.name for p in current.phases]
    present = [p.name for p in phases]
    for earlier in reversed(names[: names.index(name)]):
        if earlier in present:
            return present.index(earlier) + 1
    return 0


def _kept_words(
    mine: Plan,
    current: Plan,
    merged: dict[str, _Result],
    result_id: dict[str, str],
    seen_as_is: set[str],
    demoted: set[str],
    moved: set[str],
) -> list[str]:
    """What the merged plan (`current`) has that the list's own result lacks, in words:
    told of the tasks that differ only (the words of two whole plans cost more than the
    merge; most tasks are the list's own, the very objects). The tasks they wait for are
    looked at too, for their names, and their parents."""
    mine_tasks = {t.id: (p.name, t) for p, t in mine.tasks_with_phase()}
    present = {t.id for t in current.tasks()}
    shown: set[str] = set()
    for mine_id, (phase, task) in mine_tasks.items():
        result = merged.get(mine_id)
        rid = result_id.get(mine_id, mine_id)
        if result is None or rid not in present:
            shown.add(rid)  # removed by a person (rule 5)
        elif result.task is not task and (
            result.phase != phase or result.task.seen() != task.seen()
        ):
            shown.add(rid)
    kept = present.difference(result_id.get(i, i) for i in mine_tasks)
    shown |= (kept - seen_as_is) | moved
    if not shown and current.title == mine.title:
        return []
    by_result = {result_id.get(i, i): t for i, (_, t) in mine_tasks.items()}
    named = set(shown)
    for task in current.tasks():
        if task.id in shown:
            named.update([*task.blocked_by, *([task.parent] if task.parent else [])])
    for rid in shown:
        if rid in by_result:
            listed_task = by_result[rid]
            named.update(ids_in(listed_task.blocked_by, result_id))
            if listed_task.parent is not None:
                named.add(result_id.get(listed_task.parent, listed_task.parent))
    named -= seen_as_is  # on one side only, it would read as added
    listed = Plan(mine.session, title=mine.title)
    listed.phases = [
        Phase(p.name, [t for t in p.tasks if result_id.get(t.id, t.id) in named])
        for p in mine.phases
    ]
    merged_part = Plan(current.session, title=current.title)
    merged_part.phases = [
        Phase(p.name, [t for t in p.tasks if t.id in named]) for p in current.phases
    ]
    return describe_changes(as_pending(renamed(snapshot(listed), result_id), demoted), merged_part)


def _persons_starts(matches: list[_Match], kept: list[_Result]) -> set[str]:
    """The tasks in progress now that were not in the base (the person started them since,
    or added them started) and that the agent's list did not take out of progress: the
    merged plan's ids (rule 6)."""
    started: set[str] = set()
    for m in matches:
        c = m.current
        if (
            c is not None
            and c.status == "in_progress"
            and (m.base is None or m.base.status != "in_progress")
        ):
            started.add(c.id)
    for result in kept:
        task = result.task
        if task.status == "in_progress" and result.base_status != "in_progress":
            started.add(task.id)
    return started


@dataclass(slots=True)
class Steering:
    """How the full replacements of one request are merged (see `steer`), and what the
    merges said."""

    base: Plan | None  # the plan the sender last saw; None: the plan before the replacement
    agent: bool = True  # the agent's rules; else a person's three-way merge
    mine_wins: bool = False  # a person's `merge: "mine"`: each conflict takes its side
    kept: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    limits: Limits | None = None  # what the merged plan may hold
    # A replacement was merged, so its answer shows the sender the version it leaves.
    taken: bool = False

    @property
    def kept_line(self) -> str | None:
        return Merged(kept=self.kept).kept_line


def steer(
    plan: Plan,
    steering: Steering,
    replace: Callable[[Plan], list[str]],
    now: str,
    *,
    anew: bool = False,
) -> list[str]:
    """Run the v2 `replace` on a copy of the base (what the sender meant from what it saw)
    and merge that into `plan`. Returns `replace`'s error lines (then nothing changed);
    what it raises leaves `plan` as it was."""
    # The replacements build new tasks (they copy each task they carry over) and the
    # merge reads the base before it changes any task: they may share the Task objects.
    base = steering.base if steering.base is not None else plan.sharing_tasks()
    mine = base.sharing_tasks()
    mine.session, mine.creator = plan.session, plan.creator
    mine.next_id = max(plan.next_id, base.next_id)  # new ids never collide with current ones
    errors = replace(mine)
    if errors:
        return errors
    merged = merge(
        base,
        mine,
        plan,
        now,
        agent=steering.agent,
        anew=anew,
        limits=steering.limits,
        mine_wins=steering.mine_wins,
    )
    if merged.too_big is not None:
        return [merged.too_big]
    steering.kept.extend(merged.kept)
    steering.conflicts.extend(merged.conflicts)
    steering.taken = not merged.conflicts
    return []
