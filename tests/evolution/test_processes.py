"""``yamb evolve --workers 2`` killed for real (SIGKILL) leaves no worker process and no resource tracker;
Ctrl-C (SIGINT to the whole process group, as a terminal sends it) and SIGTERM end it with one line.

A harness process makes itself the *subreaper* of what it starts (``PR_SET_CHILD_SUBREAPER``): the run's
workers, orphaned when the run dies, become its children, and it waits on each of them. A worker that
outlives its parent is killed by the harness after ``SURVIVE_SECONDS`` and reported."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.programs import error_lines

ROOT = Path(__file__).resolve().parents[2]
SURVIVE_SECONDS = 120  # the workers end within moments of their parent; this only stops a failing test

HARNESS = """
import ctypes, json, os, signal, subprocess, sys

how, command = sys.argv[1], sys.argv[2:]
signal.signal(signal.SIGINT, signal.SIG_DFL)  # on, as in a terminal's job, if the test runs where it is ignored
assert ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
for line in run.stdout:
    if line.startswith("gen "):  # a generation was played: the pool's workers exist
        break

def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if entry.isdigit() and int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(entry))
    return found

seen = children(run.pid)
survivors = []

def kill_survivors(*_):
    for pid in seen:
        try:
            os.kill(pid, signal.SIGKILL)
            survivors.append(pid)
        except ProcessLookupError:
            pass

signal.signal(signal.SIGALRM, kill_survivors)
signal.alarm(int(os.environ["SURVIVE_SECONDS"]))  # before reading: a surviving worker holds the pipes open
if how == "SIGINT":
    os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
else:
    os.kill(run.pid, getattr(signal, how))
out, err = run.communicate()
for pid in seen:
    try:
        os.waitpid(pid, 0)  # an orphaned worker is our child now
    except ChildProcessError:  # its parent waited on it before it ended
        pass
signal.alarm(0)
print(json.dumps({"seen": seen, "survivors": survivors, "returncode": run.returncode, "stderr": err}))
"""


def killed_run(tmp_path: Path, how: str) -> dict:
    command = [sys.executable, "-m", "yamb", "evolve", "--out", str(tmp_path / "run"), "--workers", "2",
               "--generations", "100", "--population", "4", "--games", "2", "--hidden", "2",
               "--set", "game=yatzy", "--set", "elite=1", "--set", "hall_of_fame=1"]
    done = subprocess.run([sys.executable, "-c", HARNESS, how, *command], check=False, capture_output=True,
                          text=True, timeout=SURVIVE_SECONDS + 600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "SURVIVE_SECONDS": str(SURVIVE_SECONDS)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_a_killed_run_leaves_no_worker_behind(tmp_path: Path) -> None:
    report = killed_run(tmp_path, "SIGKILL")
    assert report["returncode"] == -signal.SIGKILL
    assert len(report["seen"]) >= 2  # at least one worker and the resource tracker
    assert report["survivors"] == []


@pytest.mark.slow
@pytest.mark.parametrize(("how", "code", "said"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "stopped (SIGTERM)")])
def test_ctrl_c_or_sigterm_prints_one_line_and_leaves_no_worker_behind(tmp_path: Path, how: str, code: int,
                                                                      said: str) -> None:
    """Nothing else on stderr either: no resource tracker's warning of leaked semaphores."""
    report = killed_run(tmp_path, how)
    assert report["returncode"] == code and report["survivors"] == [] and len(report["seen"]) >= 2
    resume = f"yamb evolve --resume {tmp_path / 'run'}"
    assert error_lines(report["stderr"]) == [f"yamb evolve: {said}; continue with: {resume}"]


class _Teardown:
    """Writes to ``path`` when the interpreter's teardown deletes it (a module global); the file is made
    (empty) now, and the teardown writes through what it holds (the builtins may be gone by then)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        self.write = os.write

    def __del__(self) -> None:
        self.write(self.fd, b"torn down")


def _mark_exit(directory: str) -> int:
    """In a pool worker: mark its exit functions and its interpreter teardown in ``directory``."""
    import atexit

    pid = os.getpid()
    if "_kept" not in globals():  # once a worker
        atexit.register(lambda: Path(directory, f"atexit-{pid}").write_text("ran"))
        globals()["_kept"] = _Teardown(os.path.join(directory, f"teardown-{pid}"))
    return pid


def test_a_pool_worker_ends_without_the_interpreter_s_teardown(tmp_path: Path) -> None:
    """The pool's workers run their exit functions, then end without tearing down torch's and numba's
    modules (seconds per worker, which the end of every ``yamb evolve`` waited for)."""
    from evolution import EvolveConfig
    from evolution.backends import backend_map

    with backend_map(EvolveConfig(game="yatzy", workers=2)) as map_function:
        pids = set(map_function(_mark_exit, [str(tmp_path)] * 4))
    assert pids and {p.name for p in tmp_path.glob("atexit-*")} == {f"atexit-{pid}" for pid in pids}
    assert [p.read_text() for p in tmp_path.glob("teardown-*")] == [""] * len(pids)


START_UP_SIGTERM = """
import os, signal, sys

class SignalAtImport:
    # SIGTERM to this process while it imports the evolution package (yamb evolve's start-up)
    def find_spec(self, name, path=None, target=None):
        if name == "evolution":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, SignalAtImport())
from yamb_app.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_during_start_up_prints_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", START_UP_SIGTERM, "evolve", "--preset", "yatzy", "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 143, (done.returncode, done.stderr)
    assert error_lines(done.stderr) == ["yamb evolve: stopped (SIGTERM)"]
    assert not (tmp_path / "run").exists()
