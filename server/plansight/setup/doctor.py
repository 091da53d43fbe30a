"""`plansight doctor`: for each agent and editor found on this machine, what of Plansight is
installed and working, and for each problem the one command that fixes it.

Read-only: it opens the person's files and asks the agents' own CLIs (Codex's app server
says whether it trusts the hooks, and an MCP server entry that is not this Plansight's is
started and asked `initialize`), and changes nothing. Exit 1 when something that was set up
does not work; an agent never set up is worth knowing (`-`), not broken: exit 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.codex_hook_trust import plansight_hook_trust
from plansight.hook.copilot_todos import copilot_home
from plansight.hook.hooked_agents import AGENTS, Agent
from plansight.paths import workspace_root
from plansight.setup import codex_config, mcp_entry
from plansight.setup.agent_hooks import (
    customised_events,
    hooked_events,
    is_customised,
    is_ours,
    stale_compression_matcher,
)
from plansight.setup.findings import Finding, Section
from plansight.setup.json_text import STRICT, WITH_COMMENTS
from plansight.setup.mcp_check import entry_finding
from plansight.setup.settings_file import SetupError, read_regular, read_text, settings_of
from plansight.setup.setup_command import (
    CLAUDE_TODO_SWITCH,
    claude_home,
    claude_mcp_path,
    codex_home,
    copilot_mcp_path,
    settings_path,
)
from plansight.setup.setup_record import recorded

EDITORS = ("code", "code-insiders", "codium", "cursor", "code-server")
EXTENSION_ID = "plansight.plansight"
CLI_SECONDS = 60  # a guard against a hung CLI, never a speed check
# The editors show this finding while it holds (VS Code's `doctorMessage`, Neovim's sidebar).
UNTRUSTED = "hooks not trusted by Codex yet: they do not run"

Say = Callable[[str], None]


def run_doctor(only: list[str] | None, say: Say) -> int:
    """Print what works and what does not; 1 when something is broken, else 0."""
    sections = doctor_sections(only)
    if not any(section.agent for section in sections) and not only:
        say("No agent found (claude, codex, gemini, copilot on PATH or their config folders).")
    broken = False
    for section in sections:
        broken |= _report(section.title, section.findings, say)
    not_set_up = [s for s in sections if s.agent and not s.set_up]
    if broken:
        say("Something is broken: run the fix shown.")
    elif not_set_up:
        # One line, starting as the healthy one does (Neovim's :checkhealth reads it so).
        names = ", ".join(f"{s.title} (plansight setup {s.agent})" for s in not_set_up)
        say(f"Everything set up works. Not set up: {names}.")
    else:
        say("Everything works.")
    return 1 if broken else 0


def doctor_json(only: list[str] | None) -> tuple[dict[str, Any], int]:
    """The same findings for a program (the VS Code panel names the agents it found):
    `{ok, agents: [{name, label, setUp, findings}], store, editors}`; each finding is
    `{ok, what, fix, broken}`. The exit code is `run_doctor`'s."""
    sections = doctor_sections(only)

    def findings(section: Section) -> list[dict[str, Any]]:
        return [
            {"ok": f.ok, "what": f.what, "fix": f.fix, "broken": f.broken} for f in section.findings
        ]

    def healthy(section: Section) -> bool:
        return section.set_up and all(f.ok or not f.broken for f in section.findings)

    agents = [s for s in sections if s.agent]
    store = next(s for s in sections if s.title == "Store")
    editors = [s for s in sections if not s.agent and s is not store]
    # Whether anything is broken, as the exit code says (an agent not set up is not).
    ok = not any(not f.ok and f.broken for s in sections for f in s.findings)
    report = {
        "ok": ok,
        "agents": [
            {"name": s.agent, "label": s.title, "setUp": healthy(s), "findings": findings(s)}
            for s in agents
        ],
        "store": findings(store)[0],
        "editors": [{"name": s.title, "findings": findings(s)} for s in editors],
    }
    return report, 0 if ok else 1


def doctor_sections(only: list[str] | None) -> list[Section]:
    """Each agent found (or named in `only`), the store, and each editor found."""
    names = (
        [n for n in only if n in AGENTS] if only else [n for n in AGENTS if _agent_found(AGENTS[n])]
    )
    sections = [_agent_section(AGENTS[n].label, n, *agent_findings(AGENTS[n])) for n in names]
    from plansight.setup.opencode_doctor import opencode_findings, opencode_found

    if "opencode" in (only or []) or (only is None and opencode_found()):
        sections.append(_agent_section("OpenCode", "opencode", *opencode_findings()))
    sections.append(Section("Store", [store_finding()]))
    if only is None:
        sections += [Section(editor, findings) for editor, findings in editor_findings()]
    return sections


def _agent_section(label: str, name: str, findings: list[Finding], set_up: bool) -> Section:
    """An agent's section; for an agent the person never set up, what is missing is worth
    knowing (with the command that sets it up), not broken."""
    if not set_up:
        findings = [Finding(f.ok, f.what, f.fix, broken=False) for f in findings]
    return Section(label, findings, name, set_up)


