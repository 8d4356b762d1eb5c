"""What a search player thinks of each open cell: the value it would give filling it with the dice now.

``expectimax`` and the players built on its search (``expectimax-played``,
``expectimax-exact``, the search-guided networks, the shipped ``best``) end a
turn in the cell worth the most: a cell's value is its score against what the
row is expected to bring, aware of the numbers bonus and the difference row
(``robo_players.cell_values``), corrected by the network for a guided player.
``open_cell_values`` computes those values with the search's own kernels, for
every open cell of the player to move, at the current dice. Other players
(random, greedy, smart, direct-policy networks, ...) keep no such values.
"""

from __future__ import annotations

import numpy as np

from robo_players.base import Player
from robo_players.cell_values import LEVELS, column_values
from robo_players.expectimax import NO_CORRECTION, ExpectimaxPlayer, _correct, _fill_value, with_after
from yamb.engine import single_thread
from yamb.game import Cell, Game
from yamb.rules import N_NUMBER_ROWS


def open_cell_values(player: Player, game: Game) -> dict[Cell, float] | None:
    """Each open cell of the player to move, valued as ``player``'s search values filling it with
    the current dice (jokers and the extra-Yahtzee bonus included); ``None`` for a player that
    does not value cells, or a game that is over."""
    if not isinstance(player, ExpectimaxPlayer) or game.is_over():
        return None
    batch, lay = game.batch, game.layout
    games = np.zeros(1, dtype=np.int64)
    corrections = getattr(player, "corrections", None)
    with single_thread():
        adjust = corrections(batch, games) if corrections is not None else NO_CORRECTION
    expected, variance, bonus_levels, levels, level_score, params = player.tables[:6]
    filled, cells = batch._state[0], batch._state[1]
    consts = batch._consts
    scores, joker_scores, five_face, has_jokers = consts[3], consts[4], consts[5], consts[12]
    p, m = game.player, int(batch.dice[0])
    lin = np.zeros((lay.n_columns, lay.n_rows, 2))
    num = np.zeros((lay.n_columns, N_NUMBER_ROWS, LEVELS))
    full = (1 << lay.n_rows) - 1
    values: dict[Cell, float] = {}
    for c in range(lay.n_columns):
        own = filled[0, p, c]
        if own == full:
            continue
        column_values(filled, cells, 0, p, c, expected, variance, bonus_levels, level_score, params, lin, num)
        if adjust[0].shape[0]:
            _correct(with_after(adjust), 0, c, own, lin, num)
        yamb_cell = cells[0, p, c, params[6]] if has_jokers else 0
        for r in range(lay.n_rows):
            if not own >> np.uint32(r) & 1:
                v = _fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params,
                                yamb_cell, levels, lin, num)
                values[game.cell_of(c * lay.n_rows + r)] = float(v)
    return values
