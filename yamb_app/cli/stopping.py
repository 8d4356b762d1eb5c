"""Stops a long command takes calmly: Ctrl-C, and SIGTERM (a batch scheduler's end of time) alike."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


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
