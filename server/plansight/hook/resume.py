"""A conversation forked from another goes on from the plan it forked, in a session of its
own: Claude Code's `--fork-session` (and `/branch`) starts a new conversation, a new
session id, whose SessionStart says `source: "fork"`.

That event names no parent (2.1.332: `session_id`, `transcript_path`, `cwd`, `source`,
and cache figures; the fork's transcript is not written yet when it runs, and its copied
messages carry the fork's session id): the hook takes the plan of the agent's conversation
heard from last in the same folder (`FolderPlan`, as a `/clear` does), which is the
conversation forked when a person forks the one they just worked in (`--continue
--fork-session`, `--resume <id> --fork-session` of the latest).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plansight.hook.conversation import Conversation, ConversationFile, FolderPlan

FORK_SOURCE = "fork"


def carry_on_after_fork(
    cwd: str,
    own: str,
    conversation: Conversation,
    memory: ConversationFile,
    folder_plan: FolderPlan,
    facts: dict[str, str],
) -> str | None:
    """Copy the forked conversation's plan into this one's session `own`, titled
    "<title> (fork)", and return the whole plan to tell the forked conversation (its
    context holds the plan as it was when forked, not as a person may have changed it
    since). None: there was no plan to fork, or the store could not take it now."""
    from plansight.hook.store import NotStoredYet, context_for_agent, fork_plan, is_planned

    parent = folder_plan.read()
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
