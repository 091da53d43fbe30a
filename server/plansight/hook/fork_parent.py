"""Which conversation Claude Code forked (`--fork-session`), from what Claude Code gives.

Its SessionStart (`source: "fork"`) names no parent (2.1.332: `session_id`,
`transcript_path`, `cwd`, `source`, cache figures), and the fork's transcript is written
only after its first tool call (its copied records then keep the parent's `uuid`s but
carry the fork's `sessionId`). What names the parent at the session's start is how
Claude Code was asked to fork, on its own command line: `--resume <id>` (or `-r`, or a
transcript's path) forks that conversation; `--continue` (`-c`) the folder's most recent
one, whose transcript is the newest in the folder of the fork's `transcript_path`
(Claude Code keeps a project's conversations side by side there). The hook reads the
command line of the agent's process as its relay named it (`conversation_link`:
pid and start time, so a pid given again to another process is never read). None: no
such process (no `/proc`), or a fork picked interactively (`--resume` with no id).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_RESUME = ("--resume", "-r")
_CONTINUE = ("--continue", "-c")
_CMDLINE_BYTES = 256 * 1024


def claude_fork_parent(event: dict[str, Any], agent_process: str | None) -> str | None:
    """The session id of the conversation the fork in `event` was made from, or None."""
    words = _command_line(agent_process)
    if words is None:
        return None
    own = event.get("session_id")
    for at, word in enumerate(words):
        named = word.split("=", 1)[1] if word.startswith("--resume=") else None
        if named is None and word in _RESUME and at + 1 < len(words):
            named = words[at + 1]
        if named is not None and named and not named.startswith("-"):
            # An id, or a transcript's path (`<id>.jsonl`).
            parent = Path(named).stem if named.endswith(".jsonl") else named
            return parent if parent != own else None
    if any(word in _CONTINUE for word in words):
        return _newest_conversation(event.get("transcript_path"), own)
    return None


def _command_line(agent_process: str | None) -> list[str] | None:
    """The agent process's arguments, when `agent_process` (`<pid>-<start>`) still names it."""
    from plansight.conversation_link import process_key

    if agent_process is None:
        return None
    pid = agent_process.split("-", 1)[0]
    if not pid.isdigit() or process_key(int(pid)) != agent_process:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            raw = file.read(_CMDLINE_BYTES)
    except OSError:
        return None
    return [word.decode("utf-8", "surrogateescape") for word in raw.split(b"\0")[1:] if word]


def _newest_conversation(transcript: object, own: object) -> str | None:
    """The conversation whose transcript beside the fork's was written last: the one
    `--continue` goes on from."""
    if not isinstance(transcript, str) or not transcript:
        return None
    newest: tuple[float, str] | None = None
    try:
        for entry in Path(transcript).parent.iterdir():
            if entry.suffix != ".jsonl" or entry.stem == own or not entry.is_file():
                continue
            stamp = entry.stat().st_mtime
            if newest is None or stamp > newest[0]:
                newest = (stamp, entry.stem)
    except OSError:
        return None
    return newest[1] if newest is not None else None
