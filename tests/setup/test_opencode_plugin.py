"""The plugin `plansight setup opencode` writes, run under Node with OpenCode's recorded
plugin-hook inputs (`tests/fixtures/hooks/opencode/`, from OpenCode 1.18.33) and the real
`plansight hook opencode` on a real store: what it puts into the todowrite result and the
prompt is what OpenCode's model then reads (the real CLI: tests/agent_clis)."""

from __future__ import annotations

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
SESSION = "ses_plugin"
# Calls each recorded hook of the plugin in turn, as OpenCode does (awaited, with the same
# output object it then uses), and prints the outputs.
DRIVER = """\
import { readFileSync } from "node:fs";
const [plugin, calls, directory] = process.argv.slice(2);
const hooks = await (await import(plugin)).PlansightPlan({ directory });
const outputs = [];
for (const [name, input, output] of JSON.parse(readFileSync(calls, "utf8"))) {
  await hooks[name](input, output);
  outputs.push(output);
}
console.log(JSON.stringify(outputs));
"""


class OpenCode:
    """The plugin in a project, and the recorded hook calls OpenCode makes of it."""

    def __init__(self, tmp_path: Path, plansight: str) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.skip("no Node to run the plugin (the real OpenCode runs it: tests/agent_clis)")
        self.node = node
        self.project = tmp_path / "project"
        (self.project / ".git").mkdir(parents=True)
        self.state = tmp_path / "state"
        self.folder = tmp_path / "plugin"
        self.folder.mkdir()
        (self.folder / "plansight.mjs").write_text(plugin_text(plansight), encoding="utf-8")
        (self.folder / "driver.mjs").write_text(DRIVER, encoding="utf-8")

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANSIGHT_")}
        env.update(XDG_STATE_HOME=str(self.state), HOME=str(self.state.parent))
        env["PLANSIGHT_HOOK_DAEMON"] = "0"  # each event in its own process: none to stop
        return env

    def call(self, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """Each (recorded hook, changes to its input) in turn; the outputs after the hook."""
        recorded = []
        for name, changes in calls:
            stem = name.split(":")[0]
            record = json.loads((FIXTURES / f"{name.replace(':', '.')}.json").read_text())
            record["input"].update(sessionID=SESSION, **changes.pop("input", {}))
            record["output"].update(changes)
            if stem == "chat.message":
                record["output"]["message"]["sessionID"] = SESSION
            recorded.append([stem, record["input"], record["output"]])
        path = self.folder / "calls.json"
        path.write_text(json.dumps(recorded), encoding="utf-8")
        files = [self.folder / "driver.mjs", self.folder / "plansight.mjs", path, self.project]
        done = subprocess.run(
            [self.node, *map(str, files)],
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=120,  # a guard against a hang, never a speed check
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs: list[dict[str, Any]] = json.loads(done.stdout)
        return outputs

    def person(self, *ops: dict[str, Any]) -> None:
        apply = ("apply", "--session", f"opencode:{SESSION}", "--origin", "user")
        done = subprocess.run(
            [sys.executable, "-m", "plansight", *apply, "--ops", json.dumps(list(ops))],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def plan(self) -> Any:
        store = SqliteStore(default_store_path(self.project))
        try:
            return store.load(f"opencode:{SESSION}")
        finally:
            store.close()


PROMPT = ("chat.message", {})
TODOWRITE = ("tool.execute.after:todowrite", {})


def _prompt(text: str) -> tuple[str, dict[str, Any]]:
    return "chat.message", {"parts": [{"type": "text", "text": text, "id": "prt_1"}]}


def _edit(project: Path) -> tuple[str, dict[str, Any]]:
    return "tool.execute.after:edit", {"input": {"args": {"filePath": str(project / "app.py")}}}


def _notes(output: dict[str, Any]) -> list[str]:
    """The parts the plugin added to a prompt (OpenCode's own are not synthetic)."""
    return [part["text"] for part in output["parts"] if part.get("synthetic")]


@pytest.fixture
def opencode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OpenCode:
    # The test reads the store where the hook puts it: under the same state folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PLANSIGHT_DB", raising=False)
    return OpenCode(tmp_path, f"{shlex.quote(sys.executable)} -m plansight")


def test_the_plan_arrives_titled_and_the_todowrite_result_carries_the_kept_line(
    opencode: OpenCode,
) -> None:
    prompt, first = opencode.call(_prompt("Fix the login bug"), TODOWRITE)
    assert _notes(prompt) == []  # nothing planned yet: nothing to say
    assert "Kept" not in first["output"]
    plan = opencode.plan()
    assert plan.title == "Fix the login bug"
    assert {t.content: t.priority for t in plan.tasks()} == {
        "Reproduce the login bug": "high",
        "Fix the session check": None,  # OpenCode's `medium` on every item
    }

    opencode.person(
        {"op": "append", "phase": "Todos", "items": ["Person task C"]},
        {"op": "done", "task": "Fix the session check"},
    )
    [stale] = opencode.call(TODOWRITE)
    # OpenCode's own result (its list as JSON) first, then Plansight's note.
    assert stale["output"].startswith("[\n  {\n")
    assert (
        'Kept the user\'s changes your list does not have: completed "Fix the session check"'
        in (stale["output"])
    )
    assert {t.content: t.status for t in opencode.plan().tasks()}["Person task C"] == "pending"


def test_the_next_prompt_carries_what_the_person_changed(opencode: OpenCode) -> None:
    opencode.call(_prompt("Fix the login bug"), TODOWRITE)
    opencode.person({"op": "done", "task": "Fix the session check"})
    [prompt] = opencode.call(_prompt("Carry on"))
    [note] = _notes(prompt)
    assert "The user changed the todo list" in note and "Fix the session check" in note
    added = prompt["parts"][-1]
    # As OpenCode's own parts are: its id sorts after the prompt's, in the same message.
    assert added["id"].startswith("prt_") and len(added["id"]) == len("prt_") + 26
    assert added["messageID"] == prompt["message"]["id"] and added["type"] == "text"
    assert added["sessionID"] == SESSION


def test_after_a_compaction_the_next_prompt_carries_the_whole_plan(opencode: OpenCode) -> None:
    opencode.call(_prompt("Fix the login bug"), TODOWRITE, _prompt("Go on"))
    compacting, prompt = opencode.call(("experimental.session.compacting", {}), _prompt("Go on"))
    assert compacting == {"context": []}
    [note] = _notes(prompt)
    assert "[>] Reproduce the login bug" in note and "[ ] Fix the session check" in note
    [again] = opencode.call(_prompt("Go on"))
    assert "[ ] Fix the session check" not in json.dumps(_notes(again))  # whole once


def test_the_files_an_edit_touches_go_under_the_task_in_progress(opencode: OpenCode) -> None:
    opencode.call(_prompt("Fix the login bug"), TODOWRITE, _edit(opencode.project))
    tasks = {task.content: task for task in opencode.plan().tasks()}
    assert tasks["Reproduce the login bug"].files == ["app.py"]


def test_a_plansight_that_does_not_run_changes_nothing_and_throws_nothing(
    tmp_path: Path,
) -> None:
    opencode = OpenCode(tmp_path, str(tmp_path / "no-such-plansight"))
    prompt, written = opencode.call(_prompt("Fix the login bug"), TODOWRITE)
    recorded = json.loads((FIXTURES / "tool.execute.after.todowrite.json").read_text())
    assert written == recorded["output"]
    assert _notes(prompt) == []


def test_the_files_of_an_apply_patch_go_under_the_task_in_progress(opencode: OpenCode) -> None:
    """OpenCode offers GPT models `apply_patch` (`patchText`: Codex's envelope) instead of
    `edit`; its parameters from OpenCode 1.18.33's bundled tool registry."""
    patch = "*** Begin Patch\n*** Update File: src/login.py\n@@\n-a\n+b\n*** End Patch"
    call = {"input": {"tool": "apply_patch", "args": {"patchText": patch}}}
    opencode.call(_prompt("Fix the login bug"), TODOWRITE, ("tool.execute.after:edit", call))
    tasks = {task.content: task for task in opencode.plan().tasks()}
    assert tasks["Reproduce the login bug"].files == ["src/login.py"]


# OpenCode's plan agent writes its plan in the project's `.opencode/plans/` (in a git
# project: `<created>-<slug>.md`), then ends with `plan_exit`.
NESTED_PLAN = (
    "# Fix the login bug\n\nWhy: the wrong cookie.\n\n## Investigate\n"
    "- [ ] Reproduce the login bug\n  - [ ] Log in twice\n\n## Fix\n- [ ] Patch app.py\n"
)


def _plan_file(opencode: OpenCode, text: str = NESTED_PLAN) -> tuple[str, dict[str, Any]]:
    """The plan agent's edit of its plan file (the file written as the edit left it)."""
    path = opencode.project / ".opencode" / "plans" / "1764300000000-brave-otter.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return "tool.execute.after:edit", {"input": {"args": {"filePath": str(path)}}}


def test_the_plan_approved_in_plan_mode_arrives_nested(opencode: OpenCode) -> None:
    """OpenCode's `plan_exit` (issue 31 item 3): its `tool.execute.after` runs only when
    the person said "Yes" to building; the plan is the plan file the conversation's plan
    agent wrote, its headings phases and its nested checklist nested tasks. The edit of a
    plan file lists no file under a task (it is the plan)."""
    opencode.call(_plan_file(opencode), ("tool.execute.after:plan_exit", {}))

    plan = opencode.plan()
    tasks = {task.content: task for task in plan.tasks()}
    assert [phase.name for phase in plan.phases] == ["Investigate", "Fix"]
    assert tasks["Log in twice"].parent == tasks["Reproduce the login bug"].id
    assert plan.title == "Fix the login bug"
    assert all(not task.files for task in plan.tasks())


def test_a_revised_plan_mode_plan_keeps_the_persons_change(opencode: OpenCode) -> None:
    opencode.call(_plan_file(opencode), ("tool.execute.after:plan_exit", {}))
    opencode.person({"op": "done", "task": "Patch app.py"})
    revised = NESTED_PLAN.replace("Log in twice", "Log in from two browsers")

    outputs = opencode.call(_plan_file(opencode, revised), ("tool.execute.after:plan_exit", {}))

    tasks = {task.content: task.status for task in opencode.plan().tasks()}
    assert tasks["Patch app.py"] == "completed" and "Log in from two browsers" in tasks
    assert 'completed "Patch app.py"' in outputs[-1]["output"]


def test_plan_exit_without_a_plan_file_changes_nothing(opencode: OpenCode) -> None:
    """A `plan_exit` with no plan file written in the conversation (its plan agent wrote
    none, or an earlier Plansight heard the write) takes nothing."""
    opencode.call(("tool.execute.after:plan_exit", {}))
    store = SqliteStore(default_store_path(opencode.project))
    try:
        assert store.summaries() == []
    finally:
        store.close()
