"""`plansight hook AGENT`: one hook event on stdin, exactly one JSON object on stdout.

The agent waits for this process on every matching tool call, so it never hurts the agent:
it exits 0 whatever happens, prints `{}` when it has nothing to say, gives up after a
deadline (a locked store included), and writes errors and timings to a log file under
the state folder instead of stdout or stderr. It starts lean: the events that need no
store touch only the standard library, and only a plan to ingest or a file to add loads
the service and its models.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from plansight.hook import MAX_EVENT_BYTES, HookError
from plansight.hook.compression import MANUAL, saw_compression
from plansight.hook.conversation import (
    Conversation,
    ConversationFile,
    FolderPlan,
    title_from_prompt,
)
from plansight.hook.event_fields import failed, plan_payload, session_name
from plansight.hook.hooked_agents import HOOK_AGENTS, Agent
from plansight.hook.resume import FORK_SOURCE, carry_on_after_clear, carry_on_after_fork
from plansight.logs import log_line
from plansight.paths import state_folder

if TYPE_CHECKING:
    from collections.abc import Callable

    from plansight.hook.spool import Dropped, Spool, Spooled
    from plansight.hook.spool_tidy import Kind
    from plansight.protocol.requests import Format

# A store another process keeps locked is given up on after 0.5 s (`hook/plan_calls.py`:
# STORE_BUSY_SECONDS), so even then the agent has its answer within a second. The alarm is only a backstop against a hang (a stuck file system): a machine under heavy
# load stretches a run that loads the models past a second, several at once past two,
# and cutting them would lose the plan. The agent's own limit (`plansight setup`) is 10 s.
DEADLINE_SECONDS = 9.0

Reply = dict[str, Any]


class _Deadline(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` swallows it."""


def main(
    argv: list[str],
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    cwd: str | None = None,
    warm: bool = False,
    deadline: float = DEADLINE_SECONDS,
    note: str | None = None,
    agent_process: str | None = None,
) -> int:
    """Run one hook event; always returns 0. `cwd`: the agent's folder, for an event that
    does not say (default: this process's); `warm`: run by the warm hook process;
    `deadline`: seconds left of the agent's wait (a relay that waited took some); `note`:
    why the warm process did not run it, for the log; `agent_process`: the process that
    ran the hook, as its relay saw it (`conversation_link.agent_process`)."""
    started = time.perf_counter()
    # pydantic looks for plugins in every installed package's metadata when it loads
    # (about 20 ms); the hook's few models need none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    out = stdout if stdout is not None else sys.stdout
    source = stdin if stdin is not None else sys.stdin.buffer
    # Whatever some library might print goes nowhere: stdout carries our one object only.
    saved_stdout, sys.stdout = sys.stdout, io.StringIO()
    agent_name = argv[0] if argv else ""
    facts: dict[str, str] = {"agent": agent_name or "-", "by": "warm" if warm else "own"}
    reply: Reply = {}
    outcome = "ok"
    previous_alarm = _set_alarm(deadline)
    try:
        agent = HOOK_AGENTS.get(agent_name)
        if agent is None:
            expected = ", ".join(HOOK_AGENTS)
            raise HookError(f"unknown agent {agent_name!r} (expected one of {expected})")
        event = _read_event(source)
        facts["event"] = str(_event_name(event) or "-")
        facts["tool"] = str(event.get("tool_name", "-"))
        reply = handle(agent, event, facts, cwd, agent_process=agent_process)
        if agent_process is not None:
            _link(agent, event, agent_process, cwd)
    except _Deadline:
        outcome = _out_of_time(facts, deadline)
    except HookError as exc:
        outcome = f"skipped: {exc}"
    except BaseException as exc:  # a bug, an interrupt: still exit 0 with `{}`
        outcome = _failure(exc)
    finally:
        _clear_alarm(previous_alarm)
        sys.stdout = saved_stdout
    try:
        out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()
    except (OSError, ValueError) as exc:  # the agent closed the pipe: nothing to tell it
        outcome += f"; reply not written: {exc.__class__.__name__}"
    if note:
        outcome += f" (in its own process: {note})"
    log_line(facts, outcome, time.perf_counter() - started)
    return 0


