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

With ``field = "hall-of-fame"`` the field is the run's own best players so far
(co-evolution, as in self-play): a ``HallField`` of networks, one per seat, which
``evolution.algorithms.field_of`` takes once per generation (and once for the final
check and the verdict): the player the run started from until the hall of fame has
a member, then its best ``opponents`` members (fewer members fill the seats in turn).
The networks travel with each task; a process makes their players once per distinct
field (``HallField.digest``).
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import NamedTuple

import numpy as np

from evolution.config import HALL_OF_FAME_FIELD, ConfigError
from robo_players.base import Player, play
from robo_players.measure.match import win_shares
from robo_players.neural.build import is_weights_file, population_player
from robo_players.neural.networks import NetSpec
from robo_players.registry import PLAYERS, make_player, plays
from yamb.engine import GameBatch
from yamb.layout import Layout
from yamb.table import Table

KEPT_HALLS = 4  # the players of this many distinct hall-of-fame fields kept by a process


class HallField(NamedTuple):
    """The networks of ``spec`` in the field's seats (field hall-of-fame): genomes (opponents, D) and
    cell values (opponents, CR), the seats' order, and ``digest``, the SHA-256 that names them."""

    spec: NetSpec
    genomes: np.ndarray
    cell_values: np.ndarray
    digest: str


class WinMatch(NamedTuple):
    """The field a member plays for wins: a player's name (or weights file) in each of ``opponents``
    seats, or with field hall-of-fame the networks of ``hall``."""

    field: str
    opponents: int
    hall: HallField | None = None


def match_of(config: object, hall: HallField | None = None) -> WinMatch | None:
    """The run's ``WinMatch`` (its field hall-of-fame's networks ``hall``), or None when it plays for points."""
    if getattr(config, "objective", "points") != "win":
        return None
    return WinMatch(config.field, config.opponents, hall)


def hall_field(spec: NetSpec, champions: list[tuple[np.ndarray, np.ndarray]], opponents: int) -> HallField:
    """The ``HallField`` of ``opponents`` seats filled by ``champions`` (genome, cell values), best
    first, in turn: the first ``opponents`` of them, or each again when there are fewer."""
    chosen = [champions[i % len(champions)] for i in range(opponents)]
    genomes = np.stack([np.asarray(g, dtype=np.float32) for g, _ in chosen])
    cell_values = np.stack([np.asarray(v, dtype=np.float32) for _, v in chosen])
    digest = hashlib.sha256(repr(spec).encode() + genomes.tobytes() + cell_values.tobytes()).hexdigest()
    return HallField(spec, genomes, cell_values, digest)


_HALL_PLAYERS: dict[str, tuple[Player, ...]] = {}  # HallField.digest -> its players, the latest KEPT_HALLS


def hall_players(hall: HallField) -> tuple[Player, ...]:
    """One network player per seat of ``hall``, made once per process for each distinct field."""
    if hall.digest not in _HALL_PLAYERS:
        while len(_HALL_PLAYERS) >= KEPT_HALLS:
            del _HALL_PLAYERS[next(iter(_HALL_PLAYERS))]
        _HALL_PLAYERS[hall.digest] = tuple(population_player(hall.spec, g[None], v[None])
                                           for g, v in zip(hall.genomes, hall.cell_values))
    return _HALL_PLAYERS[hall.digest]


def others(match: WinMatch, table: Table, seat: int) -> tuple[Player, ...]:
    """The field's players in the seats other than the member's ``seat``, in seat order."""
    if match.hall is not None:
        return hall_players(match.hall)
    field = field_players(match.field, table)
    return field[:seat] + field[seat + 1:]


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
    table = Table.of(layout)
    shares = np.zeros((members, games))
    cell_sums = np.zeros(solo.n_cells)
    for seat in range(n):
        batch = GameBatch(layout, members * games, seed=seed,
                          streams=np.tile(np.arange(games, dtype=np.uint64), members))
        field = others(match, table, seat)
        seats = [*field[:seat], member, *field[seat:]]
        final = play(batch, seats, check=False)
        shares += win_shares(final)[:, seat].reshape(members, games) / n
        cell_sums += batch.cells[:, seat].reshape(members * games, -1).sum(axis=0, dtype=np.float64) / n
    return shares, cell_sums


def check_match(match: WinMatch, solo: Layout) -> None:
    """Nothing when the field plays the table (the hall of fame's networks do), else a ``ConfigError``
    naming the problem."""
    if match.field == HALL_OF_FAME_FIELD:
        return
    layout = table_of(solo, match)
    if match.field not in PLAYERS and not is_weights_file(match.field):
        raise ConfigError(f"field must be a registered player, a weights file or {HALL_OF_FAME_FIELD}, "
                          f"not {match.field!r}")
    if match.field in PLAYERS and not plays(match.field, layout):
        raise ConfigError(f"field {match.field} does not play {Table.of(layout).describe()} with "
                          f"{layout.players} players")
