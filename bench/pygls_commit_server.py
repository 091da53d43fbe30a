"""A bare pygls 2 server with one request, `bench/change`: with `--commit`, one SQLite
write transaction like a change's smallest (a row updated, an event of 1 KB appended,
`BEGIN IMMEDIATE` ... `COMMIT` on a WAL file, `synchronous=NORMAL`); then a push and
the answer. What a server pays per change before any of Plansight's own work
(`bench/fixed_floor.py`). Not part of the package.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "0", converter_factory=get_converter)
db: sqlite3.Connection | None = None
if "--commit" in sys.argv:
    path = Path(tempfile.mkdtemp()) / "floor.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE head (name TEXT PRIMARY KEY, version INTEGER)")
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, name TEXT, body TEXT)")
    db.execute("INSERT INTO head VALUES ('bench', 0)")


@server.feature("bench/change")
def change(ls: LanguageServer, params: Any) -> Any:
    if db is not None:
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE head SET version = version + 1 WHERE name = 'bench'")
        db.execute("INSERT INTO events (name, body) VALUES ('bench', ?)", ("x" * 1024,))
        db.execute("COMMIT")
    ls.protocol.notify("plansight/didChange", {"session": "bench"})
    return {"changed": True}


if __name__ == "__main__":
    server.start_io()
