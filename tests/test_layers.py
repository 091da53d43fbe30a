"""The house's floors, as docs/architecture.md draws them: every import of Plansight's own
modules points down (or stays on its floor), so nothing below learns of what is above it
and there is no import circle between the parts."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "plansight"

# Each part and the parts it may import (besides itself). Lower floors first.
ALLOWED: dict[str, set[str]] = {
    "protocol": set(),
    "core": {"protocol"},
    "agents": {"protocol", "core"},
    # Which git checkout a folder is in (v4): git's own files, read with the standard library.
    "checkouts": {"regular_file"},
    "paths": {"checkouts"},
    "logs": {"paths"},  # the hook's log file is in the state folder
    "folders": set(),
    "regular_file": set(),  # reading a file anyone may have replaced (setup, the hook)
    # The hooks name their agent's conversation there for its MCP server.
    "conversation_link": {"regular_file"},
    # Whether Codex trusts Plansight's hooks, from Codex's files (the MCP server, watch).
    "codex_hook_trust": {"regular_file"},
    # store/ with each backend's package (store/sqlite/, store/postgres/): one floor.
    "store": {"protocol", "core", "paths", "checkouts"},
    "wire": {"protocol", "core", "store"},
    "validation": {"protocol"},
    "context_round": {"protocol", "core", "store"},
    # What each changing request does (`ChangePolicy`), and one call's facts.
    "policies": {"core", "wire"},
    # The agent's base and what it is told; the change pipeline, on both.
    "agent_view": {"core", "store", "policies"},
    "pipeline": {"protocol", "core", "store", "wire", "policies", "agent_view"},
    "service": {
        "protocol",
        "core",
        "agents",
        "store",
        "wire",
        "validation",
        "context_round",
        "policies",
        "agent_view",
        "pipeline",
    },
    # Each request of the registry bound to the service method that answers it.
    "bindings": {"protocol", "service", "wire"},
    # The faces: each stands on the service and what is below it, never on another face.
    "lsp": {
        "protocol",
        "core",
        "paths",
        "store",
        "wire",
        "validation",
        "service",
        "bindings",
        "plansight",
    },
    "mcp": {
        "codex_hook_trust",
        "protocol",
        "core",
        "paths",
        "folders",
        "store",
        "wire",
        "validation",
        "service",
        "bindings",
        "plansight",
        "conversation_link",
    },
    "hook": {
        "protocol",
        "core",
        "agents",  # the spool asks a plan payload's adapter whether it is a whole list
        "paths",
        "regular_file",
        "folders",
        "store",
        "validation",
        "service",
        "context_round",
        "logs",  # the hook's log file
        "conversation_link",
    },
    # Writes the hook commands that `hook` reads; `plansight doctor` opens the store as
    # every face does (`open_store`).
    "setup": {"paths", "regular_file", "hook", "store", "codex_hook_trust"},
    # The command line starts every face but the hook, which the warm process runs (`warm/`).
    "cli": {
        "codex_hook_trust",
        "protocol",
        "core",
        "paths",
        "logs",
        "folders",
        "store",
        "validation",
        "service",
        "bindings",
        "lsp",
        "mcp",
        "setup",
        "plansight",
    },
    # The warm process answers hook events and the command line's one-shot commands: it
    # stands above both, and its entry is the `plansight` command's.
    "warm": {"paths", "logs", "folders", "conversation_link", "hook", "cli"},
    "__main__": {"warm"},
    "plansight": set(),  # the package's __init__: its version
}


def part_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    if len(relative.parts) == 1:
        return "plansight" if relative.stem == "__init__" else relative.stem
    return relative.parts[0]


def imported_parts(path: Path) -> set[str]:
    parts = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            pieces = name.split(".")
            if pieces[0] == "plansight":
                parts.add(pieces[1] if len(pieces) > 1 else "plansight")
    return parts


def test_every_part_has_a_floor() -> None:
    parts = {part_of(path) for path in PACKAGE.rglob("*.py")}
    assert parts <= set(ALLOWED), f"new parts without a floor: {sorted(parts - set(ALLOWED))}"


def test_imports_only_point_down() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        part = part_of(path)
        for imported in imported_parts(path) - {part} - ALLOWED.get(part, set()):
            wrong.append(f"{path.relative_to(PACKAGE)} imports plansight.{imported}")
    assert not wrong, "imports running up or sideways:\n" + "\n".join(wrong)


def test_the_contract_is_at_the_bottom() -> None:
    for path in (PACKAGE / "protocol").rglob("*.py"):
        assert imported_parts(path) <= {"protocol"}, path.name


# The faces and the store's modules they may import: the opener and the interface (errors,
# types, how a location is written and shown). A backend's module is the store's own.
FACES = ("lsp", "mcp", "hook", "cli", "setup", "warm")
STORE_FOR_FACES = {
    "plansight.store",
    "plansight.store.base",
    "plansight.store.store_error",
    "plansight.store.location",
}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            # `from plansight.store import sqlite` names a module too.
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def face_files() -> list[Path]:
    return sorted(path for face in FACES for path in (PACKAGE / face).rglob("*.py"))


def backend_imports(path: Path) -> list[str]:
    store_modules = {name for name in imported_modules(path) if name.startswith("plansight.store.")}
    # Every module of the store's part: its own and those of each backend's package.
    known = {module_name(p) for p in (PACKAGE / "store").rglob("*.py")}
    return sorted((store_modules & known) - STORE_FOR_FACES)


def service_store_reaches(path: Path) -> list[int]:
    """Lines where a face reaches through a service into its store (`service.store`)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and node.attr == "store"
        and "service" in ast.unparse(node.value)
    )


