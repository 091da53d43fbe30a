"""A person's markdown document, end to end over stdio against a real store (issue 33
item 3): a line renamed where it stands keeps its task, as Edit Task does, and nesting
written by indent arrives as subtasks (protocol 4)."""

from __future__ import annotations

from typing import Any

from plansight_client import PlansightClient


def tasks(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [task for phase in state["phases"] for task in phase["tasks"]]


async def test_a_line_renamed_in_place_keeps_its_task(client: PlansightClient) -> None:
    ops = [
        {"op": "init", "list": [{"phase": "Build", "items": ["Compile", "Link", "Ship"]}]},
        {"op": "note", "task": "Link", "text": "use lld"},
        {"op": "update", "task": "Link", "addFiles": ["build/link.sh"]},
    ]
    built = await client.call("plansight/apply", {"session": "doc", "ops": ops})
    link = tasks(built)[1]
    shown = (await client.call("plansight/export", {"session": "doc", "format": "markdown"}))[
        "text"
    ]

    edited = shown.replace("- [ ] Link\n", "- [ ] Link with lld\n")
    result = await client.call(
        "plansight/import",
        {"session": "doc", "origin": "user", "baseVersion": built["version"], "markdown": edited},
    )

    assert result["errors"] == []
    renamed = tasks(result)[1]
    assert renamed["content"] == "Link with lld"
    assert (renamed["id"], renamed["notes"], renamed["files"]) == (
        link["id"],
        ["use lld"],
        ["build/link.sh"],
    )
    history = await client.call("plansight/history", {"session": "doc", "limit": 1})
    assert history["events"][0]["changes"] == ['renamed "Link" to "Link with lld"']


async def test_a_line_removed_and_another_added_elsewhere_stay_so(
    client: PlansightClient,
) -> None:
    ops = [{"op": "init", "list": [{"phase": "P", "items": ["a", "b", "c"]}]}]
    built = await client.call("plansight/apply", {"session": "moved", "ops": ops})
    result = await client.call(
        "plansight/import",
        {"session": "moved", "origin": "user", "markdown": "## P\n- [/] a\n- [ ] c\n- [ ] d\n"},
    )
    assert [t["content"] for t in result["removedTasks"]] == ["b"]
    assert tasks(result)[2]["id"] not in {t["id"] for t in tasks(built)}


async def test_an_indented_line_arrives_as_a_subtask(client: PlansightClient) -> None:
    result = await client.call(
        "plansight/import",
        {"session": "nest", "markdown": "## P\n- [ ] Build\n\t- [ ] Compile\n    - [ ] Link\n"},
    )
    assert result["errors"] == []  # a tab is four spaces: Link is Compile's sibling
    build, compile_, link = tasks(result)
    assert (build["parent"], compile_["parent"], link["parent"]) == (None, build["id"], build["id"])
    text = (await client.call("plansight/export", {"session": "nest", "format": "markdown"}))[
        "text"
    ]
    # An agent's import starts its first leaf (auto-start counts leaves), so Build too.
    assert text.split("\n")[1:4] == ["- [/] Build", "  - [/] Compile", "  - [ ] Link"]
