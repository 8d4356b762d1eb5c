"""The corrections of cell values a search player adds, ``(1 + w) * value + d`` per cell.

The search-guided networks (``robo_players.neural.guided``) and the exact columns
(``robo_players.search.column_exact``) correct the values; the look-ahead
(``robo_players.search.lookahead``) adds the next turns' values after; ``expectimax`` adds nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from robo_players.search.cell_values import ONE, column_values
from yamb.engine import GameBatch
from yamb.rules import N_NUMBER_ROWS

NO_AFTER = np.zeros((0, 0, 0, 0))  # nothing added after the correction


class Correction(NamedTuple):
    """``outputs[rows[i]]`` holds, for cell ``c * R + r`` of the ``CR`` cells, ``d / scale`` at that
    index and ``w`` at ``CR`` plus it; none when empty. Always float64 (network outputs widened, which
    changes no value): every search kernel then compiles once, not once per type.

    ``after`` (n, C, R, LEVELS), unless empty, is added to the corrected values, by row
    ``rows[i]``: to each level of a number row, and to a later row's intercept (``[.., 0]``)
    and slope (``[.., 1]``) (the look-ahead's next-turn values).
    """

    outputs: np.ndarray
    rows: np.ndarray
    scale: float
    after: np.ndarray = NO_AFTER


NO_CORRECTION = Correction(np.zeros((0, 0)), np.zeros(0, dtype=np.int64), 1.0)  # expectimax


def corrections_of(player: object, batch: GameBatch, games: np.ndarray) -> Correction:
    """The corrections ``player`` searches ``games`` of ``batch`` with (its ``corrections``), or
    ``NO_CORRECTION`` for a player without (``expectimax``)."""
    corrections = getattr(player, "corrections", None)
    return corrections(batch, games) if corrections is not None else NO_CORRECTION


@njit(cache=True, inline="always")
def correct(adjust, i, c, own, lin, num):
    """Open cells of column ``c`` (filled rows ``own``) valued ``(1 + w) * value + d``, then
    ``after`` added, by row ``adjust.rows[i]``."""
    outputs, after = adjust.outputs, adjust.after
    row = adjust.rows[i]
    n_rows = lin.shape[1]
    n_cells = lin.shape[0] * n_rows
    for r in range(n_rows):
        if (own >> np.uint32(r)) & ONE:
            continue
        d = outputs[row, c * n_rows + r] * adjust.scale
        a = max(1.0 + outputs[row, n_cells + c * n_rows + r], 0.0)
        if r < N_NUMBER_ROWS:
            for k in range(num.shape[2]):
                num[c, r, k] = a * num[c, r, k] + d
        else:
            lin[c, r, 0] = a * lin[c, r, 0]
            lin[c, r, 1] = a * lin[c, r, 1] + d
        if after.shape[0]:
            if r < N_NUMBER_ROWS:
                for k in range(num.shape[2]):
                    num[c, r, k] += after[row, c, r, k]
            else:
                lin[c, r, 1] += after[row, c, r, 0]
                lin[c, r, 0] += after[row, c, r, 1]


@njit(cache=True, inline="always")
def corrected_column(c, own, plain_lin, plain_num, adjust, i, lin, num):
    """Column ``c``'s values ``plain_lin[c]``, ``plain_num[c]`` into ``lin[c]``, ``num[c]``,
    corrected by row ``i`` of ``adjust`` (``correct``) when it has outputs."""
    for r in range(lin.shape[1]):
        lin[c, r, 0] = plain_lin[c, r, 0]
        lin[c, r, 1] = plain_lin[c, r, 1]
    for r in range(N_NUMBER_ROWS):
        for k in range(num.shape[2]):
            num[c, r, k] = plain_num[c, r, k]
    if adjust.outputs.shape[0]:
        correct(adjust, i, c, own, lin, num)


@njit(cache=True, inline="always")
def corrected_values(filled, cells, g, p, tables, adjust, i, lin, num):
    """The values of player ``p``'s open columns in game ``g`` into ``lin`` and ``num``, computed
    afresh (``column_values``) and corrected by row ``i`` of ``adjust``."""
    full = (1 << lin.shape[1]) - 1
    for c in range(lin.shape[0]):
        own = filled[g, p, c]
        if own != full:
            column_values(filled, cells, g, p, c, tables.expected, tables.variance, tables.bonus_levels,
                          tables.level_score, tables.params, lin, num)
            if adjust.outputs.shape[0]:
                correct(adjust, i, c, own, lin, num)
