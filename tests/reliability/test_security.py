"""Security: what the server tells a client, what it writes to disk, what it cleans and
what it listens on."""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from reliability_checks import (
    INTERNAL_ERROR,
    assert_clean_line,
    assert_clean_note,
    assert_no_leak,
    assert_state,
    leaks,
)

from plansight.lsp.rpc_errors import REQUEST_FAILED

# A task as an agent's model may write it: every trick for making text lie.
NASTY_CONTENT = "\u202eevil\u202c \x1b[31mred\x1b[0m\r\nnext\tline\x00 \u2066iso\u2069\u200f\u061c "
NASTY_NOTE = "line one\x07\r\n\r\n  \u202eflipped\u202c  \n\x1b]0;title\x07tail\t"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "root",
    ["file:///tmp/with%00nul", "file:///%ff%fe/x", "file://host/share/x", "http://example.com/x"],
)
def test_initialize_with_a_hostile_root_never_leaks_a_traceback(
    spawn: Any, tmp_path: Path, root: str, figures: Counter[str]
) -> None:
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"))
    client = spawn(None, env=env, cwd=tmp_path)
    message = client.call("initialize", {"processId": None, "rootUri": root, "capabilities": {}})
    if "error" in message:
        assert_no_leak(message, (str(tmp_path),))
    else:
        assert client.result("plansight/get", {})["version"] == 0
    figures["security: hostile roots without leaks"] += 1


