"""A team store's password is never shown (issue 20 items 15 and 16): redaction reads a
URL as libpq does (`?`, `#`, `/` and `@` can sit in a password), `password=` settings are
hidden, and no face turns a URL into a file path: `store-path`, the CLI's errors and the
language server's `initialize` error say where the store is without the secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from reliability_wire import WireClient

from plansight.store import StoreError, open_store
from plansight.store.location import redact_settings, redact_text, redact_url

SECRET_URLS = [
    # What libpq takes for the password, and the URL a person typed.
    ("pa?ss", "postgresql://u:pa?ss@h/db"),
    ("pa#ss", "postgresql://u:pa#ss@h/db"),
    ("pa?s#s", "postgres://u:pa?s#s@h:5433/db?sslmode=require"),
    ("p@ss", "postgresql://u:p@ss@h/db"),
    ("pa/ss", "postgresql://u:pa/ss@h/db"),
    ("topsecret", "postgresql://u@h/db?password=topsecret"),
    ("se@cret", "postgresql://h/db?password=se@cret"),
    ("hunter2", "postgresql://u:hunter2@/db?host=/run/postgresql"),
]


def secret_pieces(secret: str) -> list[str]:
    """The secret and every part of it a wrong split would show (`pa` of `pa?ss`)."""
    pieces = [secret]
    for mark in "?#/@":
        pieces += [piece for piece in secret.split(mark) if len(piece) >= 2]
    return pieces


@pytest.mark.parametrize(("secret", "url"), SECRET_URLS)
def test_a_url_is_shown_without_any_part_of_its_password(secret: str, url: str) -> None:
    shown = redact_url(url)
    assert shown.startswith(url.split("://")[0] + "://")
    for piece in secret_pieces(secret):
        assert piece not in shown.split("://", 1)[1], (url, shown)
    assert redact_text(f"cannot open {url} now") == f"cannot open {shown} now"


@pytest.mark.parametrize(
    "url", ["postgresql://u:pa?ss@h/db", "postgresql://u:pa#ss@h/db", "postgresql://u:pw@ss@h/db"]
)
def test_what_libpq_takes_for_the_password_is_what_is_hidden(url: str) -> None:
    password = psycopg.conninfo.conninfo_to_dict(url)["password"]
    assert password not in redact_url(url).split("://", 1)[1]
    assert redact_url(url).startswith("postgresql://u:****@")


def test_password_settings_of_a_conninfo_string_are_hidden() -> None:
    assert redact_settings("host=h password=pa55 dbname=x") == "host=h password=**** dbname=x"
    assert redact_settings("host=h password = 'a b\\' c' dbname=x") == (
        "host=h password = **** dbname=x"
    )
    assert redact_settings("postgresql://h/db?sslmode=x&PASSWORD=pa55&a=b") == (
        "postgresql://h/db?sslmode=x&PASSWORD=****&a=b"
    )


def plansight(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args],
        capture_output=True,
        text=True,
        timeout=60,  # a guard against a hang, not a speed check
        cwd=cwd,
        env={**os.environ, "XDG_STATE_HOME": str(cwd / "state"), **(env or {})},
        check=False,
    )


def test_store_path_prints_a_team_store_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://alice:secret@db.example/plans"
    for done in (
        plansight("store-path", "--db", url, cwd=tmp_path),
        plansight("store-path", cwd=tmp_path, env={"PLANSIGHT_DB": url}),
    ):
        assert done.returncode == 0, done.stderr
        assert done.stdout == "postgresql://alice:****@db.example/plans\n"


def test_the_cli_error_never_shows_a_password_libpq_would_parse(tmp_path: Path) -> None:
    # No server at that socket folder: libpq fails at once, and the error names the store.
    url = f"postgresql://u:pa?ss@/db?host={tmp_path / 'nowhere'}"
    done = plansight("show", "--db", url, cwd=tmp_path)
    assert done.returncode == 2
    assert "postgresql://u:****@/db" in done.stderr
    assert "pa?ss" not in done.stderr and "ss@" not in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "location",
    [
        "postgresql:/alice:secret@db.example/plans",
        "mysql://alice:secret@db.example/plans",
        "host=db.example dbname=plans password=secret",
    ],
)
def test_a_url_the_store_cannot_use_is_refused_never_made_a_file(
    location: str, tmp_path: Path
) -> None:
    done = plansight(
        "apply", "--db", location, "--ops", '[{"op":"append","items":["x"]}]', cwd=tmp_path
    )
    assert done.returncode == 2
    assert "not a plan store" in done.stderr and "secret" not in done.stderr
    made = [p.name for p in tmp_path.rglob("*") if p.name != "state"]
    assert made == [], made
    with pytest.raises(StoreError):
        open_store(location)


def test_the_initialize_error_never_shows_the_password(tmp_path: Path) -> None:
    url = f"postgresql://u:pa?ss@/db?host={tmp_path / 'nowhere'}"
    for db, env in ((url, None), (None, {**os.environ, "PLANSIGHT_DB": url})):
        client = WireClient(db, log_dir=tmp_path, env=env, cwd=tmp_path)
        try:
            answer = client.call(
                "initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}}
            )
        finally:
            client.cleanup()
        error = answer["error"]
        assert error["code"] == -32803
        text = str(error)
        assert "postgresql://u:****@/db" in text
        assert "pa?ss" not in text and "ss@" not in text, text
        assert "pa?ss" not in client.stderr_path.read_text(errors="replace")