def handle(
    agent: Agent,
    event: dict[str, Any],
    facts: dict[str, str],
    own_cwd: str | None = None,
    replaying: bool = False,
    agent_process: str | None = None,
) -> Reply:
    """What to do with one event of `agent`, and what to tell it. `replaying`: a spooled
    event applied late (`hook/spool.py`), whose refusing store is its drain's to handle;
    `agent_process`: the process that ran the hook (`conversation_link.agent_process`)."""
    # VS Code's agent hooks name these two in camelCase (its hooks documentation).
    session_id = event.get("session_id", event.get("sessionId"))
    if not isinstance(session_id, str) or not session_id.strip():
        raise HookError("the event has no session_id")
    cwd = event.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        cwd = own_cwd or os.getcwd()
    # Events spooled while the store could not take them go first, in order (and before this
    # one's conversation is read: replaying them may change it); while some are still
    # waiting, this one's change waits behind them (`_stored`).
    behind = not replaying and _spooled_anywhere() and not _spool(cwd).drain(_replay)
    own = session_name(agent, session_id)
    memory = ConversationFile(state_folder() / "hooks", own)
    conversation = memory.read()
    session = conversation.plan_session(own)  # where its plan is kept
    heard = _Heard(
        agent,
        event,
        facts,
        cwd,
        session_id,
        own,
        session,
        memory,
        conversation,
        replaying,
        behind,
        agent_process,
    )
    facts["session"] = session
    name = _event_name(event)
    if name == agent.session_start:
        return _session_start(heard)
    if agent.compression is not None and name == agent.compression[0]:
        return _compression_asked(heard)
    if name == agent.model_request:
        if saw_compression(conversation, event.get("llm_request")):
            memory.write(conversation)
        return {}
    if name == agent.prompt:
        return _prompt(heard)
    if name == agent.after_tool:
        return _after_tool(heard)
    if name == agent.turn_end:
        return _turn_ended(heard)
    return {}


@dataclass
class _Heard:
    """One event being handled, and what it belongs to: its agent's conversation (as the
    hook remembers it) and the Plansight session where that conversation's plan is kept."""

    agent: Agent
    event: dict[str, Any]
    facts: dict[str, str]
    cwd: str
    session_id: str
    own: str  # the conversation's own session name
    session: str  # where its plan is kept (after a `/clear`, the cleared one's)
    memory: ConversationFile
    conversation: Conversation
    replaying: bool
    behind: bool  # events spooled before it are still waiting: its change waits too
    agent_process: str | None = None  # as its relay named it (`conversation_link`)

    @property
    def folder_plan(self) -> FolderPlan:
        """The plan last heard of in the event's folder, which a `/clear` carries on."""
        return FolderPlan(state_folder() / "hooks", self.agent.name, self.cwd)

    def remember(self) -> None:
        self.memory.write(self.conversation)

    def told_whole_if_compressed(self, told: str | None) -> str | None:
        """`told`, with the whole plan after it when the context lost it (this answer is
        the first to tell it, and the only one)."""
        if (
            not self.conversation.compressed
            or self.replaying
            or self.agent.compression_told_at_prompt
        ):
            return told
        self.conversation.compressed = False
        self.remember()
        return "\n".join(filter(None, (told, _context(self.cwd, self.session, True, True))))


