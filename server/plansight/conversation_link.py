"""Which conversation an MCP server serves: the one its agent's hooks last heard of.

An agent starts its MCP servers and runs its hooks as child processes (a hook often
through `sh -c`, a server through whatever command setup wrote), so the agent's own
process is an ancestor of both. A hook knows its conversation (the event's `session_id`);
an MCP server is never told. So the hook records, under the agent's process, the
Plansight session its conversation keeps its plan in, and the MCP server looks it up
under its own ancestors, nearest first.

A process is named by its pid and its start time (`/proc/<pid>/stat`): a pid the system
gave again to another process does not match. Where there is no `/proc` (macOS,
Windows), or the agent's process cannot be told, nothing is linked and the MCP server
writes a session of its own, as it does for an agent without Plansight's hooks.

One agent process that serves several conversations at once (an editor's extension host,
`codex app-server`) shows it to the hook: an event of a conversation other than the
linked one that is not its start. From then on that process is never linked: a plan
written into another conversation would be worse than one in a session of its own.

Standard library's cheapest modules only: the hook's relay names the agent's process.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not `typing`'s: the hook's relay loads this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# The programs an agent runs a hook through (`sh -c "<command>"`), never the agent itself.
# Only when running a command (`-c`): an interactive shell is the person's, and what a
# hook run by hand from it links stays under that shell.
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox"})
_MAX_DEPTH = 12  # an MCP server under a wrapper or two under the agent: far more than that
MAX_LINK_BYTES = 16 * 1024
_KEEP_LINKS = 256  # agent processes alive at once on one machine: far fewer
SHARED = "shared"  # `session` of a process seen serving several conversations


def _stat(pid: int) -> tuple[str, int, str] | None:
    """The command name, parent pid and start time (clock ticks since boot) of `pid`."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            raw = file.read(4096)
    except OSError:
        return None
    # `pid (comm) state ppid ...`: the name may hold spaces and parentheses itself.
    open_at, close_at = raw.find(b"("), raw.rfind(b")")
    fields = raw[close_at + 2 :].split()
    if open_at < 0 or close_at < open_at or len(fields) < 20:
        return None
    try:
        parent = int(fields[1])
    except ValueError:
        return None
    name = raw[open_at + 1 : close_at].decode("utf-8", "replace")
    return name, parent, fields[19].decode("ascii", "replace")


def process_key(pid: int) -> str | None:
    """`<pid>-<start time>`: one process, never another given the same pid later."""
    found = _stat(pid)
    return None if found is None else f"{pid}-{found[2]}"


