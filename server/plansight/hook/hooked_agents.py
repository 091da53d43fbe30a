"""What each agent's hooks send: event names, plan tools, edit tools, and the reply shape.

Pure data, no imports beyond the standard library: `plansight hook` runs inside the agent's
loop and must start fast. Every name here comes from the agent's own sources (see
`tests/fixtures/hooks/<agent>/README.md` for where each was read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plansight.protocol.requests import Format


class Agent:
    """One agent's hook vocabulary. (A plain class: `dataclasses` costs the hook 5 ms.)"""

    __slots__ = (
        "after_tool",
        "clear_reads_context",
        "clear_starts_new",
        "compression",
        "compression_told_at_prompt",
        "edit_tools",
        "fork_source",
        "frames_context",
        "label",
        "lost_context_sources",
        "model_request",
        "name",
        "plan_tools",
        "prompt",
        "session_start",
        "turn_end",
    )

    def __init__(
        self,
        *,
        name: str,
        label: str,
        session_start: str,
        prompt: str,
        after_tool: str,
        plan_tools: dict[str, Format],
        edit_tools: frozenset[str],
        lost_context_sources: frozenset[str],
        compression: tuple[str, str] | None = None,
        compression_told_at_prompt: bool = False,
        clear_reads_context: bool = True,
        clear_starts_new: bool = False,
        fork_source: str = "fork",
        model_request: str | None = None,
        frames_context: bool = False,
        turn_end: str | None = None,
    ) -> None:
        self.name = name  # as on the command line and in session names: `claude-code:<id>`
        self.label = label  # for people: "Claude Code"
        self.session_start = session_start  # a conversation starts, resumes or is compacted
        self.prompt = prompt  # the person submits a prompt
        self.after_tool = after_tool  # a tool call succeeded
        self.plan_tools = plan_tools  # plan tool name -> `plansight/ingest` format
        self.edit_tools = edit_tools  # tools that change files
        # The session start's `source` values after which the model's context no longer
        # holds the plan it had (compacted, resumed from disk, cleared): told it whole.
        self.lost_context_sources = lost_context_sources
        # (event, matcher) of a compression that fires no session start and reads no
        # context back: the hook notes it, and the next prompt tells the plan whole. The
        # matcher is setup's, on the event's `trigger`: its triggers joined by `|`.
        self.compression = compression
        # Whether a compression's whole plan waits for the next prompt: the agent drops
        # what a hook added to a tool result when it swaps its compacted history in.
        self.compression_told_at_prompt = compression_told_at_prompt
        # Whether the session start of a `/clear` reads the hook's context back; if not,
        # the plan a cleared conversation carries on is told whole at the next prompt.
        self.clear_reads_context = clear_reads_context
        # Whether the agent's `/clear` starts its new conversation as a fresh start does
        # (SessionStart `new`, no `clear`): then a conversation that starts in the agent
        # process whose hooks last heard another conversation of the folder is that one's
        # successor (`hook/run.py`, `_cleared_in_process`).
        self.clear_starts_new = clear_starts_new
        # The SessionStart `source` of a fork's first event: "fork", or Copilot CLI's
        # "resume", which its fork's log tells from a plain resume (`hook/resume.py`).
        self.fork_source = fork_source
        # The event before each model request whose payload shows the request's messages:
        # where an automatic compression the agent tells no hook about can be seen.
        self.model_request = model_request
        # Whether the agent frames a hook's additional context itself and escapes tags in
        # it: then the hook's note goes without our `<system-reminder>` / `<reminder>`
        # tags, which its model would read as escaped markup (`&lt;system-reminder>`);
        # else they mark the note as the harness's (see docs/protocol.md, "How each
        # agent's note is wrapped", and tests/fixtures/model_requests/README.md).
        self.frames_context = frames_context
        # The event at a turn's end that carries the assistant's last message: where a plan
        # mode that proposes its plan as text, with no tool call, is heard (Codex's
        # `<proposed_plan>`, `hook/plan_mode.py`).
        self.turn_end = turn_end

    @property
    def tool_matcher(self) -> str:
        """The after-tool matcher: only the tools the hook reads start it at all."""
        return "|".join((*self.plan_tools, *sorted(self.edit_tools)))


