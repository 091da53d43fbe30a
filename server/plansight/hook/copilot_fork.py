"""Which conversation a Copilot CLI session was forked from (`/branch`, `/fork`).

Copilot CLI 1.0.102's `/branch` (an alias of `/fork`; `forkSession` in its `cli-main.js`)
copies the conversation's events into a new session, with a new id, and switches to it.
The fork's first hook event comes with its next prompt: a SessionStart with `source:
"resume"`, which names no parent (`tests/fixtures/hooks/copilot/SessionStart-branch.json`).
What names it is the fork's own event log, `$COPILOT_HOME/session-state/<id>/events.jsonl`:
right after the copied events Copilot appends a `session.info` event of `infoType`
"fork" whose message is `Forked from "<name>" (<parent id>) as "<name>" (<fork id>).`
(`forkedSessionInfoMessage`: a session with no name is its bare id, and a fork up to an
earlier event adds `before event <id>`). The fork's own events after it are few at its
start (`session.resume`, the hook's own record), so the log is read from its end.

A resumed conversation that was never forked has no such line naming it: None.
"""

from __future__ import annotations

import json
import re

from plansight.hook.copilot_todos import copilot_home

# The end of the fork's log read: its start's events after the fork's line are a few KB;
# a line that does not fit is not the fork's.
TAIL_BYTES = 256 * 1024
_NAME = r'"(?:[^"\\]|\\.)*"'  # JSON.stringify of the session's name
_SESSION = r"[0-9A-Za-z][0-9A-Za-z-]*"
_FORKED = re.compile(
    rf"Forked from (?:{_NAME} \((?P<parent>{_SESSION})\)|(?P<bare>{_SESSION}))"
    rf"(?: before event \S+)? as (?:{_NAME} \((?P<own>{_SESSION})\)|(?P<own_bare>{_SESSION}))\.\Z"
)


def copilot_fork_parent(session_id: str) -> str | None:
    """The session id of the conversation the Copilot CLI session `session_id` was forked
    from, or None: not a fork (or its log cannot be read)."""
    if not re.fullmatch(_SESSION, session_id):
        return None  # a session id names one folder, never a path
    from plansight.regular_file import NotReadable, read_tail

    path = copilot_home() / "session-state" / session_id / "events.jsonl"
    try:
        tail = read_tail(path, TAIL_BYTES)
    except (OSError, NotReadable):
        return None
    if tail is None:
        return None
    # The newest fork line is this session's own: an older one came with copied events.
    for line in reversed(tail.split(b"\n")):
        if b'"fork"' not in line:
            continue
        parent = _parent_named(line, session_id)
        if parent is not None:
            return parent
    return None


def _parent_named(line: bytes, own: str) -> str | None:
    """The parent a `session.info` fork line names, when it is the line of `own`'s fork."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, dict) or event.get("type") != "session.info":
        return None
    message = data.get("message")
    if data.get("infoType") != "fork" or not isinstance(message, str):
        return None
    found = _FORKED.match(message)
    if found is None or (found["own"] or found["own_bare"]) != own:
        return None
    parent = found["parent"] or found["bare"]
    return parent if parent != own else None
