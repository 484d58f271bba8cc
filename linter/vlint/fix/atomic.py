"""The one atomic writer: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import os
from pathlib import Path


class OwnerNotKept(PermissionError):
    """The new file could not be given the old one's owner and group."""


def replace_file(path: str | Path, data: bytes, mode: int | None = None,
                 owner: os.stat_result | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, then rename it over.

    ``mode``: the new file's permissions (None: what the umask leaves, as ``open`` gives);
    ``owner``: the status of a file whose owner and group the new file keeps (root, or a member
    of the group, may give them; else ``OwnerNotKept`` and nothing is written).
    """
    folder, name = os.path.split(os.fspath(path))
    import tempfile  # lazy: only a run that writes a file needs it (5 ms of a cold start)

    descriptor, temporary = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.",
                                             suffix=".vlint")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if owner is not None:
                _keep_owner(handle.fileno(), owner)
            os.fchmod(handle.fileno(), 0o666 & ~_umask() if mode is None else mode)
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _keep_owner(descriptor: int, status: os.stat_result) -> None:
    if (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(descriptor, status.st_uid, status.st_gid)
    except PermissionError:
        raise OwnerNotKept("owned by another user or group") from None


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
