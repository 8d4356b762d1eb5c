"""Progress of the commands that work in rounds of recorded games (``imitate``, ``fit``): a line per
event, timed from the start, and a bar of the round's games (off a terminal, where no bar is drawn, a
line at each tenth of them)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from yamb_app.cli.games_progress import passes_a_tenth
from yamb_app.cli.lines import show


@contextmanager
def rounds_progress(console: Console, games: int) -> Iterator[tuple[Callable[[str], None], Callable[[int], None]]]:
    """``(say, advance)``: ``say(text)`` prints a line (one starting with "round" opens a bar of
    ``games`` games), ``advance(n)`` moves the bar on by ``n`` games (off a terminal, a line each
    tenth of them)."""
    started = time.perf_counter()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task: list = []
        played = [0]  # games of the round so far

        def say(text: str) -> None:
            show(progress.console, f"{text}  ({time.perf_counter() - started:.0f} s)")
            if text.startswith("round"):
                if task:
                    progress.remove_task(task.pop())
                task.append(progress.add_task("games", total=games))
                played[0] = 0

        def advance(n: int) -> None:
            if not task:
                return
            progress.advance(task[0], n)
            before, played[0] = played[0], played[0] + n
            if not console.is_terminal and passes_a_tenth(before, played[0], games):
                show(progress.console, f"  {played[0]:,} of {games:,} games  ({time.perf_counter() - started:.0f} s)")

        yield say, advance
