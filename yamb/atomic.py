"""Atomic writes: a file is written next to its place under a temporary name, synced, then
renamed into place, so a reader (or a resumed run) sees the old file or the new one, whole.

A temporary file is named ``.NAME.<32 hex>.tmp`` and locked (``flock``) by its writer
for as long as it exists; the lock goes with the process, however that ends. Every
write first deletes the temporary files of its directory that nobody holds (those of
killed writers), so an interrupted export, fit or run leaves nothing behind for good;
``remove_temporaries`` does the same for a directory. A failed write (a full disk)
leaves the old file untouched and raises ``WriteError`` naming the file.

``write_together`` writes files that belong together (an ONNX graph and its sidecar):
all are written and synced before the first is moved into place, and a journal
(``.NAME.<32 hex>.commit``, naming the moves) lasts until the last is. A writer
killed during the moves leaves the journal, and the next write in the directory (or
``remove_temporaries``) finishes the moves: the old files stay whole, or the new
ones are all put in place.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from yamb.errors import YambError

TEMPORARY = re.compile(r"\..+\.[0-9a-f]{32}\.tmp")
JOURNAL = re.compile(r"\..+\.[0-9a-f]{32}\.commit")

Writer = Callable[[Path], None]


class WriteError(YambError):
    """A file that could not be written (a full disk, no permission, a path of the wrong kind)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = path, reason

    def __reduce__(self):  # across process pools
        return WriteError, (self.path, self.reason)


def write_atomically(path: Path, write: Writer) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``path``, sync it, then move it into place."""
    write_together([(path, write)])


def write_together(files: Sequence[tuple[Path, Writer]]) -> None:
    """Write each ``(path, write)`` to a temporary file, sync them all, then move them into place in
    order, behind a journal that lets the next write finish the moves if this process dies (the files
    of one directory: the journal lies beside them)."""
    files = [(Path(path), write) for path, write in files]
    path = files[0][0]
    try:
        with ExitStack() as stack:
            for directory in dict.fromkeys(p.parent for p, _ in files):
                directory.mkdir(parents=True, exist_ok=True)
                remove_temporaries(directory)
            moves = []
            for path, write in files:
                tmp = stack.enter_context(_temporary(path))
                write(tmp)
                _sync(tmp)
                moves.append((tmp, path))
            if len(moves) == 1:
                os.replace(*moves[0])
                return
            journal = stack.enter_context(_temporary(path, ".commit"))
            text = json.dumps([[os.fspath(tmp), os.fspath(path)] for tmp, path in moves])
            journal.write_text(text)
            _sync(journal)
            for tmp, path in moves:
                os.replace(tmp, path)
    except OSError as error:
        raise WriteError(path, error.strerror or str(error)) from None
    except Exception:  # torch and safetensors report a full disk in errors of their own
        if _disk_full(path.parent):
            raise WriteError(path, os.strerror(errno.ENOSPC)) from None
        raise


@contextmanager
def _temporary(path: Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A new empty file next to ``path``, locked by this process until it is moved or deleted."""
    while True:
        tmp = path.parent / f".{path.name}.{uuid.uuid4().hex}{suffix}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(tmp).st_ino == os.fstat(fd).st_ino:  # not taken for a dead writer's in between
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)
        os.close(fd)


def _sync(path: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)  # some writers (safetensors) create files readable by their owner only
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _disk_full(directory: Path) -> bool:
    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False


def _claim(path: Path) -> int | None:
    """A locked descriptor of ``path`` if it is a file that no living writer holds, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False)):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def holds_files(directory: Path, but: tuple[str, ...] = ()) -> bool:
    """Whether ``directory`` holds anything but the names ``but`` and the temporary files of writers."""
    directory = Path(directory)
    return directory.is_dir() and any(p.name not in but and not TEMPORARY.fullmatch(p.name) for p in directory.iterdir())


def remove_temporaries(directory: Path) -> list[Path]:
    """Finish the moves of writers killed during ``write_together``, then delete the temporary files
    of killed writers in ``directory`` (if it exists); returns the files deleted."""
    directory = Path(directory)
    try:
        names = sorted(p.name for p in directory.iterdir())
    except OSError:
        return []
    for name in names:
        if JOURNAL.fullmatch(name):
            _finish(directory / name)
    found = []
    for name in names:
        if TEMPORARY.fullmatch(name) and (fd := _claim(directory / name)) is not None:
            if _unlink(directory / name):
                found.append(directory / name)
            os.close(fd)
    return found


def _finish(journal: Path) -> None:
    """The moves a killed ``write_together`` left undone: every temporary file it names that is still there."""
    fd = _claim(journal)
    if fd is None:
        return
    try:
        for tmp, target in json.loads(journal.read_text()):
            tmp, target = Path(tmp), Path(target)
            if (tmp.parent == target.parent == journal.parent and TEMPORARY.fullmatch(tmp.name)
                    and tmp.name.startswith(f".{target.name}.") and tmp.exists()):
                os.replace(tmp, target)
    except (OSError, ValueError, TypeError):
        pass  # a journal cut short: no move had started
    _unlink(journal)
    os.close(fd)


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True
