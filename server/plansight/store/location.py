"""Where a store lives: a SQLite file path, or a PostgreSQL URL for a team store. A URL
can carry a password (and its query a password, key paths or socket folders), so it is
only ever shown as `postgresql://user:****@host:port/db`."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

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
