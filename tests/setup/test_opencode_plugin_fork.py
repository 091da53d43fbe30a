"""The OpenCode plugin names the session a fork made in OpenCode's TUI was forked from,
under Node, its `client` answering what the real OpenCode 1.18.33 answered at such a
fork's first prompt (`tests/fixtures/hooks/opencode/session.fork.tui.json`), with the
real `plansight hook opencode` on a real store. (The real TUI, typed into:
`tests/agent_clis/test_real_opencode_tui_fork.py`.)"""

from __future__ import annotations

import copy
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from plansight.paths import default_store_path
from plansight.setup.opencode_setup import plugin_text
from plansight.store.sqlite import SqliteStore

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks" / "opencode"
RECORDED = json.loads((FIXTURES / "session.fork.tui.json").read_text())
FORK = RECORDED["session.get"]["id"]
FORKED = "ses_ddba69210ffeqvpOQiEVVBeeK2"  # the session forked ("Fix the login bug")
LATER = "ses_ddba6378affetI6qLkbO7CkqNY"  # planned last in the folder ("Tidy up")
# The plugin with a `client` answering from the recording, its times moved so that the
# fork was made just after the plugin loaded (as in the real run), each hook call awaited
# in turn as OpenCode awaits it; prints the outputs.
DRIVER = """\
import { readFileSync } from "node:fs";
const [plugin, recordedPath, calls, directory] = process.argv.slice(2);
const recorded = JSON.parse(readFileSync(recordedPath, "utf8"));
const shift = Date.now() + 1000 - recorded["session.get"].time.created;
const moved = (time) => Object.fromEntries(
  Object.entries(time).map(([key, value]) => [key, typeof value === "number" ? value + shift : value]));
const sessions = recorded["session.list"].map((s) => ({ ...s, time: moved(s.time) }));
const client = { session: {
  get: async ({ path }) => ({ data: sessions.find((s) => s.id === path.id) }),
  list: async () => ({ data: sessions }),
  messages: async ({ path }) => ({ data: (recorded["session.messages"][path.id] ?? []).map(
    (m) => ({ ...m, info: { ...m.info, time: moved(m.info.time) } })) }),
} };
const hooks = await (await import(plugin)).PlansightPlan({ client, directory });
const outputs = [];
for (const [name, input, output] of JSON.parse(readFileSync(calls, "utf8"))) {
  await hooks[name](input, output);
  outputs.push(output);
}
console.log(JSON.stringify(outputs));
"""


def _prompt(session: str, text: str) -> list[Any]:
    record = json.loads((FIXTURES / "chat.message.json").read_text())
    record["output"]["message"]["sessionID"] = session
    record["output"]["parts"] = [{"type": "text", "text": text, "id": "prt_1"}]
    return ["chat.message", {"sessionID": session}, record["output"]]


def _todowrite(session: str, todos: list[dict[str, str]]) -> list[Any]:
    record = json.loads((FIXTURES / "tool.execute.after.todowrite.json").read_text())
    record["input"].update(sessionID=session, args={"todos": todos})
    return ["tool.execute.after", record["input"], record["output"]]


def _run(tmp_path: Path, calls: list[list[Any]], recorded: dict[str, Any]) -> list[Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node to run the plugin (the real OpenCode runs it: tests/agent_clis)")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    plansight = f"{shlex.quote(sys.executable)} -m plansight"
    files = {
        "plansight.mjs": plugin_text(plansight),
        "driver.mjs": DRIVER,
        "recorded.json": json.dumps(recorded),
        "calls.json": json.dumps(calls),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    order = ("driver.mjs", "plansight.mjs", "recorded.json", "calls.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    env["PLANSIGHT_HOOK_DAEMON"] = "0"  # each event in its own process: none to stop
    done = subprocess.run(
        [node, *(str(tmp_path / name) for name in order), str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a guard against a hang, never a speed check
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outputs: list[Any] = json.loads(done.stdout)
    return outputs


def _plans(tmp_path: Path) -> dict[str, tuple[str | None, list[str]]]:
    store = SqliteStore(default_store_path(tmp_path / "project"))
    try:
        return {
            s.session: (
                store.load(s.session).title,
                [t.content for t in store.load(s.session).tasks()],
            )
            for s in store.sessions()
        }
    finally:
        store.close()


# The two conversations planned before the fork: the forked one, then another.
PLANNED = [
    _prompt(FORKED, "Fix the login bug"),
    _todowrite(FORKED, [{"content": "Reproduce the login bug", "status": "in_progress"}]),
    _prompt(LATER, "Tidy up"),
    _todowrite(LATER, [{"content": "Tidy the docs", "status": "in_progress"}]),
]


def _told(output: dict[str, Any]) -> str:
    return "\n".join(part["text"] for part in output["parts"] if part.get("synthetic"))


@pytest.fixture(autouse=True)
def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The test reads the store where the hook puts it: under the same state folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)


def test_a_tui_fork_starts_from_the_plan_of_the_session_whose_messages_it_copied(
    tmp_path: Path,
) -> None:
    """Every session is titled "Scripted" and the other conversation was updated last:
    the copied messages alone tell the forked one."""
    *_, first = _run(tmp_path, [*PLANNED, _prompt(FORK, "Go on")], RECORDED)
    assert "[>] Reproduce the login bug" in _told(first)
    assert "Tidy the docs" not in _told(first)
    assert _plans(tmp_path)[f"opencode:{FORK}"] == (
        "Fix the login bug (fork)",
        ["Reproduce the login bug"],
    )


def test_a_tui_fork_that_copied_nothing_is_known_by_its_title(tmp_path: Path) -> None:
    """A fork at the first message copies none: the session titled as the fork says
    ("Fix login" of "Fix login (fork #1)"), not the one planned last."""
    recorded = copy.deepcopy(RECORDED)
    recorded["session.messages"][FORK] = []
    titles = {FORK: "Fix login (fork #1)", FORKED: "Fix login", LATER: "Tidy"}
    for session in recorded["session.list"]:
        session["title"] = titles[session["id"]]
    *_, first = _run(tmp_path, [*PLANNED, _prompt(FORK, "Fix the login bug")], recorded)
    assert "[>] Reproduce the login bug" in _told(first)
    assert "Tidy the docs" not in _told(first)


def test_a_fork_of_a_fork_takes_the_fork_not_the_session_both_copied(tmp_path: Path) -> None:
    """The forked session is itself a fork ("Fix login (fork #1)") of one updated since
    ("Fix login"), whose messages the copies begin too: "(fork #2)" names the fork."""
    recorded = copy.deepcopy(RECORDED)
    forked = recorded["session.messages"][FORKED]
    recorded["session.messages"][LATER] = copy.deepcopy(forked[:3])
    titles = {FORK: "Fix login (fork #2)", FORKED: "Fix login (fork #1)", LATER: "Fix login"}
    for session in recorded["session.list"]:
        session["title"] = titles[session["id"]]
        if session["id"] == LATER:  # made first, then forked; updated last
            session["time"]["created"] = forked[0]["info"]["time"]["created"] - 1000
    *_, first = _run(tmp_path, [*PLANNED, _prompt(FORK, "Go on")], recorded)
    assert "[>] Reproduce the login bug" in _told(first)
    assert "Tidy the docs" not in _told(first)
