"""Row expectations that know an open row has many turns to come.

``expectimax`` values a cell against the row's expectation over one turn
(``robo_players.cell_values``). A row of a column that may be filled in any
order (``free``, ``hand`` and the announce kinds), though, can be filled on
any later turn, and in play it brings more than one turn's worth: the player
fills it when the dice favour it. ``expectimax-played`` (and a search-guided
network evolved with ``played > 0``) values the open cells of such columns
against a blend,

    expectation = (1 - played) * one-turn expectation + played * mean seen in play,

the mean seen in play being each cell's average final score over
``GAMES`` games of plain ``expectimax`` on dice seed ``SEED``. Ordered columns
(``down``, ``up``, ``updown``, ``middle``) keep the one-turn expectation: their
order settles when a row is played (blending them measured a loss).
The numbers bonus and the difference row are valued with the blended
expectations too, which is where most of the gain comes from (docs/players.md).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from robo_players.base import play
from robo_players.cell_values import cell_model
from robo_players.expectimax import ExpectimaxPlayer
from yamb.columns import order_rule
from yamb.engine import GameBatch
from yamb.layout import Layout, layout
from yamb.rules import Rules

GAMES = 2000
SEED = 0
DEFAULT_PLAYED = 0.6


@cache
def seen_means(rules: Rules, columns: tuple[str, ...], players: int = 1) -> np.ndarray:
    """(C, R) mean final score of each cell in ``GAMES`` games of plain ``expectimax`` against itself
    (``players`` of them, each counted)."""
    lay = layout(rules, columns, players)
    batch = GameBatch(lay, GAMES, seed=SEED, streams=np.arange(GAMES, dtype=np.uint64))
    play(batch, [ExpectimaxPlayer(lay)] * players)
    return batch.cells.astype(np.float64).mean(axis=(0, 1))


def blended_expectations(rules: Rules, columns: tuple[str, ...], played: float, players: int = 1) -> np.ndarray:
    """(C, R) row expectations, those of columns filled in any order blended with ``played`` of
    the means seen in play."""
    if not 0.0 <= played <= 1.0:
        raise ValueError(f"played must lie in [0, 1], not {played}")
    expected = cell_model(rules, columns).expected.copy()
    free = [c for c, kind in enumerate(columns) if any_order(rules, kind)]
    if played and free:
        expected[free] = (1 - played) * expected[free] + played * seen_means(rules, columns, players)[free]
    return expected


def any_order(rules: Rules, kind: str) -> bool:
    """Whether ``kind``'s order rule lets a fresh column be filled in any row."""
    return order_rule(kind, 0, rules.n_rows, rules.middle_start) == (1 << rules.n_rows) - 1


def played_expectimax(lay: Layout, played: float = DEFAULT_PLAYED) -> ExpectimaxPlayer:
    """``expectimax-played``: expectimax valuing cells against the blended expectations."""
    player = ExpectimaxPlayer(lay, blended_expectations(lay.rules, lay.columns, played, lay.players))
    player.name = "expectimax-played"
    return player
