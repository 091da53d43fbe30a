"""A throwaway PostgreSQL cluster for the tests: Debian's `postgresql` package, `initdb` and
`pg_ctl` in a temp folder, a Unix socket only (no TCP), run as the `postgres` user when the
tests run as root (PostgreSQL refuses root), as RECIPES.md says."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg

# The role the stores connect as: an ordinary role owning its database, so the store is
# shown to need no more rights than its own tables need.
STORE_ROLE = "plansight"
# A role that must give a password (scram), for the wrong-password test.
PASSWORD_ROLE = "teammate"
PASSWORD = "s3cret-Hunter2"


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql (see .ci/run)")


@dataclass
class Cluster:
    folder: Path  # holds the data folder, the log and the socket
    bin: Path
    durable: bool = False  # fsync as in production (the benchmark), or not (the tests)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str, user: str = STORE_ROLE, password: str | None = None) -> str:
        auth = quote(user) + (f":{quote(password)}" if password is not None else "")
        return f"postgresql://{auth}@/{database}?host={quote(str(self.folder))}"

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(self.url(database, "postgres"), autocommit=True)

    def create_database(self) -> str:
        name = "t_" + uuid.uuid4().hex[:12]
        with self.admin() as db:
            # A file copy of the template is faster than writing it through the WAL (15+).
            newer = int(db.execute("SHOW server_version_num").fetchone()[0]) >= 150000
            strategy = " STRATEGY FILE_COPY" if newer else ""
            db.execute(f'CREATE DATABASE "{name}" OWNER {STORE_ROLE}{strategy}')
        return name

    def pg_ctl(self, *args: str) -> None:
        _run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), *args]
        )

    def start(self) -> None:
        options = f"-k {self.folder} -c listen_addresses='' -c max_connections=200"
        if not self.durable:
            # A test cluster: a crash of the machine may lose it, a restart may not.
            options += " -c fsync=off -c full_page_writes=off"
        self.pg_ctl("-w", "-o", options, "start")

    def restart(self) -> None:
        self.pg_ctl("-w", "-m", "fast", "restart")

    def stop(self) -> None:
        self.pg_ctl("-w", "-m", "immediate", "stop")


def _as_owner() -> list[str]:
    """PostgreSQL will not run as root: run its tools as the user the package made."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _run(command: list[str]) -> None:
    subprocess.run(
        [*_as_owner(), *command],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=60,
    )


@contextlib.contextmanager
def running_cluster(durable: bool = False) -> Iterator[Cluster]:
    # Not under pytest's temp folder: the `postgres` user must be able to reach it.
    folder = Path(tempfile.mkdtemp(prefix="plansight-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(folder, _bin_dir(), durable)
    try:
        _run(
            [str(cluster.bin / "initdb"), "-D", str(cluster.data), "-A", "trust", "-U", "postgres"]
        )
        # The password role must prove it; everyone else is trusted on the private socket.
        hba = cluster.data / "pg_hba.conf"
        lines = f"local all {PASSWORD_ROLE} scram-sha-256\nlocal all all trust\n"
        _run(["sh", "-c", f"printf '{lines}' > {hba}"])
        cluster.start()
        with cluster.admin() as db:
            db.execute(f"CREATE ROLE {STORE_ROLE} LOGIN")
            db.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{PASSWORD}'")
        yield cluster
    finally:
        with contextlib.suppress(Exception):
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
