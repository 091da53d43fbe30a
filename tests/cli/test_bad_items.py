"""An op item given as an object is an `ItemSpec`: the CLI names what that item lacks,
not also that it is not a string."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_an_object_item_gets_the_one_error_that_applies(tmp_path: Path) -> None:
    ops = [
        {
            "op": "init",
            "list": [{"phase": "P", "items": [{"content": "x", "status": "bogus"}, {"text": "y"}]}],
        }
    ]
    db = str(tmp_path / "s.sqlite3")
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "apply", "--db", db, "--ops", json.dumps(ops)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "plansight: ops.0.list.0.items.0.status: Input should be 'pending', 'in_progress', "
        "'completed', 'abandoned' or 'blocked'; ops.0.list.0.items.1.content: Field required\n"
    )