def service_methods_by_name(path: Path) -> list[int]:
    """Lines where a face looks up a service's method by its name (`getattr(service, name)`)
    instead of calling it through its binding (`bindings.py`) or by name in code."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and node.args
        and "service" in ast.unparse(node.args[0])
    )


def test_faces_open_stores_only_through_open_store() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in face_files()
        for module in backend_imports(path)
    ]
    assert not wrong, "faces importing a store backend:\n" + "\n".join(wrong)


def test_faces_reach_the_store_only_through_the_service() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in face_files()
        for line in service_store_reaches(path)
    ]
    assert not wrong, "faces reaching into service.store:\n" + "\n".join(wrong)


def test_faces_never_look_up_a_service_method_by_its_name() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in face_files()
        for line in service_methods_by_name(path)
    ]
    assert not wrong, "faces calling the service by a string:\n" + "\n".join(wrong)


def test_the_face_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    face = tmp_path / "face.py"
    face.write_text(
        "from plansight.store.sqlite import SqliteStore\n"
        "from plansight.store import postgres\n"
        "from plansight.store.postgres.writes import prune_payloads\n"
        "def f(service):\n    return service.store.load('s')\n"
        "def g(ls, name):\n    return getattr(ls.require_service(), name)({})\n",
        encoding="utf-8",
    )
    assert backend_imports(face) == [
        "plansight.store.postgres",
        "plansight.store.postgres.writes",
        "plansight.store.sqlite",
    ]
    assert service_store_reaches(face) == [5]
    assert service_methods_by_name(face) == [7]


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def import_circles() -> list[list[str]]:
    """Circles of modules importing each other, at any depth of a file (an import inside a
    function is still a circle: the modules then only work together)."""
    names = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    # A module's own package is not counted (`from plansight.store import rows` in
    # `store/sqlite/reads.py` loads `store/__init__.py` first, as every submodule import does).
    graph = {
        name: sorted(
            m
            for m in imported_modules(path)
            if m in names and m != name and not name.startswith(m + ".")
        )
        for name, path in names.items()
    }
    circles: list[list[str]] = []
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append([*trail[trail.index(name) :], name])
            return
        if name in done:
            return
        for imported in graph[name]:
            walk(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        walk(name, [])
    return circles


def test_no_two_modules_import_each_other() -> None:
    assert import_circles() == []
