"""Opening PostgreSQL connections, and saying why one failed without giving away a secret.

libpq messages can name socket paths and hosts, and a malformed URL is echoed whole,
password included: a person sees the redacted URL and a reason in our own words instead.
"""

from __future__ import annotations

import logging
from typing import Any

from plansight.store.location import redact_url
from plansight.store.store_error import StoreError

log = logging.getLogger(__name__)

try:
    import psycopg
    from psycopg import conninfo, errors
except ImportError:  # an optional dependency: `pip install 'plansight[postgres]'`
    psycopg = None  # type: ignore[assignment]

# Defaults a team can override in the URL (`?connect_timeout=3`).
_DEFAULTS: dict[str, Any] = {
    "connect_timeout": 10,
    "application_name": "plansight",
    # A network that drops silently is noticed in about a minute, not hours.
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
# As SQLite's busy timeout: a session locked longer than this by another writer is "busy".
# Set per transaction (`SET LOCAL`), so a pooler in transaction mode carries nothing over.
LOCK_TIMEOUT = "SET LOCAL lock_timeout = '10s'"
# libpq's shortest connect timeout that means what it says (1 is taken as 2).
SHORTEST_CONNECT_SECONDS = 2


def lock_timeout(seconds: float | None) -> str:
    """The statement that bounds a transaction's lock waits (default 10 s)."""
    if seconds is None:
        return LOCK_TIMEOUT
    return f"SET LOCAL lock_timeout = '{max(1, int(seconds * 1000))}ms'"


def require_driver() -> None:
    if psycopg is None:
        raise StoreError(
            "unavailable",
            advice="a PostgreSQL plan store needs the psycopg driver: "
            "pip install 'plansight[postgres]'",
        )


def connect(url: str, wait_seconds: float | None = None) -> Any:
    """An autocommit connection (transactions are opened explicitly), or StoreError.
    `wait_seconds`: give up connecting sooner than the default 10 s (unless the URL
    says), as an agent's hook does."""
    require_driver()
    shown = redact_url(url)
    try:
        given = conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        raise StoreError("unavailable", advice=f"not a valid PostgreSQL URL: {shown}") from None
    defaults = dict(_DEFAULTS)
    if wait_seconds is not None:
        defaults["connect_timeout"] = max(SHORTEST_CONNECT_SECONDS, round(wait_seconds))
    options = {key: value for key, value in defaults.items() if key not in given}
    try:
        db = psycopg.connect(url, autocommit=True, **options)
    except psycopg.Error as exc:
        raise StoreError(
            "unavailable",
            advice=f"cannot open the plan store {shown}: {why(exc)}; "
            "check the URL and that the database server runs, then try again",
        ) from None
    return db


def why(exc: Exception) -> str:
    """A failure of PostgreSQL or of the way to it, in words that name no path or secret."""
    text = str(exc)
    if "password authentication failed" in text or "no password supplied" in text:
        return "the server refused the user name or password"
    if "authentication failed" in text or "pg_hba.conf" in text:
        return "the server refused this user from here (see its pg_hba.conf)"
    if "does not exist" in text and "database" in text:
        return "the database does not exist"
    if "SSL" in text or "ssl" in text:
        return "the SSL connection failed (check sslmode)"
    if psycopg is not None and isinstance(exc, errors.InsufficientPrivilege):
        return "the user lacks the rights on Plansight's tables"
    if psycopg is not None and isinstance(exc, errors.AdminShutdown):
        return "the database server is shutting down or restarting"
    sqlstate = getattr(exc, "sqlstate", None)
    if sqlstate:
        # The server answered and refused a statement: it was reached. Its class and code
        # say which (the message itself may quote a session name or other data).
        return (
            f"the database server refused a statement ({type(exc).__name__}, SQLSTATE {sqlstate})"
        )
    return "the database server cannot be reached"


def translate(exc: Exception, shown: str) -> StoreError:
    """What to raise for a psycopg error met while using the store."""
    if isinstance(exc, (errors.LockNotAvailable, errors.QueryCanceled, errors.TransactionRollback)):
        return StoreError(
            "busy",
            advice=f"the plan store {shown} is busy: another writer holds this session; try again",
        )
    log.warning("plan store %s failed: %s", shown, exc.__class__.__name__)
    return StoreError(
        "unavailable",
        advice=f"the plan store {shown} cannot be used now ({why(exc)}); try again in a moment",
    )
