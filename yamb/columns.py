"""Column kinds and their fill-order rules as bitmask tables.

For each kind, ``fillable_table(kind, n_rows, middle_start)[filled]`` is the
bitmask of rows whose order rule allows them next, given the bitmask of rows
already filled in that column. Turn rules (announcing, the hand column's
first roll, answering a counter-announcement) are applied by the engine on top.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from yamb.errors import UnknownColumnError

COLUMN_KINDS = (
    "down",
    "up",
    "free",
    "announce",
    "updown",
    "middle",
    "hand",
    "late_announce",
    "counter_announce",
)
# Kinds whose open cells may be filled at any roll without announcing.
ORDINARY_KINDS = frozenset({"down", "up", "free", "updown", "middle"})
# Kinds whose cells are filled only through an announcement made after this roll.
ANNOUNCE_ROLL = {"announce": 1, "counter_announce": 1, "late_announce": 2}


def check_kind(kind: str) -> str:
    """Return ``kind`` or raise a precise error naming the known kinds."""
    if kind not in COLUMN_KINDS:
        raise UnknownColumnError(
            f"unknown column kind {kind!r}; choose from {', '.join(COLUMN_KINDS)}"
        )
    return kind


def order_rule(kind: str, filled: int, n_rows: int, middle_start: tuple[int, int]) -> int:
    """Bitmask of the open rows that ``kind``'s order rule allows next."""
    full = (1 << n_rows) - 1
    open_rows = full & ~filled
    if open_rows == 0:
        return 0
    lowest_open = open_rows & -open_rows
    highest_open = 1 << (open_rows.bit_length() - 1)
    if kind == "down":
        return lowest_open
    if kind == "up":
        return highest_open
    if kind == "updown":
        return lowest_open | highest_open
    if kind == "middle":
        if filled == 0:
            return (1 << middle_start[0]) | (1 << middle_start[1])
        top = (filled & -filled).bit_length() - 1
        bottom = filled.bit_length() - 1
        above = 1 << (top - 1) if top > 0 else 0
        below = 1 << (bottom + 1) if bottom + 1 < n_rows else 0
        return (above | below) & open_rows
    return open_rows  # free, announce, hand, late_announce, counter_announce


@cache
def fillable_table(kind: str, n_rows: int, middle_start: tuple[int, int]) -> np.ndarray:
    """``order_rule`` for every filled bitmask, as a (2**n_rows,) uint32 array."""
    check_kind(kind)
    return np.array(
        [order_rule(kind, f, n_rows, middle_start) for f in range(1 << n_rows)], dtype=np.uint32
    )
