"""The objective ``win``: a member's fitness is its share of the wins against a field.

With ``objective = "win"`` (``evolution.config``) each member plays games of
``opponents + 1`` players, the others seats taken by the ``field`` (a registered
player, ``best`` by default, or a weights file); every deal is played once per
seat of the member, on the same dice (``robo_players.measure.match``), and a
game's win is shared among the players tied for the best total. A member's
"score" of a deal is its share of the wins over those games, so the noise-aware
selection, the challenges of the incumbent and the final check read shares of
wins where the points objective reads scores. The reference player
(``expectimax``) is played against the same field.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from evolution.config import ConfigError
from robo_players.base import Player, play
from robo_players.measure.match import win_shares
from robo_players.neural.build import is_weights_file
from robo_players.registry import PLAYERS, make_player, plays
from yamb.engine import GameBatch
from yamb.layout import Layout
from yamb.table import Table


class WinMatch(NamedTuple):
    """The field a member plays for wins: a player's name (or weights file) in each of ``opponents`` seats."""

    field: str
    opponents: int


def match_of(config: object) -> WinMatch | None:
    """The run's ``WinMatch``, or None when it plays for points."""
    if getattr(config, "objective", "points") != "win":
        return None
    return WinMatch(config.field, config.opponents)


def table_of(solo: Layout, match: WinMatch) -> Layout:
    """The table of a member and its field."""
    return Layout(solo.rules, solo.columns, match.opponents + 1)


@cache
def field_players(field: str, table: Table) -> tuple[Player, ...]:
    """One ``field`` player for every seat of ``table`` (made once per process)."""
    return tuple(make_player(field, table.layout) for _ in range(table.players))


def play_for_wins(member: Player, solo: Layout, match: WinMatch, members: int, games: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(members, games) each member's share of the wins of each deal against the field and the sum
    over the member's games of each cell's final score (CR,), per seat. ``member`` plays a batch of
    ``members * games`` games, member ``k`` the games ``k * games ..`` (a population player), every
    member on the deals ``0 .. games - 1`` of ``seed``, once in each seat."""
    layout = table_of(solo, match)
    n = layout.players
    field = field_players(match.field, Table.of(layout))
    shares = np.zeros((members, games))
    cell_sums = np.zeros(solo.n_cells)
    for seat in range(n):
        batch = GameBatch(layout, members * games, seed=seed,
                          streams=np.tile(np.arange(games, dtype=np.uint64), members))
        seats = [member if s == seat else field[s] for s in range(n)]
        final = play(batch, seats, check=False)
        shares += win_shares(final)[:, seat].reshape(members, games) / n
        cell_sums += batch.cells[:, seat].reshape(members * games, -1).sum(axis=0, dtype=np.float64) / n
    return shares, cell_sums


def check_match(match: WinMatch, solo: Layout) -> None:
    """Nothing when the field plays the table, else a ``ConfigError`` naming the problem."""
    layout = table_of(solo, match)
    if match.field not in PLAYERS and not is_weights_file(match.field):
        raise ConfigError(f"field must be a registered player or a weights file, not {match.field!r}")
    if match.field in PLAYERS and not plays(match.field, layout):
        raise ConfigError(f"field {match.field} does not play {Table.of(layout).describe()} with "
                          f"{layout.players} players")
