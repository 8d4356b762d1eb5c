"""Kind ``direct``: the network's scores choose the action, masked to the legal ones.

From the scores ``[fill CR | announce CR | roll 1 | keep table 6 x (dice+1)]``
of ``DirectPolicyNet``, the player takes the best of: the best legal fill,
the best legal announcement, and rolling again (when ``GameBatch.decisions``
allows it). Rolling keeps the sub-multiset of the dice (not all of them) with
the highest ``sum_f keep[f, count_f]``. Ties prefer filling, then
announcing, then the first fill, announcement or keep.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from robo_players.neural.player import Forward, network_outputs
from yamb.dice import FACES
from yamb.engine import GameBatch


@njit(cache=True, parallel=True)
def _choose(scores, rows, fill_bits, announce_bits, may_roll, dice, sub_keeps, n_sub_keeps, keeps,
            keep_size, n_dice, n_rows, out):
    n_cols = fill_bits.shape[1]
    cr = n_cols * n_rows
    n_keeps = len(keep_size)
    one = np.uint32(1)
    for i in prange(len(out)):
        row = rows[i]
        best = -np.inf
        action = -1
        for c in range(n_cols):
            for r in range(n_rows):
                cell = c * n_rows + r
                if (fill_bits[i, c] >> np.uint32(r)) & one and scores[row, cell] > best:
                    best = scores[row, cell]
                    action = cell
        for c in range(n_cols):
            for r in range(n_rows):
                cell = c * n_rows + r
                if (announce_bits[i, c] >> np.uint32(r)) & one and scores[row, cr + cell] > best:
                    best = scores[row, cr + cell]
                    action = cr + n_keeps + cell
        if may_roll[i] and scores[row, 2 * cr] > best:
            m = dice[i]
            best_keep = -np.inf
            for j in range(n_sub_keeps[m]):
                k = sub_keeps[m, j]
                if keep_size[k] >= n_dice:
                    continue
                value = 0.0
                for f in range(FACES):
                    value += scores[row, 2 * cr + 1 + f * (n_dice + 1) + keeps[k, f]]
                if value > best_keep:
                    best_keep = value
                    action = cr + k
        out[i] = action


def choose(batch: GameBatch, games: np.ndarray, scores: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Actions of ``games`` from their direct-policy scores, ``scores[rows[i]]`` for ``games[i]``."""
    d = batch.decisions(games)
    dice = batch.rules.dice
    out = np.empty(len(games), dtype=np.int64)
    _choose(
        np.ascontiguousarray(scores), np.asarray(rows, dtype=np.int64), d.fill_bits, d.announce_bits, d.may_roll, batch.dice[games],
        dice.sub_keeps, dice.n_sub_keeps, dice.keeps, dice.keep_size, batch.rules.n_dice,
        batch.layout.n_rows, out,
    )
    return out


class DirectPolicyPlayer:
    """Plays with one direct-policy network, or with a population of them on one batch.

    ``cell_values`` is (P, CR), one row per member (see ``robo_players.neural.player``).
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, name: str = "neural-direct") -> None:
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.name = name

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        scores, rows = network_outputs(self.forward, batch, games, self.cell_values, True)
        return choose(batch, games, scores, rows)