def _session_start(heard: _Heard) -> Reply:
    agent, conversation = heard.agent, heard.conversation
    source = heard.event.get("source")
    heard.facts["source"] = str(source)
    heard.memory.forget_old()
    # Remembers when it was first seen, for its title; a compression is answered here.
    conversation.compressed = False
    heard.remember()
    from plansight.hook.plan_tool_note import plan_tool_note

    note = plan_tool_note(agent.name)  # which tool keeps the plan (setup's MCP server)
    told: str | None = None
    cleared = heard.folder_plan.read() if source == "clear" else _cleared_in_process(heard)
    if not conversation.planned and cleared is not None:
        told = carry_on_after_clear(
            agent, heard.cwd, heard.own, conversation, heard.memory, cleared
        )
        if conversation.continues is not None:
            heard.facts["session"] = conversation.continues
    elif not conversation.planned and source in (FORK_SOURCE, agent.fork_source):
        told = carry_on_after_fork(
            agent.name,
            heard.event,
            heard.cwd,
            heard.own,
            conversation,
            heard.memory,
            heard.folder_plan,
            heard.facts,
            heard.agent_process,
        )
    elif conversation.planned:
        # A compacted, resumed or cleared context lost the plan: say it again, whole.
        whole = source in agent.lost_context_sources
        told = _context(heard.cwd, heard.session, True, whole)
    return _reply(agent, agent.session_start, "\n".join(filter(None, (note, told))))


def _cleared_in_process(heard: _Heard) -> str | None:
    """The plan of the conversation this new one cleared, for an agent whose `/clear`
    starts as a fresh start does (`Agent.clear_starts_new`): the session of the other
    conversation of this folder the same agent process was in last (its link, written
    after each event), or None: a fresh start (another process), or nothing to tell by."""
    if not heard.agent.clear_starts_new or heard.event.get("source") != "new":
        return None
    if heard.agent_process is None:
        return None
    from plansight.conversation_link import link_folder, read_link

    link = read_link(link_folder(state_folder()), heard.agent_process)
    if link is None or link.shared or link.agent != heard.agent.name:
        return None
    if link.conversation == heard.own or link.folder != heard.cwd:
        return None
    return link.session


def _compression_asked(heard: _Heard) -> Reply:
    """A compression the person asked for (`/compress`), or one the agent made itself
    where it says so (Copilot CLI's trigger "auto"): the next answer tells the plan."""
    conversation, compression = heard.conversation, heard.agent.compression
    assert compression is not None
    if conversation.planned and heard.event.get("trigger") in compression[1].split("|"):
        conversation.compressed = True
        # The summary it makes shows in the next model request: already flagged.
        conversation.summary_seen = MANUAL + (conversation.summary_seen or "")
        heard.remember()
    return {}


def _prompt(heard: _Heard) -> Reply:
    agent, conversation = heard.agent, heard.conversation
    prompt = heard.event.get("prompt")
    titled = conversation.title is None and isinstance(prompt, str)
    if titled:
        conversation.title = title_from_prompt(str(prompt))
    whole, conversation.compressed = conversation.compressed, False
    if (titled and conversation.title is not None) or whole:
        heard.remember()
    if not conversation.planned:
        return {}
    heard.folder_plan.write(heard.session)  # the plan a `/clear` here carries on
    return _reply(agent, agent.prompt, _context(heard.cwd, heard.session, whole, whole))


def _after_tool(heard: _Heard) -> Reply:
    tool = heard.event.get("tool_name")
    if not isinstance(tool, str):
        raise HookError("the event has no tool_name")
    if failed(heard.event):
        return {}
    if tool in heard.agent.plan_tools:
        return _plan_tool(heard, tool)
    if tool in heard.agent.edit_tools and _plan_file_written(heard, tool):
        return {}  # the plan mode's plan, not a file of the task in progress
    if tool in heard.agent.edit_tools and heard.conversation.planned:
        return _edit_tool(heard, tool)
    return {}


