"""Where a store lives: a SQLite file path, or a PostgreSQL URL for a team store. A URL
can carry a password (and its query a password, key paths or socket folders), so it is
only ever shown as `postgresql://user:****@host:port/db`."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from plansight.paths import resolve_store_path

URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: str) -> bool:
    return location.lower().startswith(URL_SCHEMES)


def redact_url(url: str) -> str:
    """The URL without its secrets: the password becomes `****`, the query goes."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            auth, host = netloc.rsplit("@", 1)
            user = auth.split(":", 1)[0]
            netloc = f"{user}:****@{host}" if ":" in auth else f"{user}@{host}"
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        # Not even a URL we can take apart: show only what kind of place it is.
        return url.split(":", 1)[0] + "://****"


def store_location(explicit: str | None, root: str | os.PathLike[str] | None) -> str:
    """As `resolve_store_path`, except that a `postgresql://` URL is kept as it is."""
    for given in (explicit, os.environ.get("PLANSIGHT_DB")):
        if given and is_postgres_url(given):
            return given
        if given:
            break
    return str(resolve_store_path(explicit, root))