CLAUDE_CODE = Agent(
    name="claude-code",
    label="Claude Code",
    session_start="SessionStart",
    prompt="UserPromptSubmit",
    after_tool="PostToolUse",
    # TodoWrite is Claude Code's plan tool before 2.1 (and with CLAUDE_CODE_ENABLE_TASKS=false);
    # 2.1 plans with TaskCreate / TaskUpdate (`sdk-tools.d.ts` in @anthropic-ai/claude-code).
    plan_tools={
        "TodoWrite": "claude-todowrite",
        "TaskCreate": "claude-tasks",
        "TaskUpdate": "claude-tasks",
        # Leaving plan mode: the approved plan, markdown (`hook/plan_mode.py`).
        "ExitPlanMode": "markdown",
    },
    edit_tools=frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"}),
    # SessionStart's `source`: startup | resume | clear | compact | fork; after a
    # compaction Claude Code runs SessionStart with "compact" and adds its context.
    lost_context_sources=frozenset({"resume", "clear", "compact"}),
    # 2.1.332 sends a hook's context as a system message of its own,
    # "PostToolUse:TodoWrite hook additional context: ...", and writes `<` of a
    # `<system-reminder>` in it `&lt;` (`hook-context-claude-code.json`).
    frames_context=True,
)

CODEX = Agent(
    name="codex",
    label="Codex CLI",
    session_start="SessionStart",
    prompt="UserPromptSubmit",
    after_tool="PostToolUse",
    # Codex serializes a function tool's own name as `tool_name` (update_plan) and names
    # file edits `apply_patch` whatever the model called (codex-rs core/src/tools).
    plan_tools={"update_plan": "codex-plan"},
    edit_tools=frozenset({"apply_patch"}),
    # session-start.command.input.schema.json: startup | resume | clear | compact | fork;
    # Codex runs SessionStart with "compact" once a compaction replaced the history, and
    # its PreCompact / PostCompact read no context back.
    lost_context_sources=frozenset({"resume", "clear", "compact"}),
    # 0.171 adds a hook's context as a developer message, as it is: our tags reach the
    # model unchanged and mark the note (`hook-context-codex.json`).
    # stop.command.input: `last_assistant_message`, where its plan mode's
    # `<proposed_plan>` block is (`tests/fixtures/hooks/codex/Stop-proposed_plan.json`).
    turn_end="Stop",
)

GEMINI = Agent(
    name="gemini",
    label="Gemini CLI",
    session_start="SessionStart",
    prompt="BeforeAgent",
    after_tool="AfterTool",
    # exit_plan_mode: leaving plan mode, the approved plan in a markdown file
    # (`hook/plan_mode.py`).
    # tracker_*: the task tracker that replaces write_todos when `experimental.taskTracker`
    # is on (0.61, `trackerTools.ts`); creating, changing and linking tasks change the plan.
    plan_tools={
        "write_todos": "gemini-todos",
        "exit_plan_mode": "markdown",
        "tracker_create_task": "gemini-tracker",
        "tracker_update_task": "gemini-tracker",
        "tracker_add_dependency": "gemini-tracker",
    },
    edit_tools=frozenset({"replace", "write_file"}),
    # SessionStart's `source`: startup | resume | clear. A compression runs PreCompress
    # only, which reads nothing back; with trigger "auto" it runs before every model
    # request (before the threshold check, 0.61), so only "manual" (`/compress`) is heard
    # there. An automatic one shows in the next BeforeModel's `llm_request.messages`: the
    # summary as a user message, then the model's fixed "Got it. Thanks for the
    # additional context!" (`ChatCompressionService.compress`).
    lost_context_sources=frozenset({"resume", "clear"}),
    compression=("PreCompress", "manual"),
    model_request="BeforeModel",
    # `/clear` (clearCommand.ts) runs SessionStart "clear" under a new session id and
    # shows only its systemMessage; only the startup / resume one adds the context.
    clear_reads_context=False,
    # 0.61 puts a hook's context inside its own `<hook_context>` and writes every `<` and
    # `>` in it `&lt;`, `&gt;` (`hook-context-gemini.json`).
    frames_context=True,
)

