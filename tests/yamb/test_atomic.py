"""Atomic writes killed for real: a killed writer's temporary files are deleted by the next write in
their directory (a living writer's are not), and files written together end all old or all new."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from yamb.atomic import TEMPORARY, remove_temporaries, write_atomically, write_together

ROOT = Path(__file__).resolve().parents[2]

# A writer that writes ``a`` and ``b`` together and kills itself with SIGKILL at ``where``:
# "writing" (while b is half written) or "moving" (after a is moved into place, before b).
KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from yamb import atomic

directory, where = Path(sys.argv[1]), sys.argv[2]
real_replace = atomic.os.replace

def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)

def half_written(tmp: Path) -> None:
    tmp.write_text("new b, half")
    die()

def replace(tmp, path) -> None:
    real_replace(tmp, path)
    die()

if where == "moving":
    atomic.os.replace = replace
atomic.write_together([(directory / "a", lambda tmp: tmp.write_text("new a")),
                       (directory / "b", half_written if where == "writing" else lambda tmp: tmp.write_text("new b"))])
"""


def killed_writer(directory: Path, where: str) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(directory), where], check=False, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr


def left_behind(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def contents(directory: Path) -> tuple[str, str]:
    return (directory / "a").read_text(), (directory / "b").read_text()


@pytest.mark.parametrize(("where", "after"), [("writing", ("old a", "old b")), ("moving", ("new a", "new b"))])
def test_files_written_together_end_all_old_or_all_new_after_a_kill(tmp_path: Path, where: str,
                                                                    after: tuple[str, str]) -> None:
    write_together([(tmp_path / "a", lambda tmp: tmp.write_text("old a")),
                    (tmp_path / "b", lambda tmp: tmp.write_text("old b"))])
    killed_writer(tmp_path, where)
    assert left_behind(tmp_path)  # the killed writer's temporary files (and journal, when moving)
    if where == "moving":
        assert contents(tmp_path) == ("new a", "old b")  # what a reader sees until the next write
    write_atomically(tmp_path / "c", lambda tmp: tmp.write_text("c"))  # any write in the directory settles it
    assert contents(tmp_path) == after and left_behind(tmp_path) == []


def test_a_killed_writers_temporary_file_goes_a_living_writers_stays(tmp_path: Path) -> None:
    killed_writer(tmp_path, "writing")
    dead = [p for p in tmp_path.iterdir() if TEMPORARY.fullmatch(p.name)]
    assert len(dead) == 2
    started, finish = threading.Event(), threading.Event()

    def slow(tmp: Path) -> None:
        tmp.write_text("slow")
        started.set()
        finish.wait()

    living = threading.Thread(target=write_atomically, args=(tmp_path / "slow", slow))
    living.start()
    started.wait()
    try:
        (mine,) = [p for p in tmp_path.iterdir() if p.name.startswith(".slow.")]
        assert not any(p.exists() for p in dead)  # the living writer's own write deleted them
        assert remove_temporaries(tmp_path) == []
        write_atomically(tmp_path / "other", lambda tmp: tmp.write_text("other"))
        assert mine.exists()
    finally:
        finish.set()
        living.join()
    assert (tmp_path / "slow").read_text() == "slow" and left_behind(tmp_path) == []


def test_a_temporary_name_of_someone_else_is_kept(tmp_path: Path) -> None:
    keep = [tmp_path / ".notes.tmp", tmp_path / f".x.{'g' * 32}.tmp"]  # not of the pattern: not ours
    for path in keep:
        path.write_text("mine")
    write_atomically(tmp_path / "x", lambda tmp: tmp.write_text("x"))
    assert all(p.read_text() == "mine" for p in keep)