def _report(title: str, findings: list[Finding], say: Say) -> bool:
    say(title)
    broken = False
    for finding in findings:
        mark = "✓" if finding.ok else ("✗" if finding.broken else "-")
        say(f"  {mark} {finding.what}")
        if not finding.ok and finding.fix:
            say(f"      fix: {finding.fix}")
        broken |= not finding.ok and finding.broken
    return broken


def _agent_found(agent: Agent) -> bool:
    cli = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "copilot": "copilot"}[
        agent.name
    ]
    folder = {
        "claude-code": claude_home(),
        "codex": codex_home(),
        "gemini": Path.home() / ".gemini",
        "copilot": copilot_home(),
    }
    return shutil.which(cli) is not None or folder[agent.name].is_dir()


def _settings(path: Path, dialect: Any) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return settings_of(path, read_text(path), dialect), None
    except SetupError as exc:
        return None, str(exc)


def agent_findings(agent: Agent) -> tuple[list[Finding], bool]:
    """The agent's findings, and whether Plansight was set up for it (anything of it in
    its files, or setup's record of them; a file that cannot be read may hold it)."""
    setup = f"plansight setup {agent.name}"
    dialect = WITH_COMMENTS if agent.name == "gemini" else STRICT
    findings: list[Finding] = []
    hooked_in: Path | None = None
    merged: dict[str, Any] = {}
    set_up = False
    unreadable: set[Path] = set()
    for scope in ("project", "user"):
        path = settings_path(agent, scope)
        settings, error = _settings(path, dialect)
        set_up |= error is not None or recorded(path)
        if error:
            findings.append(Finding(False, error, f"fix {path} by hand"))
            unreadable.add(path)
            continue
        assert settings is not None
        events = hooked_events(settings, agent) | customised_events(settings, agent)
        set_up |= bool(events)
        if {agent.session_start, agent.prompt, agent.after_tool} <= events and hooked_in is None:
            hooked_in = path
            stale = stale_compression_matcher(settings, agent)
            if stale is not None:
                what = f"hooks of an earlier Plansight: its compaction hook hears only {stale!r}"
                findings.append(Finding(False, what, setup))
        merged = {**settings, **merged}  # the project's settings win
    if hooked_in is not None:
        findings.append(Finding(True, f"hooks in {hooked_in}"))
        if agent.name == "codex":
            findings.append(codex_trust(hooked_in))
    else:
        findings.append(Finding(False, "hooks: not installed (no plan arrives)", setup))
    mcp, registered = mcp_finding(agent, unreadable)
    set_up |= registered
    native = native_finding(agent, merged)
    findings.append(mcp)
    findings.append(native)
    if not mcp.ok and not native.ok:
        findings.append(Finding(False, "no plan tool at all: the model cannot plan", setup))
    return findings, set_up


def mcp_finding(agent: Agent, unreadable: set[Path]) -> tuple[Finding, bool]:
    """Whether Plansight's MCP server is registered and its command runs; and whether an
    entry named `plansight` is there at all (or a file that may hold one is unreadable).
    `unreadable`: files already reported so (Gemini's servers are in its settings)."""
    fix = f"plansight setup {agent.name}"
    for path in _mcp_files(agent):
        if path in unreadable:
            continue
        try:
            text = read_text(path)
            if agent.name == "codex":
                servers = codex_config.loads(text).get("mcp_servers")
            else:
                dialect = WITH_COMMENTS if agent.name == "gemini" else STRICT
                servers = settings_of(path, text, dialect).get("mcpServers")
        except SetupError as exc:
            said = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
            return Finding(False, said, f"fix {path} by hand"), True
        entry = servers.get(mcp_entry.NAME) if isinstance(servers, dict) else None
        if isinstance(entry, dict):
            return entry_finding(agent.name, path, entry, text), True
    return Finding(False, "MCP server plansight: not registered", fix, broken=False), False


def _mcp_files(agent: Agent) -> list[Path]:
    """Where the agent keeps its MCP servers, the file it prefers first."""
    if agent.name == "codex":
        return [codex_config.config_path(settings_path(agent, s)) for s in ("project", "user")]
    if agent.name == "claude-code":  # a file of its own, not its settings
        return [claude_mcp_path("project"), claude_mcp_path("user")]
    if agent.name == "copilot":
        return [copilot_mcp_path()]
    return [settings_path(agent, "project"), settings_path(agent, "user")]


