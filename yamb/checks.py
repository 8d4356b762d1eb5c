"""Checks of the integers the engine takes (seeds, dice streams, counts); no numba, so the CLI loads it cheaply."""

from __future__ import annotations

import re

import numpy as np

from yamb.errors import YambError

MAX_SEED = 2**64 - 1  # seeds and dice streams are unsigned 64-bit integers
MAX_DIGITS = 100  # digits of an integer read from text: every count and seed has far fewer
_INTEGER = re.compile(rf"[ \t]*[+-]?[0-9]{{1,{MAX_DIGITS}}}[ \t]*")  # ASCII: no '٣', '１２' or '1_000'


def is_int(value: object) -> bool:
    """An integer, numpy's included, but not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_seed(name: str, value: object) -> int:
    """``value`` as a seed (or stream) of the engine, or a ``YambError`` naming ``name``."""
    if not is_int(value) or not 0 <= value <= MAX_SEED:
        raise YambError(f"{name} must be an integer from 0 to 2**64 - 1, not {value!r}")
    return int(value)


def ascii_integer(text: str) -> int | None:
    """The integer ``text`` spells in ASCII digits (an optional sign, spaces around), else None.
    Python's ``int`` also reads other scripts' digits and underscores, which the CLI and the settings refuse."""
    return int(text) if _INTEGER.fullmatch(text) else None
