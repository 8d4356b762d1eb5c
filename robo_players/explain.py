"""What a search player thinks of each open cell: the value it would give filling it with the dice now.

``expectimax`` and the players built on its search (``expectimax-played``,
``expectimax-exact``, the search-guided networks, the shipped ``best``) end a
turn in the cell worth the most: a cell's value is its score against what the
row is expected to bring, aware of the numbers bonus and the difference row
(``robo_players.cell_values``), corrected by the network for a guided player.
``open_cell_values`` computes those values with the search's own kernels, for
every open cell of the player to move, at the current dice; a look-ahead
player's (``best+lookahead``, ``robo_players.lookahead``) add what the next
turns bring from the table the fill leaves, as its search does. Other players
(random, greedy, smart, direct-policy networks, ...) keep no such values.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from robo_players.base import Player
from robo_players.cell_values import LEVELS, column_values
from robo_players.expectimax import NO_CORRECTION, ExpectimaxPlayer, _correct, _fill_value, with_after
from robo_players.lookahead import LookaheadPlayer
from yamb.engine import GameBatch, single_thread
from yamb.game import Cell, Game
from yamb.rules import N_NUMBER_ROWS


@njit(cache=True)
def _fill_values(games, fills, filled, cells, player, dice, consts, tables, adjust, out):
    """``out[i]``: the search's value of filling cell ``fills[i]`` of ``games[i]``'s mover with its
    dice, corrected by row ``i`` of ``adjust`` (``_correct``)."""
    scores, joker_scores, five_face, has_jokers = consts[3], consts[4], consts[5], consts[12]
    expected, variance, bonus_levels, levels, level_score, params = tables[:6]
    n_cols, n_rows = filled.shape[2], expected.shape[1]
    lin = np.zeros((n_cols, n_rows, 2))
    num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    for i in range(len(games)):
        g, p = games[i], player[games[i]]
        c, r = fills[i] // n_rows, fills[i] % n_rows
        own = filled[g, p, c]
        column_values(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params, lin, num)
        if adjust[0].shape[0]:
            _correct(adjust, i, c, own, lin, num)
        yamb_cell = cells[g, p, c, params[6]] if has_jokers else 0
        out[i] = _fill_value(c, r, dice[g], own, scores, joker_scores, five_face, has_jokers, params, yamb_cell,
                             levels, lin, num)


def fill_values(player: ExpectimaxPlayer | LookaheadPlayer, batch: GameBatch, games: np.ndarray,
                fills: np.ndarray) -> np.ndarray:
    """(n,) float64: ``player``'s search value of filling open cell ``fills[i]`` of ``games[i]``'s
    mover with the dice now (its corrections included, computed for ``games``; a look-ahead
    player's include the next turns)."""
    games = np.asarray(games, dtype=np.int64)
    corrections = getattr(player, "corrections", None)
    with single_thread():
        adjust = corrections(batch, games) if corrections is not None else NO_CORRECTION
    out = np.empty(len(games))
    _fill_values(games, np.asarray(fills, dtype=np.int64), batch.state[0], batch.state[1], batch.player,
                 batch.dice, batch.constants, player.tables, with_after(adjust), out)
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
