"""Folders only this user may write to: the MCP server's session locks and the warm hook
process's socket live in them. Standard library's cheapest modules only: the hook's
relay checks its folder on every event."""

from __future__ import annotations

import os
import stat


def unsafe_folder(folder: str | os.PathLike[str], create: bool = True) -> str | None:
    """Why `folder` must not be used (None when it is safe); with `create`, it and the
    missing folders above it are made first, 0700. In a shared folder (/tmp) another
    user could have made it first, writable to all, and planted links or sockets named
    as ours."""
    path = os.fspath(folder)
    if create:
        missing = []
        while not os.path.lexists(path):  # the store's own folder may not exist yet
            missing.append(path)
            path = os.path.dirname(path)
        for made in reversed(missing):
            try:
                os.mkdir(made, 0o700)
                os.chmod(made, 0o700)  # whatever the umask
            except FileExistsError:
                pass
        path = os.fspath(folder)
    try:
        info = os.lstat(path)
    except OSError:
        return "cannot be read"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if info.st_uid != os.geteuid():
        return "belongs to another user"
    if info.st_mode & 0o022:
        return "is writable by other users"
    return None
