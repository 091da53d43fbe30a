"""Where a store lives: a SQLite file path, or a PostgreSQL URL for a team store. A URL
can carry a password (and its query a password, key paths or socket folders), so it is
only ever shown as `postgresql://user:****@host:port/db`."""

from __future__ import annotations

import os
import re

from plansight.paths import resolve_store_path

URL_SCHEMES = ("postgresql://", "postgres://")

# Any `scheme://`: a URL, never a file name (`mysql://...`, or `postgresql:/...` typed
# with one slash, would otherwise become a folder named after it, password and all).
_ANY_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")
# A URL's scheme with its slashes (`postgresql://`, or `postgresql:/` mistyped), and the rest.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:/*)(.*)$", re.DOTALL)
# A `password=` setting of a libpq conninfo string or of a URL's query, quoted or not.
_PASSWORD_SETTING = re.compile(r"(password\s*=\s*)('(?:\\.|[^'\\])*'?|[^\s&]*)", re.IGNORECASE)


def is_postgres_url(location: str) -> bool:
    return location.lower().startswith(URL_SCHEMES)


# A libpq conninfo string (`host=db dbname=plans password=...`): its first setting.
_CONNINFO = re.compile(
    r"^\s*(host|hostaddr|port|dbname|user|password|passfile|service|sslmode)\s*=", re.IGNORECASE
)


def is_url(location: str) -> bool:
    """Whether `location` is written as a URL (of any scheme) or as a libpq conninfo
    string, not as a file path: never made a file of that name."""
    return bool(_ANY_URL.match(location) or _CONNINFO.match(location))


def redact_url(url: str) -> str:
    """The URL without its secrets: the password becomes `****`, the query goes.

    Read as libpq reads it: the user and password run to the first `@` met before any
    `/`, so `?` and `#` belong to a password (splitting as a web URL shows part of it).
    A password libpq cannot parse is hidden all the same: one holding `/` (the last `@`
    before the query ends it), or `@` (an `@` left in the host part)."""
    written = _SCHEME.match(url)
    if written is None or _CONNINFO.match(url):
        return redact_settings(url)
    scheme, rest = written.group(1), written.group(2)
    end = _credentials_end(rest)
    shown_user = ""
    if end >= 0:
        user, colon, _ = rest[:end].partition(":")
        # A `/`, `?` or `=` in the user name is a sign the `@` was not the userinfo's end.
        if user and not any(mark in user for mark in "/?#="):
            shown_user = f"{user}:****@" if colon else f"{user}@"
        else:
            shown_user = "****@"
    # The query may hold a password, key file paths, socket folders: never shown.
    place = rest[end + 1 :].split("?", 1)[0].split("#", 1)[0]
    return f"{scheme}{shown_user}{place}"


def _credentials_end(rest: str) -> int:
    """Where the user and password of a URL (after `scheme://`) end: the `@`, else -1."""
    first = re.search(r"[@/]", rest)
    if first is not None and first.group() == "@":
        end = first.start()
    else:
        end = rest.split("?", 1)[0].rfind("@")
    if end >= 0:
        host = re.split(r"[/?]", rest[end + 1 :], maxsplit=1)[0]
        if "@" in host:
            end += 1 + host.rfind("@")
    return end


def redact_settings(text: str) -> str:
    """`text` with the value of every `password=` setting (a conninfo string, a URL's
    query) replaced by `****`."""
    return _PASSWORD_SETTING.sub(lambda match: match.group(1) + "****", text)


_URL_IN_TEXT = re.compile(r"postgres(?:ql)?://\S+", re.IGNORECASE)


def redact_text(text: str) -> str:
    """`text` (a message that may quote a location) with every PostgreSQL URL redacted
    and every `password=` setting hidden."""
    return redact_settings(_URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text))


def shown_location(location: str) -> str:
    """A store's location as it may be printed or logged: a URL redacted, a path as it is."""
    return redact_url(location) if is_url(location) else location


def store_location(explicit: str | None, root: str | os.PathLike[str] | None) -> str:
    """As `resolve_store_path`, except that a URL is kept as it is (never made a path)."""
    for given in (explicit, os.environ.get("PLANSIGHT_DB")):
        if given and is_url(given):
            return given
        if given:
            break
    return str(resolve_store_path(explicit, root))
