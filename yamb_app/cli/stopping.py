"""Stops a long command takes calmly: Ctrl-C, and SIGTERM (a batch scheduler's end of time) alike."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread (``stop_on_sigterm``): a stop like Ctrl-C."""


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` in the main thread while the block runs."""

    def stop(_signum: int, _frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped(stop: KeyboardInterrupt) -> tuple[str, int]:
    """How a stop is said (``interrupted``, ``stopped (SIGTERM)``) and the exit code it gives."""
    return ("stopped (SIGTERM)", 143) if isinstance(stop, Terminated) else ("interrupted", 130)


def say_stopped(command: str, stop: KeyboardInterrupt, out: Path, rounds: int) -> int:
    """One line on a fit's stop: what it keeps and how to go on; the exit code."""
    how, code = stopped(stop)
    from robo_players.training.kept_rounds import partial_path, rounds_kept

    kept = rounds_kept(out)
    if kept:
        print(f"yamb {command}: {how} with {kept} of {rounds} rounds kept in {partial_path(out)}; "
              f"run the same command to go on from there", file=sys.stderr)
    else:
        print(f"yamb {command}: {how} before a round was finished; run the same command to start again",
              file=sys.stderr)
    return code
