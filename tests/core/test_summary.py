"""The `summary` an agent reads back: errors first, the progress, the current task with
its notes, then every task under its phase with its mark."""

from __future__ import annotations

from .conftest import Json, Request


def build(apply: Request) -> Json:
    return apply(
        {
            "op": "init",
            "list": [
                {
                    "phase": "Setup",
                    "items": [
                        {"content": "Clone the repo", "status": "completed"},
                        {"content": "Pin the toolchain", "status": "abandoned"},
                    ],
                },
                {
                    "phase": "Build",
                    "items": [
                        {
                            "content": "Run the build",
                            "activeForm": "Running the build",
                            "status": "in_progress",
                        },
                        "Fix warnings",
                    ],
                },
            ],
        },
        {"op": "note", "task": "Run the build", "text": "use -j2"},
        {"op": "note", "task": "Run the build", "text": "cache is cold\nexpect 5 min"},
    )


def test_the_summary_lists_progress_current_task_notes_and_every_task(apply: Request) -> None:
    lines = build(apply)["summary"].splitlines()
    assert lines[0] == "Todo list updated: 1/4 completed, 1 abandoned"
    assert lines[1].endswith("Running the build")
    assert "use -j2" in lines[2]
    assert "cache is cold" in lines[3]
    assert "expect 5 min" in lines[4]
    assert lines[5:] == [
        "Setup:",
        "  [x] Clone the repo",
        "  [-] Pin the toolchain",
        "Build:",
        "  [>] Run the build",
        "  [ ] Fix warnings",
    ]


def test_errors_come_first_on_one_line(apply: Request) -> None:
    build(apply)
    result = apply(
        {"op": "done", "task": "Nope"},
        {"op": "done", "task": "Run the build"},
        {"op": "rm", "phase": "Later"},
    )
    lines = result["summary"].splitlines()
    assert lines[0] == 'Errors: Task "Nope" not found; Phase "Later" not found'
    assert lines[1] == "Todo list updated: 2/4 completed, 1 abandoned"
    assert lines[2].endswith("Fix warnings")  # the auto-started task is now current
    assert "  [x] Run the build" in lines
    assert "  [>] Fix warnings" in lines


def test_without_a_current_task_there_is_no_current_line(apply: Request) -> None:
    build(apply)
    lines = apply({"op": "done"})["summary"].splitlines()
    assert lines[0] == "Todo list updated: 3/4 completed, 1 abandoned"
    assert lines[1] == "Setup:"
    assert "Running the build" not in "\n".join(lines)


def test_an_emptied_list_reads_cleared(apply: Request) -> None:
    build(apply)
    summary = apply({"op": "rm"})["summary"]
    first, removed = summary.split("\n")
    assert first == "Todo list cleared."
    assert removed.startswith("Removed ") and "unfinished tasks:" in removed


def test_an_empty_list_with_errors_still_reports_them(apply: Request) -> None:
    result = apply({"op": "done", "task": "ghost"})
    assert result["summary"].splitlines() == [
        'Errors: Task "ghost" not found',
        "Todo list unchanged: 0/0 completed",
    ]


def test_phases_without_tasks_take_no_line(apply: Request) -> None:
    build(apply)
    lines = apply({"op": "rm", "phase": "Setup"})["summary"].splitlines()
    assert "Setup:" not in lines
    assert "Build:" in lines
