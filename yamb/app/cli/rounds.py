"""Progress of the commands that work in rounds of recorded games (``imitate``, ``fit``): a line per
event, timed from the start, and a bar of the round's games."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from yamb.app.cli.lines import show


@contextmanager
def rounds_progress(console: Console, games: int) -> Iterator[tuple[Callable[[str], None], Callable[[int], None]]]:
    """``(say, advance)``: ``say(text)`` prints a line (one starting with "round" opens a bar of
    ``games`` games), ``advance(n)`` moves the bar on by ``n`` games."""
    started = time.perf_counter()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task: list = []

        def say(text: str) -> None:
            show(progress.console, f"{text}  ({time.perf_counter() - started:.0f} s)")
            if text.startswith("round"):
                if task:
                    progress.remove_task(task.pop())
                task.append(progress.add_task("games", total=games))

        def advance(n: int) -> None:
            if task:
                progress.advance(task[0], n)

        yield say, advance