def _runs_a_command(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read(4096).split(b"\0")
    except OSError:
        return False
    return any(word == b"-c" or (word[:1] == b"-" and word.endswith(b"c")) for word in words[1:3])


def agent_process(hook_pid: int | None = None) -> str | None:
    """The key of the process that ran this hook (`hook_pid`: the hook's own process,
    default this one): its parent, or the parent of the shell it was run through."""
    pid = os.getpid() if hook_pid is None else hook_pid
    found = _stat(pid)
    for _ in range(_MAX_DEPTH):
        if found is None or found[1] <= 1:
            return None
        pid = found[1]
        found = _stat(pid)
        if found is None:
            return None
        if found[0] not in _SHELLS or not _runs_a_command(pid):
            return f"{pid}-{found[2]}"
    return None


def ancestors(pid: int | None = None) -> list[str]:
    """The keys of this process's ancestors (of `pid`'s), nearest first, up to a bound."""
    keys = []
    found = _stat(os.getpid() if pid is None else pid)
    for _ in range(_MAX_DEPTH):
        if found is None or found[1] <= 1:
            break
        parent = found[1]
        found = _stat(parent)
        if found is not None:
            keys.append(f"{parent}-{found[2]}")
    return keys


def link_folder(state: Path) -> Path:
    return state / "hooks" / "links"


def memory_path(folder: Path, conversation: str) -> Path:
    """The hook's memory of one conversation (`hook/conversation.py`), in `folder`."""
    import hashlib

    digest = hashlib.sha256(conversation.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return folder / f"{digest}.json"


def folder_plan_path(folder: Path, agent: str, cwd: str) -> Path:
    """The hook's note of the plan `agent` last worked on in `cwd` (`hook/conversation.py`,
    `FolderPlan`: the plan a `/clear` there carries on), in `folder`."""
    import hashlib

    key = f"{agent}\0{cwd}".encode("utf-8", "surrogateescape")
    return folder / f"folder-{hashlib.sha256(key).hexdigest()[:24]}.json"


def mark_planned(state: Path, link: Link) -> None:
    """Tell the hook's memory that `link`'s conversation has a plan in the store now (the
    MCP server wrote it): its next prompt tells what a person changed, its `/compress` and
    resume tell the plan whole, and a `/clear` in its folder carries an unfinished plan
    on, as after a plan the hook heard itself."""
    import json

    from plansight.regular_file import NotReadable, read_bounded

    folder = state / "hooks"
    path = memory_path(folder, link.conversation)
    try:
        raw = read_bounded(path, MAX_LINK_BYTES)
        record = json.loads(raw) if raw is not None else {}
    except (NotReadable, OSError, ValueError):
        record = {}
    if not isinstance(record, dict):
        record = {}
    if record.get("planned") is not True:
        record["planned"] = True
        record.setdefault("first_seen", time.strftime("%H:%M"))
        _write_atomically(path, record)
    _write_atomically(folder_plan_path(folder, link.agent, link.folder), {"session": link.session})


class Link:
    """What an agent process's hooks last heard: its agent, the conversation (the hook's
    memory file is named by it), the session its plan is kept in, its title, and the
    agent's folder."""

    __slots__ = ("agent", "conversation", "folder", "session", "title")

    def __init__(self, agent: str, conversation: str, session: str, title: str, folder: str):
        self.agent, self.conversation, self.session = agent, conversation, session
        self.title, self.folder = title, folder

    @property
    def shared(self) -> bool:
        return self.session == SHARED

    def record(self) -> dict[str, str]:
        return {
            "agent": self.agent,
            "conversation": self.conversation,
            "session": self.session,
            "title": self.title,
            "folder": self.folder,
        }


def read_link(folder: Path, key: str) -> Link | None:
    """The link of the agent process `key`, None when there is none or it is damaged
    (a link file that is not a small regular file of ours is never read whole or
    waited on)."""
    import json

    from plansight.regular_file import NotReadable, read_bounded

    try:
        raw = read_bounded(folder / f"{key}.json", MAX_LINK_BYTES)
    except (NotReadable, OSError):
        return None
    if raw is None:
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    fields = [record.get(name) for name in Link.__slots__]
    texts = [value for value in fields if isinstance(value, str) and value]
    if len(texts) != len(fields):
        return None
    agent, conversation, working_folder, session, title = texts
    return Link(agent, conversation, session, title, working_folder)


def record_link(folder: Path, key: str, link: Link, starts: bool, now: float | None = None) -> None:
    """Note that the agent process `key` is in `link`'s conversation (`starts`: the event
    is the conversation's start, which may replace another: a `/clear`, a resume).
    Written only when it changed; atomically, never over a process seen serving several
    conversations."""
    old = read_link(folder, key)
    if old is not None and old.shared:
        return
    if old is not None and old.conversation != link.conversation and not starts:
        link = Link(link.agent, link.conversation, SHARED, SHARED, link.folder)
    if old is not None and old.record() == link.record():
        return
    _write_atomically(folder / f"{key}.json", link.record())
    if old is None:
        _forget_gone(folder, now if now is not None else time.time())


def _write_atomically(path: Path, record: Mapping[str, object]) -> None:
    """A reader (the other side, or a hook of the same conversation) sees a whole file."""
    import json

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.parent / f".{path.stem}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(record, file)
    os.replace(temporary, path)


def _forget_gone(folder: Path, now: float) -> None:
    """Remove the links of agent processes that ended (a new one is linked now and then:
    this bounds the folder); past `_KEEP_LINKS`, the oldest go too."""
    try:
        with os.scandir(folder) as entries:
            names = [(entry.name, entry.stat().st_mtime) for entry in entries]
    except OSError:
        return
    alive = []
    for name, changed in names:
        key = name.removesuffix(".json")
        pid = key.split("-", 1)[0]
        stale_temporary = name.startswith(".") and now - changed > 60
        gone = not name.startswith(".") and (not pid.isdigit() or process_key(int(pid)) != key)
        if stale_temporary or gone:
            _unlink(folder / name)
        elif not name.startswith("."):
            alive.append((changed, name))
    for _, name in sorted(alive)[: max(len(alive) - _KEEP_LINKS, 0)]:
        _unlink(folder / name)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        return  # another hook removed it first


def linked_conversation(folder: Path, agent: str | None) -> Link | None:
    """The conversation of this process's nearest ancestor that a hook linked (of
    `agent`, when the client named one); None when none did, or that process serves
    several conversations."""
    for key in ancestors():
        link = read_link(folder, key)
        if link is None:
            continue
        if link.shared or (agent is not None and link.agent != agent):
            return None
        return link
    return None
