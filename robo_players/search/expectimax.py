"""``expectimax``: exact search of the rest of the turn, cells valued by ``cell_values``.

After the first roll of a turn the player plans the rest of it with the turn
optimizer's recursion (``expected_scores.turn.plan_one``, run for up to 64
turns at once, one per SIMD lane: ``expected_scores.lanes``, bit for bit
the same plans): after each remaining roll the turn may end in any cell the
rules allow then, worth the cell's value (its score against the row's
expectation, see ``robo_players.search.cell_values``), and keeps maximize the
expected value of the best ending. Announcing is an ending too, worth the
exact expected value of playing the announced row alone from the current
dice: the row plans of the turn optimizer for collection rows, and for number
rows the probabilities of reaching each count (the plan of a number row keeps
every die of its face, whatever the bonus).

The plan covers every rule of the turn: ``hand`` cells end only the first
roll, ``late_announce`` rows can be announced after the second, jamb6's pure
hands may fill announce cells, and a Yahtzee's joker score and extra bonus
count. The plan is made once per turn, after its first roll (and again after an
announcement, or a pure hand thrown by rerolling every die: the plan credits
the pure hand's endings in the value of rerolling, not in its keeps, which are
one per hand), and kept for the later rolls; a game met without a plan for
its current turn is planned from where it stands, so the player can take
over a game at any point (Monte Carlo rollouts do).

The search takes a correction of the cell values, ``(1 + w) * value + d`` per
cell: the search-guided player (``robo_players.neural.guided``) is this search
with corrections from a network; expectimax passes none. The search itself
lives in ``robo_players.search``, which the look-ahead builds on too.
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import get_num_threads

from robo_players.search.cell_values import LEVELS
from robo_players.search.correction import NO_CORRECTION, Correction
from robo_players.search.lanes import BLOCK
from robo_players.search.tables import search_tables
from robo_players.search.turn import Plans, search_games
from yamb.engine import GameBatch, threads_for
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS

CHUNKS_PER_THREAD = 8
NO_WIN = np.zeros((0, 0))  # endings worth their values (points), not their chance of winning


def _checked(name: str, array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` as contiguous float64, if it has ``shape``."""
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, not {shape}")
    return array


class ExpectimaxPlayer:
    """Exact turn search over cell values (score minus the row's expectation, bonus and difference aware)."""

    name = "expectimax"

    def __init__(self, layout: Layout, expected: np.ndarray | None = None,
                 bonus_levels: np.ndarray | None = None) -> None:
        """``expected``: (C, R) row expectations to value cells against, instead of one turn's;
        ``bonus_levels``: (C, 6, 6) each number row's chances of each level, from which the
        chance of the numbers bonus is computed exactly, instead of a normal approximation
        (``robo_players.search.row_means``)."""
        tables = search_tables(layout.rules, layout.columns)
        if expected is not None:
            tables = tables._replace(expected=_checked("expected", expected, tables.expected.shape))
        if bonus_levels is not None:
            shape = (len(layout.columns), N_NUMBER_ROWS, LEVELS)
            tables = tables._replace(bonus_levels=_checked("bonus_levels", bonus_levels, shape))
        self.tables = tables
        self._plans: weakref.WeakKeyDictionary[GameBatch, Plans] = weakref.WeakKeyDictionary()

    def _plans_of(self, batch: GameBatch) -> Plans:
        """The plans and column values of ``batch``'s games (none made yet for a new batch)."""
        if batch not in self._plans:
            rules = batch.rules
            later = max(rules.rolls, rules.spec.last_turn_rolls) - 1
            columns = (batch.n_games, batch.layout.players, batch.layout.n_columns)
            self._plans[batch] = Plans(
                np.empty((batch.n_games, later, rules.dice.n_multisets), dtype=np.int16),
                np.full(batch.n_games, -1, dtype=np.int32),
                np.full(batch.n_games, -1, dtype=np.int32),
                np.full(columns, -1, dtype=np.int64),
                np.zeros((*columns, rules.n_rows, 2)),  # zeros: the number rows' lin stays 0, as jokers read it
                np.zeros((*columns, N_NUMBER_ROWS, LEVELS)),
            )
        return self._plans[batch]

    def search(self, batch: GameBatch, games: np.ndarray, adjust: Correction = NO_CORRECTION,
               win: np.ndarray = NO_WIN) -> np.ndarray:
        """The actions of ``games`` (int64), cell values corrected by ``adjust`` (none by default);
        with ``win`` rows (one per game, ``robo_players.search.win_utility``) the endings are worth
        their chance of winning. On all numba threads."""
        actions = np.empty(len(games), dtype=np.int64)
        chunks = min(-(-len(games) // BLOCK), CHUNKS_PER_THREAD * get_num_threads())
        search_games(games, batch.state, batch.constants, self.tables, *self._plans_of(batch), actions,
                     adjust, win, chunks)
        return actions

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        with threads_for(len(games)):
            return self.search(batch, np.asarray(games, dtype=np.int64), NO_CORRECTION)
