"""The team database as one process holds it: the data connection (opened again after the
server ended it), its transactions and how a driver's failure leaves (`StoreError` with its
reason), the schema brought up to date on opening, and the store's state, which reading,
writing and watching (`reads`, `writes`, `watching`) each add their methods over."""

from __future__ import annotations

import hashlib
import logging
import secrets
import select
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from plansight.store.location import redact_url
from plansight.store.postgres.connect import connect, lock_timeout, require_driver, translate
from plansight.store.postgres.listen import ChangeListener
from plansight.store.postgres.schema import NewerSchema, migrate
from plansight.store.session_cache import SessionCache
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)

# A consistent read of several statements, taking no lock.
READ_ONLY = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"


def channel_of(workspace: str) -> str:
    """A NOTIFY channel per workspace (an identifier: at most 63 bytes, so a digest)."""
    return "plansight_" + hashlib.sha256(workspace.encode("utf-8")).hexdigest()[:24]


class PostgresDatabase:
    """The team database and the state every job of the store holds over it."""

    def __init__(self, url: str, workspace: str, wait_seconds: float | None = None) -> None:
        """`wait_seconds`: how long to wait for the server and for another writer's lock
        (default: 10 s each; an agent's hook waits less)."""
        require_driver()
        self._wait_seconds = wait_seconds
        self.lock_timeout = lock_timeout(wait_seconds)
        self.path = redact_url(url)  # where the store is, as it may be shown or logged
        self.url = url
        self.workspace = workspace
        self.channel = channel_of(workspace)
        self.writer = secrets.token_hex(8)  # tells our own commits from other processes'
        self._db: Any = None
        self._cache = SessionCache()  # the sessions used last (a bounded cache, not the store)
        self._listener: ChangeListener | None = None
        self._seen: dict[str, int] = {}  # session -> newest version pushed or ours
        self._born: dict[str, str] = {}  # session -> its row's created_at, when read
        self._committed: dict[str, int] = {}  # session -> the version we committed last
        # Sessions to read from the tables: a NOTIFY is a hint (any role that can connect
        # can send one), never a version or a prune taken on trust.
        self._due: set[str] = set()
        self._watching = False
        self._catch_up = False  # the listener came back: compare versions before NOTIFYs
        self._pruned: list[str] = []  # sessions gone since the last `pruned` call
        db = self._connection()
        try:
            migrate(db)
        except NewerSchema as exc:
            self.close()
            raise StoreError(
                "unavailable",
                advice=f"the plan store {self.path} was written by a newer Plansight "
                f"(schema {exc.args[0]}): upgrade Plansight to use it",
            ) from None
        except Exception as exc:
            error = self._failed(exc)
            self.close()
            raise error from None

    # ------------------------------------------------------------ connection

    def _connection(self) -> Any:
        """The data connection, opened again after a fault. An idle connection has nothing
        to read unless the server ended it (a restart, a killed backend): then a new one
        serves this request, as nothing of it was sent yet."""
        if self._db is not None and not self._db.closed and _ended_by_server(self._db):
            log.info("the connection to %s was closed by the server; opening another", self.path)
            with suppress(Exception):
                self._db.close()
        if self._db is None or self._db.closed:
            self._db = connect(self.url, self._wait_seconds)
        return self._db

    def _failed(self, exc: Exception) -> StoreError:
        if isinstance(exc, StoreError):
            return exc
        if self._db is not None and (self._db.closed or self._db.broken):
            with suppress(Exception):
                self._db.close()
            self._db = None
            self._cache.clear()
        return translate(exc, self.path)

    @contextmanager
    def _transaction(self, begin: str = "BEGIN") -> Iterator[Any]:
        """One transaction; a psycopg failure leaves as a StoreError with its reason."""
        db = self._connection()
        try:
            with db.pipeline():
                db.execute(begin)
                db.execute(self.lock_timeout)
        except Exception as exc:
            raise self._failed(exc) from None
        with self._rolling_back(db):
            yield db
            db.execute("COMMIT")

    @contextmanager
    def _rolling_back(self, db: Any) -> Iterator[None]:
        """Leaving by an exception rolls back the transaction `db` began; a psycopg
        failure leaves as a StoreError with its reason."""
        try:
            yield
        except BaseException as exc:
            if not db.broken:
                with suppress(Exception):
                    db.execute("ROLLBACK")
            if _is_driver_error(exc):
                raise self._failed(exc) from None  # type: ignore[arg-type]
            raise

    @contextmanager
    def _consistent(self) -> Iterator[Any]:
        """Several reads that see one committed state: inside the edit's transaction when
        one is open (steering's base and `undo` read the history there), else in a read
        transaction of their own."""
        db = self._connection()
        if db.info.transaction_status.name == "IDLE":
            with self._transaction(READ_ONLY) as db:
                yield db
        else:
            yield db

    def _fetch(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One read statement's rows, or StoreError."""
        try:
            return list(self._connection().execute(query, args).fetchall())
        except Exception as exc:
            raise self._failed(exc) from None

    def _gone(self, session: str) -> None:
        self._seen.pop(session, None)
        self._born.pop(session, None)
        self._committed.pop(session, None)
        self._due.discard(session)
        self._cache.forget(session)
        if self._watching:
            self._pruned.append(session)

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self._db is not None:
            with suppress(Exception):
                self._db.close()
            self._db = None


def _ended_by_server(db: Any) -> bool:
    """Whether the server wrote to an idle connection: only its goodbye (or a broken
    socket) arrives unasked on a connection that does not LISTEN."""
    readable, _, _ = select.select([db.fileno()], [], [], 0)
    return bool(readable)


def _is_driver_error(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("psycopg")
