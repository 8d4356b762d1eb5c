"""Atomic writes: a file is written next to its place under a temporary name, synced, then
renamed into place, so a reader (or a resumed run) sees the old file or the new one, whole.

A process killed mid-write leaves its temporary file behind (``.NAME.<32 hex>.tmp``);
``remove_temporaries`` deletes those of a directory nobody is writing in (a run
directory whose lock a resume holds). A failed write (a full disk) leaves the old
file untouched and raises ``WriteError`` naming the file.
"""

from __future__ import annotations

import errno
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path

from yamb.errors import YambError

TEMPORARY = re.compile(r"\..+\.[0-9a-f]{32}\.tmp")


class WriteError(YambError):
    """A file that could not be written (a full disk, no permission, a path of the wrong kind)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = path, reason

    def __reduce__(self):  # across process pools
        return WriteError, (self.path, self.reason)


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``path``, sync it, then move it into place."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # some writers (safetensors) create files readable by their owner only
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as error:
        raise WriteError(path, error.strerror or str(error)) from None
    except Exception:  # noqa: BLE001 - torch and safetensors report a full disk in errors of their own
        if _disk_full(path.parent):
            raise WriteError(path, os.strerror(errno.ENOSPC)) from None
        raise
    finally:
        tmp.unlink(missing_ok=True)


def _disk_full(directory: Path) -> bool:
    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False


def remove_temporaries(directory: Path) -> list[Path]:
    """Delete the temporary files that interrupted atomic writes left in ``directory`` (if it
    exists); returns them."""
    if not Path(directory).is_dir():
        return []
    found = [p for p in Path(directory).iterdir() if TEMPORARY.fullmatch(p.name) and p.is_file()]
    for p in found:
        p.unlink(missing_ok=True)
    return found
