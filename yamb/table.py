"""One name for a table: the game, its dice and joker rule, the columns and the players.

A ``Table`` is a frozen, hashable value: it keys every cache of players, coaches
and solutions, and names every file made for a table (``stem``). Its fields are
resolved (the preset's dice count and joker rule filled in), so two ways of asking
for the same table give equal values::

    >>> from yamb.table import Table
    >>> Table.named("yahtzee") == Table.named("yahtzee", dice=5, joker="free")
    True
    >>> Table.named("yamb").stem
    'yamb-5d-down-up-free-announce'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from yamb.layout import Layout, layout
from yamb.rules import Rules, rules


@dataclass(frozen=True)
class Table:
    """A preset with its dice count and joker rule, a tuple of column kinds and the number of players."""

    preset: str
    dice: int
    joker: str | None
    columns: tuple[str, ...]
    players: int = 1

    @classmethod
    def named(cls, preset: str, dice: int | None = None, joker: str | None = None,
              columns: tuple[str, ...] | list[str] | None = None, players: int = 1) -> Table:
        """The table of ``preset`` (its default dice, joker rule and columns where none are given),
        or the rules' precise error."""
        return cls.of(layout(rules(preset, dice=dice, joker=joker), columns, players))

    @classmethod
    def of(cls, lay: Layout) -> Table:
        """The table a layout is laid out for."""
        r = lay.rules
        return cls(r.name, r.n_dice, r.joker, tuple(lay.columns), lay.players)

    @property
    def rules(self) -> Rules:
        return rules(self.preset, dice=self.dice, joker=self.joker)

    @property
    def layout(self) -> Layout:
        """The table's layout, built once per table."""
        return _layout(self)

    @property
    def solo(self) -> Table:
        """The same table for one player (what a player's network or a solver's values are made for)."""
        return replace(self, players=1)

    @property
    def stem(self) -> str:
        """The table in a file name (players aside): ``yamb-5d-down-up-free-announce``,
        ``yahtzee-free-5d-free``."""
        joker = f"-{self.joker}" if self.joker else ""
        return f"{self.preset}{joker}-{self.dice}d-{'-'.join(self.columns)}"

    def describe(self) -> str:
        """The table in words: ``yamb (down,up,free,announce, 5 dice)``."""
        return f"{self.preset} ({','.join(self.columns)}, {self.dice} dice)"


@lru_cache(maxsize=64)
def _layout(table: Table) -> Layout:
    return layout(table.rules, table.columns, table.players)