def _plan_file_written(heard: _Heard, tool: str) -> bool:
    """Whether the edit wrote the agent's plan mode file (OpenCode's `.opencode/plans/`,
    Copilot CLI's session `plan.md`); OpenCode's is remembered for its plan mode's end."""
    from plansight.hook.files import edited_paths
    from plansight.hook.plan_mode import plan_mode_file

    paths = edited_paths(tool, heard.event.get("tool_input"))
    found = [plan_mode_file(heard.agent.name, heard.cwd, path) for path in paths]
    if not paths or None in found:
        return False
    if heard.agent.name == "opencode" and found[-1] != heard.conversation.plan_file:
        heard.conversation.plan_file = found[-1]
        heard.remember()
    heard.facts["result"] = "the plan mode's plan file"
    return True


def _plan_tool(heard: _Heard, tool: str) -> Reply:
    """A call of the agent's plan tool: its plan stored, and what a person changed told."""
    payload = plan_payload(
        heard.agent, tool, heard.event, heard.session_id, heard.facts, heard.conversation.plan_file
    )
    if payload is None:
        heard.facts["result"] = "no plan in this call"
        return {}
    stored, said = _plan_stored(heard, heard.agent.plan_tools[tool], payload, told=True)
    if not stored:
        return {}
    return _reply(heard.agent, heard.agent.after_tool, heard.told_whole_if_compressed(said))


def _turn_ended(heard: _Heard) -> Reply:
    """A turn's end (Codex's `Stop`): a plan its plan mode proposed in the last message
    (`<proposed_plan>`) stored as the conversation's plan. Its answer has no context to
    give the model, so a Kept line in it counts as unheard: the next prompt tells it."""
    from plansight.hook.plan_mode import proposed_plan

    payload = proposed_plan(heard.event)
    if payload is None:
        heard.facts["result"] = "no proposed plan"
        return {}
    _plan_stored(heard, "markdown", payload, told=False)
    return {}


def _plan_stored(heard: _Heard, fmt: Format, payload: Any, told: bool) -> tuple[bool, str | None]:
    """Ingest the agent's plan into the conversation's session: whether it was stored (not
    spooled), and what to tell the agent. `told`: the answer reaches the model."""
    from plansight.hook.plan_calls import ingest_plan
    from plansight.hook.spool_tidy import replaces_whole_plan

    agent, conversation, facts, session = (
        heard.agent,
        heard.conversation,
        heard.facts,
        heard.session,
    )
    title = None if conversation.planned else _title(agent, conversation)
    facts["stage"] = "storing the plan"
    stored = _stored(
        lambda: ingest_plan(
            heard.cwd, session, fmt, payload, title, heard=told and not heard.replaying
        ),
        heard.replaying,
        heard.behind,
        (agent.name, heard.event, heard.cwd),
        facts,
        lambda: (session, "list" if replaces_whole_plan(fmt, payload) else "ops"),
    )
    if stored is None:
        return False, None
    facts["result"], said = stored
    facts["stage"] = "stored"
    if not conversation.planned:
        conversation.planned = True
        heard.remember()
    heard.folder_plan.write(session)
    return True, said


def _edit_tool(heard: _Heard, tool: str) -> Reply:
    """A call of one of the agent's edit tools: the files it changed listed under the task
    in progress."""
    from plansight.hook.files import edited_paths, naming_only
    from plansight.hook.plan_calls import add_files

    event, facts, session = heard.event, heard.facts, heard.session
    paths = edited_paths(tool, event.get("tool_input"))
    facts["stage"] = "adding the files"
    # Spooled, the event keeps the files' names, not what was written to them.
    named = {key: value for key, value in event.items() if not key.startswith("tool_")}
    named |= {"tool_name": tool, "tool_input": naming_only(tool, event.get("tool_input"))}
    added = _stored(
        lambda: (add_files(heard.cwd, session, paths), None),
        heard.replaying,
        heard.behind,
        (heard.agent.name, named, heard.cwd),
        facts,
        lambda: (session, "files"),
    )
    if added is None:
        return {}
    facts["result"] = added[0]
    facts["stage"] = "stored"
    told = heard.told_whole_if_compressed(None)
    return _reply(heard.agent, heard.agent.after_tool, told) if told else {}


