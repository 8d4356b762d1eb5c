"""Progress of the commands that play many games (``simulate``, ``compare``, ``match``), on stderr so that
``--json`` keeps stdout clean: a bar per task on a terminal; off a terminal (a log), where no bar is drawn,
a line at each tenth of a task's games, timed from the start."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress

Advance = Callable[[int], None]


def passes_a_tenth(before: int, after: int, total: int) -> bool:
    """Whether a count going from ``before`` to ``after`` of ``total`` passes a tenth of it (a log's line)."""
    return 10 * after // total > 10 * before // total


@contextmanager
def games_progress() -> Iterator[Callable[[str, int], Advance]]:
    """``task(description, games)``, which starts a task and gives its ``advance(n)`` (``n`` more games
    played)."""
    errors = Console(stderr=True)
    started = time.perf_counter()
    with Progress(transient=True, console=errors, disable=not errors.is_terminal) as progress:

        def task(description: str, games: int) -> Advance:
            bar = progress.add_task(description, total=games)
            played = [0]

            def advance(n: int) -> None:
                progress.advance(bar, n)
                before, played[0] = played[0], played[0] + n
                if not errors.is_terminal and passes_a_tenth(before, played[0], games):
                    errors.print(f"{description}: {played[0]:,} of {games:,} games  "
                                 f"({time.perf_counter() - started:.0f} s)", highlight=False, soft_wrap=True)

            return advance

        yield task
