"""What a search player thinks of each open cell: the value it would give filling it with the dice now.

``expectimax`` and the players built on its search (``expectimax-played``,
``expectimax-exact``, the search-guided networks, the shipped ``best``) end a
turn in the cell worth the most: a cell's value is its score against what the
row is expected to bring, aware of the numbers bonus and the difference row
(``robo_players.search.cell_values``), corrected by the network for a guided player.
``open_cell_values`` computes those values with the search's own kernels, for
every open cell of the player to move, at the current dice; a look-ahead
player's (``best+lookahead``, ``robo_players.search.lookahead``) add what the next
turns bring from the table the fill leaves, as its search does. Other players
(random, greedy, smart, direct-policy networks, ...) keep no such values.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from robo_players.base import Player
from robo_players.search.cell_values import LEVELS, column_values
from robo_players.search.correction import correct, corrections_of
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lookahead import LookaheadPlayer
from robo_players.search.values import fill_value
from yamb.engine import GameBatch, single_thread
from yamb.game import Cell, Game
from yamb.rules import N_NUMBER_ROWS


@njit(cache=True)
def _fill_values(games, fills, state, consts, tables, adjust, out):
    """``out[i]``: the search's value of filling cell ``fills[i]`` of ``games[i]``'s mover with its
    dice, corrected by row ``i`` of ``adjust`` (a ``Correction``)."""
    filled, cells = state.filled, state.cells
    n_cols, n_rows = filled.shape[2], consts.n_rows
    lin = np.zeros((n_cols, n_rows, 2))
    num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    for i in range(len(games)):
        g, p = games[i], state.player[games[i]]
        c, r = fills[i] // n_rows, fills[i] % n_rows
        own = filled[g, p, c]
        column_values(filled, cells, g, p, c, tables.expected, tables.variance, tables.bonus_levels,
                      tables.level_score, tables.params, lin, num)
        if adjust.outputs.shape[0]:
            correct(adjust, i, c, own, lin, num)
        yamb_cell = cells[g, p, c, consts.yz_row] if consts.has_jokers else 0
        out[i] = fill_value(c, r, state.dice[g], own, consts.scores, consts.joker_scores, consts.five_face,
                            consts.has_jokers, tables.params, yamb_cell, tables.levels, lin, num)


def fill_values(player: ExpectimaxPlayer | LookaheadPlayer, batch: GameBatch, games: np.ndarray,
                fills: np.ndarray) -> np.ndarray:
    """(n,) float64: ``player``'s search value of filling open cell ``fills[i]`` of ``games[i]``'s
    mover with the dice now (its corrections included, computed for ``games``; a look-ahead
    player's include the next turns)."""
    games = np.asarray(games, dtype=np.int64)
    with single_thread():
        adjust = corrections_of(player, batch, games)
    out = np.empty(len(games))
    _fill_values(games, np.asarray(fills, dtype=np.int64), batch.state, batch.constants, player.tables,
                 adjust, out)
    return out


def open_cell_values(player: Player, game: Game) -> dict[Cell, float] | None:
    """Each open cell of the player to move, valued as ``player``'s search values filling it with
    the current dice (jokers and the extra-Yahtzee bonus included); ``None`` for a player that
    does not value cells, or a game that is over."""
    if not isinstance(player, ExpectimaxPlayer | LookaheadPlayer) or game.is_over():
        return None
    lay, batch = game.layout, game.batch
    own = batch.filled[0, game.player]
    fills = np.array([c * lay.n_rows + r for c in range(lay.n_columns) for r in range(lay.n_rows)
                      if not own[c] >> np.uint32(r) & 1], dtype=np.int64)
    values = fill_values(player, batch, np.zeros(len(fills), dtype=np.int64), fills)
    return {game.cell_of(int(x)): float(v) for x, v in zip(fills, values)}
