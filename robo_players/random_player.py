"""``random``: uniform over the legal actions (fills, keeps and announcements)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yamb import kernels
from yamb.engine import GameBatch

_SALT = 1


@njit(cache=True)
def _nth_cell(bits, i, k, j, n_rows):
    """Cell of the j-th set bit across the row bitmasks ``bits[i, k, :]``."""
    for c in range(bits.shape[2]):
        for r in range(n_rows):
            if (bits[i, k, c] >> np.uint32(r)) & np.uint32(1):
                if j == 0:
                    return c * n_rows + r
                j -= 1
    return -1


@njit(cache=True, parallel=True)
def _choose(games, state, consts, salt, actions):
    """For each game, the ``decision`` and a uniform pick among its legal actions."""
    dice, roll, turn, base = state.dice, state.roll, state.turn, state.base
    n_rows, keep_size, popcount = consts.n_rows, consts.keep_size, consts.popcount
    sub_keeps, n_sub_keeps = consts.sub_keeps, consts.n_sub_keeps
    n_cols = consts.order.shape[0]
    n_cells = n_cols * n_rows
    n_keeps = len(keep_size)
    out = np.empty((len(games), 2, n_cols), dtype=np.uint32)
    for i in prange(len(games)):
        g = games[i]
        _, may_roll = kernels.decide(state, consts, g, out, i)
        n_fill = 0
        n_ann = 0
        for c in range(n_cols):
            n_fill += popcount[out[i, 0, c]]
            n_ann += popcount[out[i, 1, c]]
        n_keep = n_sub_keeps[dice[g]] - 1 if may_roll else 0
        total = n_fill + n_keep + n_ann
        u = np.float64(kernels.counter_hash(base[g], turn[g], roll[g], salt) >> np.uint64(11))
        j = min(int(u * 2.0**-53 * total), total - 1)
        if j < n_fill:
            actions[i] = _nth_cell(out, i, 0, j, n_rows)
        elif j < n_fill + n_keep:
            actions[i] = n_cells + sub_keeps[dice[g], j - n_fill]
        else:
            actions[i] = n_cells + n_keeps + _nth_cell(out, i, 1, j - n_fill - n_keep, n_rows)


class RandomPlayer:
    """Picks uniformly among all legal actions, reproducibly from the batch's seed."""

    name = "random"

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        _choose(np.asarray(games, dtype=np.int64), batch.state, batch.constants, _SALT, actions)
        return actions