Stored = tuple[str, str | None]  # what happened, for the log; what to tell the agent


def _stored(
    write: Callable[[], Stored],
    replaying: bool,
    behind: bool,
    this: tuple[str, dict[str, Any], str],
    facts: dict[str, str],
    does: Callable[[], tuple[str, Kind]],
) -> Stored | None:
    """`write`'s result, or None when the event (`this`: its agent, itself, its folder;
    `does`: the plan session it changes and how, for the spool's bounds) was spooled
    for later instead: earlier spooled events are still waiting (`behind`:
    this one goes after them), or the store refused it for a fault that passes (locked
    past the hook's wait, out of reach). A
    spooled event `replaying` raises the store's refusal to the drain replaying it."""
    from plansight.hook.plan_calls import NotStoredYet

    if behind:
        why = "behind events spooled earlier"
    else:
        try:
            return write()
        except NotStoredYet as exc:
            if replaying:
                raise
            why = f"the store is {exc.reason}: {exc}"
    from plansight.hook.spool import NotSpooled

    try:
        dropped = _spool(this[2]).add(*this, *does())
    except OSError as exc:
        said = exc if isinstance(exc, NotSpooled) else exc.__class__.__name__
        facts["result"] = f"gave up ({why}); not spooled: {said}"
        return None
    facts["result"] = f"spooled for the next event ({why})"
    if dropped:
        facts["result"] += f"; {len(dropped)} spooled before it dropped (logged)"
    facts.pop("stage", None)
    for gone in dropped:
        _log_dropped(gone)
    return None


def _log_dropped(gone: Dropped) -> None:
    """One line for a spooled event the spool's bounds dropped: never silently."""
    entry = gone.entry
    facts = {"by": "spool", "agent": entry.agent if entry is not None else "-"}
    when = "?"
    if entry is not None:
        facts["event"] = str(_event_name(entry.event) or "-")
        facts["tool"] = str(entry.event.get("tool_name", "-"))
        facts["session"] = entry.session or "-"
        when = entry.spooled_at
    log_line(facts, f"dropped (spooled at {when}): {gone.why}", 0.0)


def _spooled_anywhere() -> bool:
    """Whether any event was ever spooled here: one look, before the project's spool is
    worked out (its workspace root and settings)."""
    from plansight.hook.spool import spool_folder

    return os.path.isdir(spool_folder(state_folder() / "hooks"))


def _spool(cwd: str) -> Spool:
    from plansight.hook.spool import Spool

    return Spool.of(state_folder() / "hooks", cwd)


def _replay(spooled: Spooled) -> None:
    """Apply one spooled event as its own hook run would have; logged as such."""
    from plansight.hook.plan_calls import NotStoredYet

    started = time.perf_counter()
    facts = {"agent": spooled.agent, "by": "spool"}
    outcome = f"applied (spooled at {spooled.spooled_at})"
    try:
        agent = HOOK_AGENTS.get(spooled.agent)
        if agent is None:
            raise HookError(f"unknown agent {spooled.agent!r}")
        facts["event"] = str(_event_name(spooled.event) or "-")
        facts["tool"] = str(spooled.event.get("tool_name", "-"))
        handle(agent, spooled.event, facts, spooled.cwd, replaying=True)
    except NotStoredYet as exc:
        outcome = f"the store is still {exc.reason}: spooled"
        raise
    except HookError as exc:
        outcome = f"skipped: {exc}"
    except Exception as exc:
        outcome = _failure(exc) + " (set aside)"
        raise
    finally:
        log_line(facts, outcome, time.perf_counter() - started)


def warm_up() -> None:
    """Load what the events that touch the store need (`plansight hook-daemon` does it
    before it listens; one event in its own process loads only what it needs)."""
    import plansight.context_round
    import plansight.hook.files
    import plansight.hook.plan_calls
    import plansight.service  # noqa: F401
    from plansight.store import load_backends

    load_backends()


