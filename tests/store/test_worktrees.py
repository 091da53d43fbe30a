"""The worktrees of one repository share one store (v4): a linked worktree's root maps to
its main working tree's, read from git's own files; each session keeps the checkout its
last agent change came from. Real repositories, made by git."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from git_checkouts import git, linked_worktree, repository
from plansight.checkouts import Checkout, checkout_of, store_root
from plansight.paths import default_store_path
from plansight.store.workspace import workspace_key


def plansight(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def store_path_in(folder: Path) -> str:
    asked = plansight("store-path", cwd=folder)
    assert asked.returncode == 0, asked.stderr
    return asked.stdout.strip()


def test_store_path_is_the_same_in_a_linked_worktree_and_its_main_tree(tmp_path: Path) -> None:
    main = repository(tmp_path / "repo")
    beside = linked_worktree(main, tmp_path / "wt", "feature")
    inside = linked_worktree(main, main / ".worktrees" / "fix", "fix")
    (beside / "src").mkdir()
    shared = store_path_in(main)
    assert shared == str(default_store_path(main))
    assert store_path_in(beside) == shared
    assert store_path_in(beside / "src") == shared  # a shell anywhere in the worktree
    assert store_path_in(inside) == shared
    # An editor opened on the worktree's folder asks with it as its root.
    asked = plansight("store-path", "--root", str(beside), cwd=tmp_path)
    assert asked.stdout.strip() == shared


def test_checkout_names_the_worktree_and_its_branch(tmp_path: Path) -> None:
    main = repository(tmp_path / "repo")
    beside = linked_worktree(main, tmp_path / "wt", "feature")
    inside = linked_worktree(main, main / "trees" / "fix", "fix/one")
    assert checkout_of(main) == Checkout(None, "main")
    assert checkout_of(beside) == Checkout(str(beside.resolve()), "feature")
    assert checkout_of(inside) == Checkout("trees/fix", "fix/one")
    (inside / "deep").mkdir()
    assert checkout_of(inside / "deep") == Checkout("trees/fix", "fix/one")
    assert checkout_of(tmp_path) is None  # in no git checkout


def test_a_detached_head_has_no_branch(tmp_path: Path) -> None:
    main = repository(tmp_path / "repo")
    git("worktree", "add", "-q", "--detach", str(tmp_path / "wt"), cwd=main)
    assert checkout_of(tmp_path / "wt") == Checkout(str((tmp_path / "wt").resolve()), None)
    assert store_root(tmp_path / "wt") == main.resolve()


def test_a_submodule_keeps_its_own_root(tmp_path: Path) -> None:
    """A submodule's `.git` file points into the superproject's `.git/modules/`: it is
    not a linked worktree, and its store is its own."""
    outer = repository(tmp_path / "outer")
    modules = outer / ".git" / "modules" / "lib"
    repository(tmp_path / "lib-source")
    git("clone", "-q", "--bare", str(tmp_path / "lib-source"), str(modules), cwd=tmp_path)
    git("config", "core.bare", "false", cwd=modules)
    sub = outer / "lib"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../.git/modules/lib\n")
    git("config", "core.worktree", "../../../lib", cwd=modules)
    assert store_root(sub) == sub
    assert checkout_of(sub) == Checkout(None, "main")
    assert store_path_in(sub) == str(default_store_path(sub))


def test_a_bare_repositorys_worktrees_keep_their_own_roots(tmp_path: Path) -> None:
    """A bare repository has no main working tree to share: even one kept as a `.git`
    folder (the `git clone --bare url project/.git` habit)."""
    source = repository(tmp_path / "source")
    for bare in (tmp_path / "plain.git", tmp_path / "project" / ".git"):
        git("clone", "-q", "--bare", str(source), str(bare), cwd=tmp_path)
        tree = linked_worktree(bare, bare.parent / f"{bare.name}-work", f"b-{bare.parent.name}")
        assert store_root(tree) == tree
        assert checkout_of(tree) == Checkout(None, f"b-{bare.parent.name}")
        assert store_path_in(tree) == str(default_store_path(tree))


@pytest.mark.parametrize(
    "dotgit",
    [
        b"",
        b"gitdir:",
        b"gitdir: /nowhere/at/all/.git/worktrees/x\n",
        b"not git at all\n",
        b"gitdir: " + b"a" * 200_000,
        b"\xff\xfe\x00gitdir",
    ],
)
def test_a_broken_dotgit_file_keeps_the_folders_own_root(tmp_path: Path, dotgit: bytes) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / ".git").write_bytes(dotgit)
    assert store_root(folder) == folder
    assert checkout_of(folder) == Checkout(None, None)
    assert store_path_in(folder) == str(default_store_path(folder))


def test_a_dotgit_file_naming_a_foreign_worktrees_entry_is_not_followed(tmp_path: Path) -> None:
    """An entry whose `commondir` names another repository than the one holding it."""
    main = repository(tmp_path / "repo")
    other = repository(tmp_path / "other")
    fake = main / ".git" / "worktrees" / "fake"
    fake.mkdir(parents=True)
    (fake / "commondir").write_text(os.path.relpath(other / ".git", fake) + "\n")
    (fake / "HEAD").write_text("ref: refs/heads/x\n")
    folder = tmp_path / "fake"
    folder.mkdir()
    (folder / ".git").write_text(f"gitdir: {fake}\n")
    assert store_root(folder) == folder


def test_the_team_store_key_from_the_folder_name_is_the_main_trees(tmp_path: Path) -> None:
    main = repository(tmp_path / "repo")
    beside = linked_worktree(main, tmp_path / "wt", "feature")
    assert workspace_key(beside) == workspace_key(main) == "repo"
