"""A line on stderr when numba starts compiling, so that a first run does not look frozen.

numba compiles a kernel the first time it runs after an install or an edit of the
engine (up to a minute for a player's kernels, more with a look-ahead), then loads it
from its cache (``yamb.numba_cache``). ``watch`` registers a listener of numba's
``numba:compile`` event, which fires on a real compile and not on a cache load: the
first compile of the process prints one line, on stderr (shown when piped too; the
results on stdout stay clean). Processes of their own (``yamb evolve``'s workers) say
it in their command instead.
"""

from __future__ import annotations

import sys

MESSAGE = ("compiling numba kernels (the first run after an install or an update takes up to a "
           "minute or two; later runs load them from the cache)")


_command: list[str] = []  # the command that watches (one listener a process, however often ``main`` runs)
_said: list[bool] = [False]  # the line is printed once a process


def said() -> None:
    """The command said it compiles in its own words: no line from the listener."""
    _said[0] = True


def watch(command: str) -> None:
    """Print ``yamb COMMAND: compiling ...`` on stderr when this process first compiles a kernel."""
    from numba.core import event

    if _command:
        _command[0] = command
        return
    _command.append(command)

    class FirstCompile(event.Listener):
        def on_start(self, _event: event.Event) -> None:
            if not _said[0]:
                _said[0] = True
                print(f"yamb {_command[0]}: {MESSAGE}", file=sys.stderr, flush=True)

        def on_end(self, _event: event.Event) -> None:
            pass

    event.register("numba:compile", FirstCompile())