def test_a_store_that_cannot_be_opened_is_reported_without_its_path(
    spawn: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "is-a-folder.sqlite3"
    folder.mkdir()
    client = spawn(folder)
    message = client.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert message["error"]["code"] == REQUEST_FAILED
    assert message["error"]["data"] == {"reason": "unavailable"}
    assert_no_leak(message, (str(tmp_path), folder.name))


def test_a_broken_store_gives_a_generic_internal_error(spawn: Any, tmp_path: Path) -> None:
    """A failure inside the server (here another program drops a table behind its back)
    is an InternalError with a plain message: no traceback, no path, no SQL."""
    db = tmp_path / "plans.sqlite3"
    client = spawn(db)
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    vandal = sqlite3.connect(db)
    vandal.execute("DROP TABLE tasks")
    vandal.commit()
    vandal.close()
    message = client.call(
        "plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["y"]}]}
    )
    assert message["error"]["code"] == INTERNAL_ERROR, message
    assert_no_leak(message, (str(tmp_path), db.name, "tasks", "INSERT", "table"))


# ---------------------------------------------------------------- files on disk


def test_the_default_store_folder_is_private_and_the_files_are_owner_only(
    spawn: Any, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    workspace = tmp_path / "workspace"
    (workspace / ".git").mkdir(parents=True)
    env = dict(os.environ, XDG_STATE_HOME=str(state))
    env.pop("PLANSIGHT_DB", None)
    client = spawn(None, env=env, cwd=workspace)
    client.initialize(root=str(workspace))
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    folder = state / "plansight"
    files = sorted(folder.iterdir())
    assert mode(folder) == 0o700
    assert [f.name for f in files if f.name.endswith(".sqlite3")], files
    for file in files:
        # The database and SQLite's -wal and -shm companions alike.
        assert mode(file) == 0o600, (file.name, oct(mode(file)))


def test_an_explicit_store_path_gets_the_same_modes_whatever_the_umask(tmp_path: Path) -> None:
    db = tmp_path / "new" / "plans.sqlite3"
    script = (
        "import os, sys; os.umask(0); from plansight.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "apply",
            "--db",
            str(db),
            "--ops",
            '[{"op": "append", "phase": "P", "items": ["x"]}]',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert mode(db.parent) == 0o700
    for file in db.parent.iterdir():
        assert mode(file) == 0o600, (file.name, oct(mode(file)))


# ---------------------------------------------------------------- paths


def test_the_protocol_takes_no_paths_export_and_import_carry_text(
    spawn: Any, tmp_path: Path
) -> None:
    """Only the person at the CLI names files (`export --output FILE`, `import FILE`);
    a client of the protocol cannot make the server read or write one."""
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    target = tmp_path / "written-by-the-server.md"
    secret = tmp_path / "secret.md"
    secret.write_text("## Secret\n- [ ] from a file\n")
    exported = client.result(
        "plansight/export", {"output": str(target), "path": str(target), "file": str(target)}
    )
    assert "- [/] x" in exported["text"]
    assert not target.exists()
    refused = client.call("plansight/import", {"file": str(secret), "path": str(secret)})
    assert refused["error"]["code"] == -32602
    as_text = client.result("plansight/import", {"markdown": str(secret)})
    assert as_text["isError"] and "from a file" not in str(as_text)


def test_the_cli_writes_and_reads_only_the_files_it_is_given(tmp_path: Path) -> None:
    db = tmp_path / "plans.sqlite3"
    out = tmp_path / "elsewhere" / "plan.md"
    out.parent.mkdir()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "plansight", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )

    assert cli("apply", "--ops", '[{"op": "append", "phase": "P", "items": ["x"]}]').returncode == 0
    assert cli("export", "--output", str(out)).returncode == 0
    assert out.read_text() == "## P\n- [/] x\n"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert cli("import", str(out), "--session", "copy").returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    missing = cli("import", str(tmp_path / "nope.md"))
    assert missing.returncode == 2
    assert "Traceback" not in missing.stderr


# ---------------------------------------------------------------- content


def test_content_is_sanitized_as_the_contract_says(spawn: Any, tmp_path: Path) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    result = client.result(
        "plansight/apply",
        {
            "ops": [
                {
                    "op": "init",
                    "list": [
                        {
                            "phase": "\u202ePhase\r\n2\t",
                            "items": [
                                {
                                    "content": NASTY_CONTENT,
                                    "activeForm": NASTY_CONTENT,
                                    "notes": [NASTY_NOTE],
                                }
                            ],
                        }
                    ],
                },
                {"op": "note", "id": "t1", "text": NASTY_NOTE},
            ]
        },
    )
    assert_state(result)
    phase = result["phases"][0]
    task = phase["tasks"][0]
    assert phase["name"] == "Phase 2"
    # Line breaks and tabs become one space; other controls and bidi marks go.
    assert task["content"] == "evil [31mred[0m next line iso"
    assert task["activeForm"] == task["content"]
    assert task["notes"] == ["line one\n  flipped\n]0;titletail"] * 2
    for text in (phase["name"], task["content"], task["activeForm"]):
        assert_clean_line(text, "text")
    for note in task["notes"]:
        assert_clean_note(note)
    written = client.result(
        "plansight/write",
        {
            "todos": [
                {
                    "content": NASTY_CONTENT,
                    "activeForm": "\u2067x\u2069",
                    "status": "pending",
                    "phase": "\x00Q",
                }
            ]
        },
    )
    assert written["phases"][0]["name"] == "Q"
    assert written["phases"][0]["tasks"][0]["content"] == task["content"]
    line = "\u202eevil\u202c \x1b[31mred\x1b[0m\tline\x00 \u2066iso\u2069\u200f "
    imported = client.result("plansight/import", {"markdown": f"## \u202eP\u200e\n- [ ] {line}\n"})
    assert imported["errors"] == []
    assert_state(imported)
    assert imported["phases"][0]["name"] == "P"
    assert imported["phases"][0]["tasks"][0]["content"] == "evil [31mred[0m line iso"


def test_lone_surrogates_are_cleaned_not_fatal(spawn: Any, tmp_path: Path) -> None:
    """A JSON escape for half a UTF-16 pair is valid JSON that cannot be stored as
    UTF-8: it must not turn a request into an internal error."""
    db = tmp_path / "plans.sqlite3"
    client = spawn(db)
    client.initialize()
    params = {
        "ops": [
            {
                "op": "append",
                "phase": "P\ud800",
                "items": ["a\ud800b", {"content": "c", "notes": ["n\udfff"]}],
            },
            {"op": "note", "task": "a\ud800b", "text": "x\ud83d"},
        ]
    }
    message = client.call("plansight/apply", params)
    assert "result" in message, message
    result = message["result"]
    assert_state(result)
    assert result["errors"] == [], result["errors"]
    contents = [t["content"] for t in result["phases"][0]["tasks"]]
    assert all("\ud800" not in c for c in contents), contents
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    session = client.call("plansight/get", {"session": "s\ud800"})
    assert "error" not in session or session["error"]["code"] == -32602, session


# ---------------------------------------------------------------- network


def listening_inodes() -> set[str]:
    """Socket inodes in LISTEN state (TCP) or bound (UDP), and listening unix sockets."""
    inodes = set()
    for name in ("tcp", "tcp6", "udp", "udp6"):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            state, inode = fields[3], fields[9]
            if name.startswith("udp") or state == "0A":
                inodes.add(inode)
    unix = Path("/proc/net/unix")
    if unix.exists():
        for line in unix.read_text().splitlines()[1:]:
            fields = line.split()
            flags, inode = int(fields[3], 16), fields[6]
            if flags & 0x10000:  # __SO_ACCEPTCON: a listening socket
                inodes.add(inode)
    return inodes


def socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[len("socket:[") : -1])
    return found


def test_no_network_listener_is_opened(spawn: Any, tmp_path: Path, figures: Counter[str]) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    client.result("plansight/apply", {"ops": [{"op": "append", "phase": "P", "items": ["x"]}]})
    client.result("plansight/get", {})
    # The check itself must see a listener when there is one.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    probe.listen()
    try:
        assert socket_inodes(os.getpid()) & listening_inodes()
    finally:
        probe.close()
    assert not socket_inodes(client.pid) & listening_inodes()
    figures["security: network listeners opened"] += 0


def test_every_leak_marker_would_be_caught() -> None:
    """The scanner used on every error answer in this suite finds what it looks for."""
    traceback_text = 'Traceback (most recent call last):\n  File "/usr/lib/python3/x.py", line 1'
    assert leaks(traceback_text)
    assert leaks("could not open /home/someone/.local/state/plansight/x.sqlite3")
    assert not leaks("Invalid params: ops.0.task: Input should be a valid string")


# ---------------------------------------------------------------- names and terminals

# What a hostile name may carry: a screen clear, a window title, BEL, NUL, a bidi
# override, CR/LF, a C1 CSI and trailing blanks.
NASTY_NAME = "evil\x1b[2J\x1b]0;pwned\x07\x00\u202edrow\r\nname\x9b31m  "


def test_session_names_are_cleaned_like_contents(spawn: Any, tmp_path: Path) -> None:
    client = spawn(tmp_path / "plans.sqlite3")
    client.initialize()
    state = client.result(
        "plansight/apply",
        {"session": NASTY_NAME, "ops": [{"op": "append", "phase": "P", "items": ["x"]}]},
    )
    assert_clean_line(state["session"], "session")
    assert state["session"] == "evil[2J]0;pwneddrow name31m"
    names = [s["session"] for s in client.result("plansight/sessions", {})["sessions"]]
    assert names == [state["session"]]
    # The same name, sent dirty again, is the same session.
    assert client.result("plansight/get", {"session": NASTY_NAME})["version"] == 1
    refused = client.call("plansight/get", {"session": "\x1b\x07\u202e \r\n"})
    assert refused["error"]["code"] == -32602
    assert refused["error"]["data"]["errors"][0]["path"] == "session"


def _plant_raw_session(db: Path, name: str) -> None:
    """A store written by an older Plansight, or by hand: the name was never cleaned."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "plansight",
            "apply",
            "--db",
            str(db),
            "--session",
            "plain",
            "--ops",
            '[{"op":"append","phase":"P","items":["x"]}]',
        ],
        check=True,
        capture_output=True,
    )
    with sqlite3.connect(db) as conn:
        for table, column in (("sessions", "name"), ("phases", "session"), ("tasks", "session")):
            conn.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = 'plain'", (name,))
        conn.execute("UPDATE phases SET name = ?", (name,))
        conn.execute("UPDATE tasks SET content = ?, active_form = ?", (name, name))
    conn.close()


def _assert_terminal_safe(text: str) -> None:
    for sequence in ("\x1b[2J", "\x1b]0;", "\x07", "\x00", "\u202e", "\x9b", "\r"):
        assert sequence not in text, (sequence, text)


def test_every_terminal_output_is_escape_safe_whatever_the_store_holds(
    tmp_path: Path, figures: Counter[str]
) -> None:
    db = tmp_path / "plans.sqlite3"
    _plant_raw_session(db, NASTY_NAME)
    runs = [
        ["sessions"],
        ["sessions", "--json"],
        ["show"],
        ["show", "--format", "json"],
        ["show", "--format", "markdown"],
        ["export"],
        ["export", "--format", "json"],
        ["context"],
        ["show", "--session", NASTY_NAME.replace("\x00", "")],  # no NUL in an argument
        ["show", "--session", "missing\x1b[2J"],
    ]
    for args in runs:
        done = subprocess.run(
            [sys.executable, "-m", "plansight", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        _assert_terminal_safe(done.stdout)
        _assert_terminal_safe(done.stderr)
        figures["security: terminal outputs checked for escapes"] += 1

    # `watch`, on a terminal (Rich's own colours allowed, nothing from the store).
    import io
    import threading

    from rich.console import Console

    from plansight.cli.live import watch
    from plansight.service import PlanService
    from plansight.store import open_store

    screen = io.StringIO()
    stop = threading.Event()
    stop.set()
    watch(PlanService(open_store(db)), None, Console(file=screen, force_terminal=True), stop)
    assert "evil" in screen.getvalue()
    _assert_terminal_safe(screen.getvalue().replace("\r", ""))  # Rich's own carriage returns


# ---------------------------------------------------------------- planted files


def _lock_name(session: str) -> str:
    """The lock file's name, as predictable as an attacker finds it."""
    import hashlib

    return hashlib.sha256(session.encode()).hexdigest()[:16] + ".lock"


def test_a_planted_lock_folder_and_link_never_reach_the_victims_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from plansight.mcp.session import SessionClaim

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    locks = tmp_path / "plans.sqlite3-mcp"
    locks.mkdir()
    locks.chmod(0o777)  # made first by another user of a shared folder, open to all
    (locks / _lock_name("agent")).symlink_to(victim)
    claim = SessionClaim(locks)
    with caplog.at_level("WARNING"):
        assert claim.claim("agent", lambda name: False) == "agent"
    claim.release()
    assert victim.read_text() == "precious\n"
    assert "writable by other users" in caplog.text

    # A private folder with a link inside all the same: the link is not followed.
    locks.chmod(0o700)
    claim = SessionClaim(locks)
    claim.claim("agent", lambda name: False)
    claim.release()
    assert victim.read_text() == "precious\n"

    if os.geteuid() == 0:  # only root can give the folder to another user here
        os.chown(locks, 65534, 65534)
        caplog.clear()
        with caplog.at_level("WARNING"):
            SessionClaim(locks).claim("other", lambda name: False)
        assert "belongs to another user" in caplog.text
        assert not (locks / _lock_name("other")).exists()


def test_missing_parent_folders_are_private_whatever_the_umask(tmp_path: Path) -> None:
    db = tmp_path / "a" / "b" / "c" / "plans.sqlite3"
    script = (
        "import os, sys; os.umask(0); from plansight.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    ops = '[{"op": "append", "phase": "P", "items": ["x"]}]'
    done = subprocess.run(
        [sys.executable, "-c", script, "apply", "--db", str(db), "--ops", ops],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for folder in (tmp_path / "a", tmp_path / "a" / "b", db.parent):
        assert mode(folder) == 0o700, (folder.name, oct(mode(folder)))


def test_a_link_planted_at_the_store_path_is_not_followed_into_another_file(
    tmp_path: Path,
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    ops = '[{"op": "append", "phase": "P", "items": ["x"]}]'
    for target in (victim, empty, tmp_path / "nowhere"):
        db = tmp_path / f"link-to-{target.name}.sqlite3"
        db.symlink_to(target)
        done = subprocess.run(
            [sys.executable, "-m", "plansight", "apply", "--db", str(db), "--ops", ops],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert "not a Plansight store" in done.stderr and done.stderr.count("\n") == 1
        assert str(tmp_path) not in done.stderr
    assert victim.read_text() == "precious\n"
    assert empty.read_bytes() == b""
    assert not (tmp_path / "nowhere").exists()

    # A link to a real store is fine: people keep stores on another disk.
    real = tmp_path / "real.sqlite3"
    subprocess.run(
        [sys.executable, "-m", "plansight", "apply", "--db", str(real), "--ops", ops], check=True
    )
    linked = tmp_path / "linked.sqlite3"
    linked.symlink_to(real)
    shown = subprocess.run(
        [sys.executable, "-m", "plansight", "show", "--db", str(linked)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0 and "x" in shown.stdout, shown.stderr