def _title(agent: Agent, conversation: Conversation) -> str:
    return conversation.title or conversation.fallback_title(agent.name)


def _event_name(event: dict[str, Any]) -> Any:
    return event.get("hook_event_name", event.get("hookEventName"))


def _context(cwd: str, session: str, always: bool, whole: bool = False) -> str | None:
    from plansight.hook.plan_calls import context_for_agent

    return context_for_agent(cwd, session, always, whole)


def _reply(agent: Agent, event_name: str, context: str | None) -> Reply:
    """`{}`, or the context as each agent reads it: Claude Code, Codex and Gemini CLI all
    take `hookSpecificOutput.additionalContext` (Gemini appends it to the prompt or the
    tool result; the others add it to the model's context). Copilot CLI reads only its own
    top-level `additionalContext` (as a `<system_reminder>`, or after the tool's result),
    VS Code only the former: Copilot gets both, and each reads it once. An agent that
    frames the context itself gets it without our tags (`Agent.frames_context`)."""
    if not context:
        return {}
    if agent.frames_context:
        from plansight.core.fences import untagged

        context = untagged(context)
    reply: Reply = {
        "hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}
    }
    if agent.name == "copilot":
        reply["additionalContext"] = context
    return reply


def _read_event(source: IO[bytes]) -> dict[str, Any]:
    raw = source.read(MAX_EVENT_BYTES + 1)
    if len(raw) > MAX_EVENT_BYTES:
        raise HookError(f"the event is larger than {MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(raw)
    except ValueError as exc:
        raise HookError(f"the event is not JSON ({exc.__class__.__name__})") from None
    if not isinstance(event, dict):
        raise HookError("the event is not a JSON object")
    return event


def _out_of_time(facts: dict[str, str], seconds: float) -> str:
    """What the log says when the deadline struck: what had been done, truthfully."""
    stage = facts.pop("stage", None)
    if stage == "stored":  # the store has it; only the answer to the agent was cut short
        return f"stored, then out of time after {seconds:.1f} s (the agent got {{}})"
    if stage is not None:
        return (
            f"gave up after {seconds:.1f} s while {stage}: the store has the change"
            " only if it was committed before"
        )
    return f"gave up after {seconds:.1f} s, before the store was written"


def _expire(signum: int, frame: object) -> None:
    raise _Deadline()


def _link(agent: Agent, event: dict[str, Any], agent_process: str, own_cwd: str | None) -> None:
    """Link the agent's process to this event's conversation, for its MCP server
    (`conversation_link.py`). A state folder that cannot be written costs the link only."""
    from plansight.hook.conversation import link_agent_process

    own = session_name(agent, str(event.get("session_id", event.get("sessionId"))))
    starts = _event_name(event) == agent.session_start
    cwd = event.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        cwd = own_cwd or os.getcwd()  # as `handle` takes it
    try:
        link_agent_process(state_folder(), agent_process, agent.name, own, cwd, starts)
    except OSError as exc:
        log_line({"agent": agent.name}, f"not linked to its MCP server: {exc}", 0.0)


def _set_alarm(seconds: float) -> tuple[bool, Any]:
    """Raise `_Deadline` in the main thread after `seconds`, where alarms exist; returns
    whether it did and the handler it replaced."""
    if not hasattr(signal, "setitimer"):
        return False, None
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return True, previous


def _clear_alarm(alarm: tuple[bool, Any]) -> None:
    installed, previous = alarm
    if installed:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)


def _failure(exc: BaseException) -> str:
    from plansight.store.store_error import StoreError

    if isinstance(exc, StoreError):  # a lock held too long, a full disk, a read-only store
        return f"gave up: the store is {exc.reason}: {exc}"
    import traceback

    return "failed: " + "".join(traceback.format_exception(exc)).rstrip()
