"""A game's layout: the rules, the table's columns, the players, and the action encoding.

Actions are integers shared by the engine, the players and the Gymnasium
environment. With ``C`` columns of ``R`` rows (``CR = C * R`` cells) and ``K``
keeps:

| actions                | meaning                                             |
| ---------------------- | --------------------------------------------------- |
| ``0 .. CR-1``          | fill cell ``c * R + r`` (ends the turn)             |
| ``CR .. CR+K-1``       | keep the multiset ``keeps[a - CR]`` and roll the rest |
| ``CR+K .. 2CR+K-1``    | announce cell ``a - CR - K``                        |
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from yamb.columns import ANNOUNCE_ROLL, ORDINARY_KINDS, check_kind, fillable_table
from yamb.errors import UnknownColumnError, UnknownRowError, YambError
from yamb.rules import Rules

ALL_BITS = np.uint32(0xFFFFFFFF)


def _flag(values: list[bool]) -> np.ndarray:
    """Per-column bitmask filter: all bits where True, none where False."""
    return np.where(np.array(values, dtype=bool), ALL_BITS, np.uint32(0)).astype(np.uint32)


@dataclass(frozen=True, eq=False)
class Layout:
    """Rules, columns and number of players of a game, with derived constant tables."""

    rules: Rules
    columns: tuple[str, ...]
    players: int = 1

    def __post_init__(self) -> None:
        if not self.columns:
            raise UnknownColumnError("a table needs at least one column")
        for kind in self.columns:
            check_kind(kind)
        if self.players < 1:
            raise YambError(f"players must be at least 1, not {self.players}")
        if "counter_announce" in self.columns and self.players < 2:
            raise UnknownColumnError("counter_announce columns need at least two players")

    def __repr__(self) -> str:
        return (f"Layout({self.rules!r}, columns={self.columns!r}, players={self.players}: "
                f"{self.n_cells} cells, {self.n_actions} actions)")

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    @property
    def n_rows(self) -> int:
        return self.rules.n_rows

    @property
    def n_cells(self) -> int:
        return self.n_columns * self.n_rows

    @property
    def n_keeps(self) -> int:
        return self.rules.dice.n_keeps

    @property
    def n_actions(self) -> int:
        return 2 * self.n_cells + self.n_keeps

    @property
    def turns_per_player(self) -> int:
        return self.n_cells

    @property
    def full_mask(self) -> int:
        return (1 << self.n_rows) - 1

    @cached_property
    def order_tables(self) -> np.ndarray:
        """(C, 2**R) uint32: rows each column's order rule allows, by filled bitmask."""
        return np.stack(
            [fillable_table(k, self.n_rows, self.rules.middle_start) for k in self.columns]
        )

    @cached_property
    def ordinary(self) -> np.ndarray:
        return _flag([k in ORDINARY_KINDS for k in self.columns])

    @cached_property
    def hand(self) -> np.ndarray:
        return _flag([k == "hand" for k in self.columns])

    @cached_property
    def announce_first(self) -> np.ndarray:
        """Columns announced right after the first roll (``announce``)."""
        return _flag([k == "announce" for k in self.columns])

    @cached_property
    def announce_late(self) -> np.ndarray:
        return _flag([ANNOUNCE_ROLL.get(k) == 2 for k in self.columns])

    @cached_property
    def counter(self) -> np.ndarray:
        return _flag([k == "counter_announce" for k in self.columns])

    @cached_property
    def popcount(self) -> np.ndarray:
        """(2**R,) number of set bits of each row bitmask."""
        masks = np.arange(1 << self.n_rows)
        return np.array([bin(m).count("1") for m in masks], dtype=np.int8)

    @cached_property
    def nth_bit(self) -> np.ndarray:
        """(2**R, R) index of the j-th set bit of each row bitmask (-1 past the end)."""
        table = np.full((1 << self.n_rows, self.n_rows), -1, dtype=np.int8)
        for m in range(1 << self.n_rows):
            bits = [r for r in range(self.n_rows) if m >> r & 1]
            table[m, : len(bits)] = bits
        return table

    def cell(self, column: int | str, row: int | str) -> int:
        """Cell index of a (column, row) pair given by index or name."""
        if isinstance(column, str):
            if column not in self.columns:
                raise UnknownColumnError(
                    f"no column {column!r} in this table; columns are {', '.join(self.columns)}"
                )
            column = self.columns.index(column)
        if not 0 <= column < self.n_columns:
            raise UnknownColumnError(f"column {column} out of range 0..{self.n_columns - 1}")
        r = self.rules.row_index(row) if isinstance(row, str) else row
        if not 0 <= r < self.n_rows:
            raise UnknownRowError(f"row {row} out of range 0..{self.n_rows - 1}")
        return column * self.n_rows + r

    def cell_name(self, cell: int) -> str:
        """``column:row`` name of a cell, with the column's position when kinds repeat."""
        c, r = divmod(int(cell), self.n_rows)
        kind = self.columns[c]
        label = kind if self.columns.count(kind) == 1 else f"{kind}{c}"
        return f"{label}:{self.rules.rows[r]}"

    def describe_action(self, action: int) -> str:
        """Human-readable action, e.g. ``fill free:yamb``, ``keep 5 5 5``, ``announce ...``."""
        action = int(action)
        if action < self.n_cells:
            return f"fill {self.cell_name(action)}"
        if action < self.n_cells + self.n_keeps:
            counts = self.rules.dice.keeps[action - self.n_cells]
            faces = [str(f + 1) for f in range(6) for _ in range(counts[f])]
            return "keep " + (" ".join(faces) if faces else "nothing")
        return f"announce {self.cell_name(action - self.n_cells - self.n_keeps)}"


def layout(rules: Rules, columns: tuple[str, ...] | list[str] | None = None, players: int = 1) -> Layout:
    """A layout with the preset's default columns when none are given."""
    cols = tuple(columns) if columns is not None else rules.default_columns
    return Layout(rules=rules, columns=cols, players=players)
