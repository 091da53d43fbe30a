"""What the hook remembers of one agent conversation between its runs: the title its first
prompt gives, when it was first seen, whether it has a plan in the store yet, and whether
its context lost that plan in a compression the hook could not answer at once.

A small JSON file per conversation under the state folder, so that the events that come
before any plan (the session start, the first prompt, edits) never open the store.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

from plansight.conversation_link import (
    Link,
    folder_plan_path,
    link_folder,
    memory_path,
    record_link,
)

TITLE_LENGTH = 80
FORGET_AFTER_SECONDS = 30 * 24 * 3600  # a conversation not heard of for a month is over


class Conversation:
    __slots__ = (
        "compressed",
        "continues",
        "first_seen",
        "plan_file",
        "planned",
        "summary_seen",
        "title",
    )

    def __init__(
        self,
        title: str | None = None,
        first_seen: str = "",
        planned: bool = False,
        compressed: bool = False,
        continues: str | None = None,
        summary_seen: str | None = None,
        plan_file: str | None = None,
    ):
        self.title = title  # the first line of the first prompt
        self.first_seen = first_seen  # local HH:MM, the title of a conversation without prompt
        self.planned = planned  # a plan of this conversation was written to the store
        # The agent's context lost the plan and read nothing back (a compression, Gemini
        # CLI's `/clear`): its next prompt is told the whole plan.
        self.compressed = compressed
        # The Plansight session this conversation carries on, when it began with `/clear`
        # of a conversation whose plan was not finished (None: its own).
        self.continues = continues
        # A digest of the compression summary the agent's model requests last began with
        # (Gemini CLI): a new one means its context was compressed again.
        self.summary_seen = summary_seen
        # The plan file its plan mode last wrote (OpenCode's `.opencode/plans/*.md`): what
        # its plan mode's end (`plan_exit`, which names none) approved.
        self.plan_file = plan_file

    def plan_session(self, own: str) -> str:
        """The session its plan is kept in: the cleared conversation's, or `own`."""
        return self.continues or own

    def fallback_title(self, agent: str) -> str:
        return f"{agent} {self.first_seen or time.strftime('%H:%M')}"


_HOOK_CONTEXT = re.compile(r"\A\s*(?:<hook_context>.*?</hook_context>\s*)+", re.DOTALL)


def title_from_prompt(prompt: str) -> str | None:
    """The first non-blank line of a prompt, cleaned, at most 80 characters. What the agent
    put before the person's words from its hooks is not theirs: Gemini CLI prepends a
    SessionStart hook's context to the first prompt as `<hook_context>...</hook_context>`."""
    from plansight.protocol.text import clean_content

    prompt = _HOOK_CONTEXT.sub("", prompt)
    for line in prompt.splitlines():
        title = clean_content(line)
        if title:
            if len(title) > TITLE_LENGTH:
                title = title[: TITLE_LENGTH - 1].rstrip() + "…"
            return title
    return None


class ConversationFile:
    """The file of one conversation, named by a hash of `<agent>:<session_id>`."""

    def __init__(self, folder: Path, session: str) -> None:
        self.folder = folder
        self.path = memory_path(folder, session)  # where the MCP server marks it planned

    def read(self) -> Conversation:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Conversation(first_seen=time.strftime("%H:%M"))
        if not isinstance(raw, dict):
            return Conversation(first_seen=time.strftime("%H:%M"))
        title = raw.get("title")
        first_seen = raw.get("first_seen")
        continues = raw.get("continues")
        summary_seen = raw.get("summary_seen")
        plan_file = raw.get("plan_file")
        return Conversation(
            title=title if isinstance(title, str) else None,
            first_seen=first_seen if isinstance(first_seen, str) else "",
            planned=raw.get("planned") is True,
            compressed=raw.get("compressed") is True,
            continues=continues if isinstance(continues, str) and continues else None,
            summary_seen=summary_seen if isinstance(summary_seen, str) else None,
            plan_file=plan_file if isinstance(plan_file, str) and plan_file else None,
        )

    def write(self, conversation: Conversation) -> None:
        """Atomically: two hooks of one conversation may run at once."""
        record = {
            "title": conversation.title,
            "first_seen": conversation.first_seen,
            "planned": conversation.planned,
            "compressed": conversation.compressed,
            "continues": conversation.continues,
            "summary_seen": conversation.summary_seen,
            "plan_file": conversation.plan_file,
        }
        _write_atomically(self.folder, self.path, record)

    def forget_old(self) -> None:
        """Remove the files of conversations not heard of for a month."""
        limit = time.time() - FORGET_AFTER_SECONDS
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".json") and entry.stat().st_mtime < limit:
                        os.unlink(entry.path)
        except OSError:
            pass  # another hook removed it first, or the folder is not there yet


class FolderPlan:
    """The plan an agent last worked on in one folder: the conversation a `/clear` there
    leaves. The cleared conversation's SessionStart carries only the new session id and
    the folder (Claude Code, Codex and Gemini CLI alike), so the hook keeps, per agent and
    folder, the Plansight session of the planned conversation heard from last."""

    def __init__(self, folder: Path, agent: str, cwd: str) -> None:
        self.folder = folder
        self.path = folder_plan_path(folder, agent, cwd)  # the MCP server writes it too

    def read(self) -> str | None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        session = raw.get("session") if isinstance(raw, dict) else None
        return session if isinstance(session, str) and session else None

    def write(self, session: str) -> None:
        """Remember `session`; written only when it is another (prompts come often)."""
        if self.read() != session:
            _write_atomically(self.folder, self.path, {"session": session})


def link_agent_process(state: Path, key: str, agent: str, own: str, cwd: str, starts: bool) -> None:
    """Note that the agent process `key` (`conversation_link.agent_process`), working in
    `cwd`, is in the conversation `own` (`<agent>:<session_id>`), so that its MCP server
    writes the plan this conversation keeps, under its title. `starts`: the event starts
    the conversation."""
    conversation = ConversationFile(state / "hooks", own).read()
    title = conversation.title or conversation.fallback_title(agent)
    link = Link(agent, own, conversation.plan_session(own), title, cwd)
    record_link(link_folder(state), key, link, starts)


def _write_atomically(folder: Path, path: Path, record: Mapping[str, object]) -> None:
    """Two hooks of one conversation may run at once: a reader sees a whole file."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record), encoding="utf-8")
    os.replace(temporary, path)