COPILOT = Agent(
    name="copilot",
    label="GitHub Copilot",
    # Copilot CLI (1.0.102) runs a hook file's Claude-style events (`SessionStart`,
    # `UserPromptSubmit`, `PostToolUse`) with Claude-style input (`hook_event_name`,
    # `session_id`, `tool_name`, `tool_input`, `tool_result`); VS Code's agent mode reads the
    # same files and events (its hooks documentation: `sessionId`, `hookEventName`).
    # Copilot CLI plans in its session database: the `sql` tool writes the `todos` table
    # (`hook/copilot_todos.py` reads it back); VS Code's agent plans with manage_todo_list.
    # Leaving its plan mode is `exit_plan_mode`: the approved plan is the session's
    # `plan.md` (`hook/plan_mode.py`).
    plan_tools={
        "sql": "vscode-todos",
        "manage_todo_list": "vscode-todos",
        "exit_plan_mode": "markdown",
    },
    session_start="SessionStart",
    prompt="UserPromptSubmit",
    after_tool="PostToolUse",
    # Copilot CLI's `create` and `edit` reach hooks under Claude's names, with a `path`;
    # its freeform `apply_patch` (GPT-5.1-Codex and later) as `Edit`, the patch as text.
    edit_tools=frozenset({"Edit", "Write"}),
    # SessionStart's `source`: new | startup | resume (the SDK's SessionStartHookInput).
    lost_context_sources=frozenset({"resume"}),
    # 1.0.102's `/clear` and `/new` start a new session (a new id) in the same process,
    # its SessionStart `new` with the next prompt, as a fresh `copilot` does
    # (`SessionStart-clear.json`); `/branch` (`/fork`) copies the conversation into a new
    # session and resumes it, its SessionStart `resume` (`SessionStart-branch.json`).
    clear_starts_new=True,
    fork_source="resume",
    # 1.0.102's `/compact` runs `PreCompact` (trigger "manual"), its own compaction near
    # the prompt limit `PreCompact` (trigger "auto", as it starts, in the background,
    # mid-turn), and no SessionStart after either; nothing is read back
    # (`tests/fixtures/hooks/copilot/PreCompact-*.json`). The compacted history it swaps
    # in holds the tool results without what hooks added to them (seen with the real
    # CLI, `test_copilot_hears_its_automatic_compaction`): the next prompt tells the plan
    # whole, not a tool result.
    compression=("PreCompact", "manual|auto"),
    compression_told_at_prompt=True,
    # 1.0.102 adds a tool's hook context after "Additional guidance from postToolUse
    # hooks:", as it is: our tags reach the model unchanged (`hook-context-copilot.json`).
)

# OpenCode (1.18.33) has no command hooks: the plugin `plansight setup opencode` writes
# (`setup/opencode_setup.py`) runs `plansight hook opencode` from its plugin hooks with events of
# this shape, its own (documented in `tests/fixtures/hooks/opencode/README.md`), and puts
# the reply's context where OpenCode's model reads it: after the tool's result
# (`tool.execute.after`), as a part of the prompt (`chat.message`).
OPENCODE = Agent(
    name="opencode",
    label="OpenCode",
    # Sent by the plugin before the first prompt a session has in this OpenCode, for a fork
    # (`source: "fork"`, `forked_from`: the session its command line forked) or a new
    # session after another (`"clear"`: the TUI's `/new`, alias `/clear`); no OpenCode hook
    # reads context back at a start, so its reply goes with that prompt (`chat.message`).
    session_start="SessionStart",
    prompt="UserPromptSubmit",  # `chat.message`
    after_tool="PostToolUse",  # `tool.execute.after`, with the tool's `args` as tool_input
    # plan_exit: its plan agent's end, approved; the plan is the plan file the
    # conversation last wrote (`hook/plan_mode.py`).
    plan_tools={"todowrite": "opencode-todos", "plan_exit": "markdown"},
    # OpenCode's own names (its bundled tool registry): `edit` and `write` take a
    # `filePath`, `apply_patch` (offered to GPT models) a Codex-style `patchText`.
    edit_tools=frozenset({"edit", "write", "apply_patch"}),
    # OpenCode keeps a resumed session's whole history: only a compaction loses the plan.
    lost_context_sources=frozenset(),
    # `experimental.session.compacting`, which OpenCode awaits before it summarizes: the
    # next prompt or plan / edit tool result tells the plan whole.
    compression=("PreCompact", "compact"),
)

# The agents `plansight setup` writes command hooks for (and doctor checks them).
AGENTS: dict[str, Agent] = {agent.name: agent for agent in (CLAUDE_CODE, CODEX, GEMINI, COPILOT)}
# Every agent `plansight hook AGENT` takes: those, and OpenCode through its plugin.
HOOK_AGENTS: dict[str, Agent] = AGENTS | {OPENCODE.name: OPENCODE}
