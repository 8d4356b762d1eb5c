"""A line on stderr when numba starts compiling, and a count that moves while it does, so that a first
run does not look frozen.

numba compiles the kernels the first time they run after an install or an edit of the engine (a few
minutes for a player's and its coach's kernels on two cores), then loads them from its cache
(``yamb.numba_cache``) in seconds. ``watch`` registers a listener of numba's ``numba:compile`` event,
which fires on a real compile and not on a cache load: the first compile of the process prints one
line, on stderr (shown when piped too; the results on stdout stay clean). On a terminal a status line
under it counts the kernels compiled and the seconds while a kernel compiles, and is wiped between
them. A command that shows its own progress says so (``said``) and may follow the count
(``follow``): ``yamb evolve`` shows it in its bar.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

MESSAGE = ("compiling numba kernels, once after an install or an update (a few minutes; later runs load "
           "them from the cache in seconds)")
LIVE_COMMANDS = ("review", "export", "serve", "simulate", "compare", "bench", "match", "solve", "fit",
                 "fit-values", "fit-afterstates", "imitate")  # a terminal's status line (not play's screen)


_command: list[str] = []  # the command that watches (one listener a process, however often ``main`` runs)
_said: list[bool] = [False]  # the line is printed once a process
_followers: list[Callable[[int, float], None]] = []


def said() -> None:
    """The command said it compiles in its own words: no line, no status line from the listener."""
    _said[0] = True


def follow(callback: Callable[[int, float], None]) -> None:
    """Call ``callback(kernels compiled, seconds since the first)`` as each kernel is compiled (instead of
    the callback given before)."""
    _followers[:] = [callback]


class Status:
    """The count of kernels compiled, and a status line on a terminal's stderr while one compiles: shown by
    a thread every quarter second, wiped (by the compiling thread, before it goes on) when none does."""

    def __init__(self) -> None:
        self.started = 0.0
        self.compiled = 0
        self.running = 0  # compiles under way (they nest: a kernel compiles what it calls)
        self.shown = False
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def begin(self, live: bool) -> None:
        if not self.started:
            self.started = time.monotonic()
        self.running += 1
        if live and self.thread is None:
            self.thread = threading.Thread(target=self._show, name="compile-status", daemon=True)
            self.thread.start()

    def end(self) -> None:
        self.running = max(0, self.running - 1)
        self.compiled += 1
        for callback in _followers:
            callback(self.compiled, time.monotonic() - self.started)
        if not self.running:
            with self.lock:  # the command's next output starts on a clean line
                if self.shown:
                    sys.stderr.write("\r\033[K")
                    sys.stderr.flush()
                    self.shown = False

    def _show(self) -> None:
        while True:
            with self.lock:
                if self.running:
                    sys.stderr.write(f"\r  {self.compiled} kernels compiled, "
                                     f"{time.monotonic() - self.started:.0f} s\033[K")
                    sys.stderr.flush()
                    self.shown = True
            time.sleep(0.25)


def watch(command: str) -> None:
    """Print ``yamb COMMAND: compiling ...`` on stderr when this process first compiles a kernel (and, on a
    terminal, count the kernels while it compiles)."""
    from numba.core import event

    if _command:
        _command[0] = command
        return
    _command.append(command)
    status = Status()

    class Compiles(event.Listener):
        def on_start(self, _event: event.Event) -> None:
            live = not _said[0] and _command[0] in LIVE_COMMANDS and sys.stderr.isatty()
            if not _said[0] and not status.started:
                print(f"yamb {_command[0]}: {MESSAGE}", file=sys.stderr, flush=True)
            status.begin(live)

        def on_end(self, _event: event.Event) -> None:
            status.end()

    event.register("numba:compile", Compiles())
