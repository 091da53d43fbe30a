"""A conversation forked from another goes on from the plan it forked, in a session of its
own: Claude Code's `--fork-session` and Codex's `fork` start a new conversation, a new
session id, whose SessionStart says `source: "fork"`; Copilot CLI's `/branch` starts one
whose SessionStart says `source: "resume"`.

Which conversation was forked: Codex 0.171 writes the fork's rollout (`transcript_path`)
before the event, its first line the `session_meta` whose `payload.forked_from_id` names
it. Copilot CLI's fork log names it (`hook/copilot_fork.py`); a resume whose log names no
fork is a resume, not a fork. OpenCode's plugin names it in the event itself
(`forked_from`: the session id `opencode run --fork --session <id>` or `--continue`
forked, `setup/opencode_plugin.js`). Claude Code's event names none: its command line does
(`hook/fork_parent.py`: `--resume <id>`, or `--continue`'s newest transcript). Where
nothing names it (no `/proc`, a fork picked interactively), the hook takes the plan of
the conversation heard from last in the same folder (`FolderPlan`, as a `/clear` does),
which is the one forked when a person forks the one they just worked in.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from plansight.hook.conversation import ConversationFile

if TYPE_CHECKING:
    from plansight.hook.conversation import Conversation, FolderPlan
    from plansight.hook.hooked_agents import Agent

FORK_SOURCE = "fork"
# The most of a rollout's first line read: Codex's `session_meta` carries its instructions
# (about 40 KB in 0.171).
FIRST_LINE_BYTES = 1024 * 1024


def carry_on_after_fork(
    agent: str,
    event: dict[str, Any],
    cwd: str,
    own: str,
    conversation: Conversation,
    memory: ConversationFile,
    folder_plan: FolderPlan,
    facts: dict[str, str],
    agent_process: str | None = None,
) -> str | None:
    """Copy the forked conversation's plan into this one's session `own`, titled
    "<title> (fork)", and return the whole plan to tell the forked conversation (its
    context holds the plan as it was when forked, not as a person may have changed it
    since). None: there was no plan to fork, it is no fork (a Copilot CLI resume), or the
    store could not take it now."""
    from plansight.hook.plan_calls import NotStoredYet, context_for_agent, fork_plan, is_planned

    named = forked_from(event)
    if named is None and agent == "claude-code":
        from plansight.hook.fork_parent import claude_fork_parent

        named = claude_fork_parent(event, agent_process)
    if named is None and agent == "copilot":
        from plansight.hook.copilot_fork import copilot_fork_parent

        named = copilot_fork_parent(str(event.get("session_id")))
    if named is None and event.get("source") != FORK_SOURCE:
        return None  # a resume that is no fork: its conversation had no plan to go on
    # The folder's last planned conversation only where nothing names the one forked.
    parent = folder_plan.read() if named is None else _plan_of(memory, f"{agent}:{named}")
    if parent is None or parent == own or not is_planned(cwd, parent):
        return None
    try:
        facts["result"] = fork_plan(cwd, parent, own)
    except NotStoredYet as exc:
        # A session start is not spooled: the fork plans anew, as a conversation would.
        facts["result"] = f"not forked (the store is {exc.reason})"
        return None
    conversation.planned = True
    memory.write(conversation)
    folder_plan.write(own)  # the fork is the conversation heard from last here
    return context_for_agent(cwd, own, True, True)


def _plan_of(memory: ConversationFile, conversation: str) -> str | None:
    """The plan session of the agent's `conversation` (a cleared one's carries another's
    on), or None: it has no plan."""
    from plansight.protocol.text import clean_name

    name = clean_name(conversation)  # as `hook/run.py` names a conversation's session
    heard = ConversationFile(memory.folder, name).read()
    return heard.plan_session(name) if heard.planned else None


def forked_from(event: dict[str, Any]) -> str | None:
    """The session id of the conversation forked, where the event names it (OpenCode's
    plugin) or the fork's transcript does (Codex's `session_meta`); None where neither
    does (Claude Code)."""
    named = event.get("forked_from")
    if isinstance(named, str) and named.strip():
        return named
    path = event.get("transcript_path")
    if not isinstance(path, str):
        return None
    from plansight.regular_file import NotReadable, read_head

    try:
        head = read_head(path, FIRST_LINE_BYTES)
        meta = json.loads(head.split(b"\n", 1)[0]) if head is not None else None
    except (OSError, ValueError, NotReadable):
        return None
    payload = meta.get("payload") if isinstance(meta, dict) else None
    parent = payload.get("forked_from_id") if isinstance(payload, dict) else None
    return parent if isinstance(parent, str) and parent.strip() else None


def carry_on_after_clear(
    agent: Agent,
    cwd: str,
    own: str,
    conversation: Conversation,
    memory: ConversationFile,
    cleared: str | None,
) -> str | None:
    """A `/clear` starts a new conversation (a new session id) in the same folder: when
    the plan of the one it cleared (`cleared`: the agent's last planned conversation here,
    or the one the same agent process was in) has tasks not finished, this one carries it
    on in the same Plansight session, so the editor keeps one plan and the person's
    changes keep reaching the agent. Returns the whole plan to tell now, or None: nothing
    to carry on, or told at the next prompt (an agent whose `/clear` reads no context
    back)."""
    if cleared is None or cleared == own:
        return None
    from plansight.hook.plan_calls import context_for_agent, unfinished_plan

    if not unfinished_plan(cwd, cleared):
        return None
    conversation.continues = cleared
    conversation.planned = True
    conversation.compressed = not agent.clear_reads_context
    memory.write(conversation)
    if conversation.compressed:
        return None
    return context_for_agent(cwd, cleared, True, True)
