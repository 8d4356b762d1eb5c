"""Worker processes that end with their parent, whatever ended it (SIGKILL included).

``end_with_parent(parent)`` is called first thing in a worker process (a
pool's initializer, a ``Process`` target): on Linux the kernel sends the
worker SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere
a daemon thread watches the parent's pid.

``QUIET_SPAWN`` is a spawn context whose processes never see Ctrl-C, not
even while they import: a terminal sends SIGINT to every process of its
group, and a worker hit before its initializer ran would print a traceback.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from multiprocessing.context import SpawnContext, SpawnProcess

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 1.0  # without prctl: how often the watchdog looks at the parent's pid


def end_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the pid that started it) ends."""
    if not _death_signal():
        threading.Thread(target=_watch, args=(parent,), name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the death signal was asked for
        os._exit(1)


def _death_signal() -> bool:
    """Ask the kernel for SIGKILL when the parent ends (Linux); whether that was possible."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


class QuietSpawnProcess(SpawnProcess):
    """A spawned process started with SIGINT blocked: a process keeps its parent's blocked signals
    across ``exec``, so the terminal's Ctrl-C reaches only the parent, which gets its own the moment
    the start is over."""

    def start(self) -> None:
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no process groups' Ctrl-C to keep out
            super().start()
            return
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


class QuietSpawnContext(SpawnContext):
    """The spawn context with ``QuietSpawnProcess`` for its processes."""

    Process = QuietSpawnProcess


QUIET_SPAWN = QuietSpawnContext()
