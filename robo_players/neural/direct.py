"""Kind ``direct``: the network's scores choose the action, masked to the legal ones.

From the scores ``[fill CR | announce CR | roll 1 | keep table 6 x (dice+1)]``
of ``DirectPolicyNet``, the player takes the best of: the best legal fill,
the best legal announcement, and rolling again (when ``GameBatch.decisions``
allows it). Rolling keeps the sub-multiset of the dice (not all of them) with
the highest ``sum_f keep[f, count_f]``. Ties prefer filling, then
announcing, then the first fill, announcement or keep.

A population (``Population``) keeps the features of its batch from one
decision to the next and writes again only the rows of the games to move
(their table features only after a turn ended).
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit, prange

from robo_players.neural.features import encode, features_size
from robo_players.neural.player import Forward, network_outputs
from robo_players.neural.population import Population
from yamb import kernels
from yamb.dice import FACES
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError


@njit(cache=True, parallel=True)
def _choose(games, state, consts, keeps, scores, rows, out):
    """The action of each game of ``games`` from its network outputs ``scores[rows[i]]``, its legal
    moves (``kernels.decision``) found in the same pass; ``keeps``: ``DiceTables.keeps``."""
    dice = state.dice
    n_rows, keep_size, n_dice = consts.n_rows, consts.keep_size, consts.n_dice
    sub_keeps, n_sub_keeps = consts.sub_keeps, consts.n_sub_keeps
    n_cols = consts.order.shape[0]
    cr = n_cols * n_rows
    n_keeps = len(keep_size)
    width = n_dice + 1
    one = np.uint32(1)
    bits = np.empty((len(out), 2, n_cols), dtype=np.uint32)
    for i in prange(len(out)):
        g = games[i]
        m = dice[g]
        _, may_roll = kernels.decide(state, consts, g, bits, i)
        row = rows[i]
        best = -np.inf
        action = -1
        for c in range(n_cols):
            for r in range(n_rows):
                if (bits[i, 0, c] >> np.uint32(r)) & one:
                    cell = c * n_rows + r
                    s = scores[row, cell]
                    if s > best:
                        best = s
                        action = cell
        for c in range(n_cols):
            for r in range(n_rows):
                if (bits[i, 1, c] >> np.uint32(r)) & one:
                    cell = c * n_rows + r
                    s = scores[row, cr + cell]
                    if s > best:
                        best = s
                        action = cr + n_keeps + cell
        if not may_roll:
            out[i] = action
            continue
        s = scores[row, 2 * cr]
        if s > best:
            best_keep = -np.inf
            for j in range(n_sub_keeps[m]):
                k = sub_keeps[m, j]
                if keep_size[k] >= n_dice:
                    continue
                value = 0.0
                for f in range(FACES):
                    value += scores[row, 2 * cr + 1 + f * width + keeps[k, f]]
                if value > best_keep:
                    best_keep = value
                    action = cr + k
        out[i] = action


def choose(batch: GameBatch, games: np.ndarray, scores: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Actions of ``games`` (none done) from their direct-policy scores, ``scores[rows[i]]`` for ``games[i]``."""
    out = np.empty(len(games), dtype=np.int64)
    with threads_for(len(games)):
        _choose(np.asarray(games, dtype=np.int64), batch.state, batch.constants, batch.rules.dice.keeps,
                np.ascontiguousarray(scores, dtype=np.float32), np.asarray(rows, dtype=np.int64), out)
    return out


class DirectPolicyPlayer:
    """Plays with one direct-policy network, or with a population of them on one batch.

    ``cell_values`` is (P, CR), one row per member (see ``robo_players.neural.player``).
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, name: str = "neural-direct") -> None:
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.name = name
        self._batches: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        members = len(self.cell_values)
        if members == 1 or not isinstance(self.forward, Population):
            scores, rows = network_outputs(self.forward, batch, games, self.cell_values, True)
            return choose(batch, games, scores, rows)
        x, seen, scores = self._buffers(batch, members)
        encode(batch, games, self.cell_values, True, kept=(x, seen))
        self.forward(x.reshape(members, batch.n_games // members, -1), out=scores)
        return choose(batch, games, scores.reshape(batch.n_games, -1), games)

    def _buffers(self, batch: GameBatch, members: int) -> tuple:
        """A population's kept features of ``batch`` (``features.encode``), their turns, and the
        (P, G, outputs) scores, made at the batch's first decision."""
        if batch not in self._batches:
            if batch.n_games % members:
                raise YambError(f"a batch of {batch.n_games} games cannot be split among {members} networks")
            x = np.empty((batch.n_games, features_size(batch.layout, True)), dtype=np.float32)
            seen = np.full(batch.n_games, -1, dtype=np.int32)
            scores = np.empty((members, batch.n_games // members, self.forward.layers.n_outputs), dtype=np.float32)
            self._batches[batch] = (x, seen, scores)
        return self._batches[batch]