def native_finding(agent: Agent, settings: dict[str, Any]) -> Finding:
    """Whether the agent offers its own plan tool, where its settings say so."""
    fix = f"plansight setup {agent.name}"
    if agent.name == "claude-code":
        name, value = CLAUDE_TODO_SWITCH
        env = settings.get("env") if isinstance(settings.get("env"), dict) else {}
        assert isinstance(env, dict)
        if os.environ.get(name, env.get(name)) in (value, "1"):
            return Finding(True, f"plan tool TaskCreate/TaskUpdate on ({name})")
        return Finding(
            False, f"plan tool: off for Claude's newest models ({name} unset)", fix, broken=False
        )
    if agent.name == "codex":
        path = codex_config.config_path(settings_path(agent, "user"))
        try:
            enabled = codex_config.update_plan_enabled(read_text(path))
        except SetupError:
            enabled = None
        if enabled:
            return Finding(True, "plan tool update_plan on ([tools.update_plan])")
        return Finding(
            False, "plan tool update_plan: off ([tools.update_plan] not enabled)", fix, broken=False
        )
    if agent.name == "copilot":
        # Copilot CLI offers its `sql` tool (the session's todos table) to every model;
        # VS Code's agent mode its manage_todo_list.
        return Finding(True, "plan: Copilot CLI's todos table (sql), VS Code's manage_todo_list")
    model = settings.get("model")
    model_name = model.get("name") if isinstance(model, dict) else None
    if isinstance(model_name, str) and model_name.startswith("gemini-2"):
        return Finding(True, f"plan tool write_todos on (model {model_name})")
    shown = model_name or "auto, the default"
    return Finding(
        False, f"plan tool write_todos: not offered to model {shown}", None, broken=False
    )


def codex_trust(hooks_file: Path) -> Finding:
    """Codex runs a hook only once the person trusted it (in its TUI's /hooks); its app
    server says, per hook, `trusted`, `untrusted` or `modified`. Without Codex on PATH (an
    editor started with another PATH), its files say it (`codex_hook_trust.py`)."""
    fix = "codex   (then /hooks: trust Plansight's hooks)"
    codex = shutil.which("codex")
    if codex is None:
        read = plansight_hook_trust(codex_home(), workspace_root())
        if read == "untrusted":
            return Finding(False, f"{UNTRUSTED} (as its config.toml records)", fix)
        if read == "trusted":
            return Finding(True, "hooks trusted by Codex (as its config.toml records)")
        return Finding(
            True, "hooks trusted by Codex: cannot tell (codex not on PATH)", broken=False
        )
    statuses = _codex_hook_statuses(codex)
    if statuses is None:
        return Finding(
            False, "hooks trusted by Codex: its app server did not answer", fix, broken=False
        )
    codex_agent = AGENTS["codex"]
    ours = [
        status
        for command, status in statuses
        if is_ours({"command": command}, codex_agent)
        or is_customised({"command": command}, codex_agent)
    ]
    if ours and all(status == "trusted" for status in ours):
        return Finding(True, "hooks trusted by Codex")
    return Finding(False, UNTRUSTED, fix)


def _codex_hook_statuses(codex: str) -> list[tuple[str, str]] | None:
    cwd = str(workspace_root())
    messages: list[dict[str, Any]] = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "plansight-doctor", "version": "1"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}},
    ]
    try:
        server = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return None
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages))
        server.stdin.flush()
        for line in server.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                data = reply.get("result", {}).get("data", [])
                hooks = [hook for listing in data for hook in listing.get("hooks", [])]
                return [(str(h.get("command")), str(h.get("trustStatus"))) for h in hooks]
    except (OSError, ValueError, AttributeError):
        return None
    finally:
        server.kill()
        server.wait(CLI_SECONDS)
    return None


def store_finding() -> Finding:
    from plansight.store import StoreError, open_store
    from plansight.store.location import is_postgres_url, redact_url, store_location

    root = workspace_root()
    location = store_location(None, root)
    shown = redact_url(location) if is_postgres_url(location) else location
    try:
        store = open_store(location, root)
        try:
            count = len(store.summaries())
        finally:
            store.close()
    except StoreError as exc:
        return Finding(
            False,
            f"store {shown}: {exc.message}",
            "plansight store-path   (then check PLANSIGHT_DB)",
        )
    return Finding(True, f"store {shown} reachable ({count} plan(s) for this workspace)")


def editor_findings() -> list[tuple[str, list[Finding]]]:
    found: list[tuple[str, list[Finding]]] = []
    for editor in EDITORS:
        path = shutil.which(editor)
        if path is None:
            continue
        extensions = _run([path, "--list-extensions"])
        if extensions is None:
            finding = Finding(False, f"{editor}: cannot list its extensions", None, broken=False)
        elif EXTENSION_ID in extensions.lower().split():
            finding = Finding(True, f"extension {EXTENSION_ID} installed")
        else:
            finding = Finding(
                False,
                f"extension {EXTENSION_ID} not installed",
                "plansight setup vscode",
                broken=False,
            )
        found.append((editor, [finding]))
    if shutil.which("nvim"):
        config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "nvim"
        if _mentions(config, "plansight"):
            found.append(("Neovim", [Finding(True, f"plugin spec found in {config}")]))
        else:
            found.append(
                (
                    "Neovim",
                    [
                        Finding(
                            False,
                            "plugin not in the Neovim configuration",
                            "plansight setup nvim",
                            broken=False,
                        )
                    ],
                )
            )
    return found


def _run(command: list[str]) -> str | None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=CLI_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _mentions(folder: Path, word: str) -> bool:
    if not folder.is_dir():
        return False
    for path in folder.rglob("*.lua"):
        try:  # never a FIFO's open that waits for a writer
            data = read_regular(path, 16 * 1024 * 1024)
        except SetupError:
            continue
        if data is not None and word.encode() in data:
            return True
    return False
