"""Kind ``direct``: the network's scores choose the action, masked to the legal ones.

From the scores ``[fill CR | announce CR | roll 1 | keep table 6 x (dice+1)]``
of ``DirectPolicyNet``, the player takes the best of: the best legal fill,
the best legal announcement, and rolling again (when ``GameBatch.decisions``
allows it). Rolling keeps the sub-multiset of the dice (not all of them) with
the highest ``sum_f keep[f, count_f]``. Ties prefer filling, then
announcing, then the first fill, announcement or keep.

With torch networks (a ``Population``) the player runs the network without
its last bias and gain term (``DirectPolicyNet.forward_stacked_raw``) and adds
them in the action kernel to the scores it reads: the same float32 additions
and products as the network's ``forward``, so the same bits, on a few scores
of each game instead of all of them. A population keeps the features of its
batch from one decision to the next and writes again only the rows of the
games to move (their table features only after a turn ended).
"""

from __future__ import annotations

import weakref

import numpy as np
import torch
from numba import njit, prange

from robo_players.neural.features import encode, features_size, gain, score_scale
from robo_players.neural.networks import DirectPolicyNet
from robo_players.neural.player import Forward, forward_rows, network_outputs
from robo_players.neural.population import Population
from yamb import kernels
from yamb.dice import FACES
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError

_NO_TERMS = np.zeros((0, 0), dtype=np.float32)


@njit(cache=True, parallel=True)
def _choose(games, state, consts, keeps, scores, rows, bias, gain_weight, cell_values, scale, per_member, out):
    """The action of each game of ``games`` from ``scores[rows[i]]``, its legal moves
    (``kernels.decision``) found in the same pass; ``keeps``: ``DiceTables.keeps``.

    With the last layer's ``bias`` (P, outputs), the ``gain_weight`` (P, CR) and the
    ``cell_values`` (P, CR) of member ``games[i] // per_member``, ``scores`` lack the bias and the
    gain term: a score is ``scores + bias`` and a fill's ``scores + bias + gain_weight * gain``,
    in float32 as ``DirectPolicyNet.forward`` computes them, with the fill's gain feature
    (``features.gain``, its cell open) computed again; without (empty arrays), ``scores`` are
    the network's outputs.
    """
    dice = state.dice
    n_rows, row_scores, keep_size, n_dice = consts.n_rows, consts.scores, consts.keep_size, consts.n_dice
    sub_keeps, n_sub_keeps = consts.sub_keeps, consts.n_sub_keeps
    n_cols = consts.order.shape[0]
    cr = n_cols * n_rows
    n_keeps = len(keep_size)
    width = n_dice + 1
    terms = bias.shape[0] > 0
    one = np.uint32(1)
    bits = np.empty((len(out), 2, n_cols), dtype=np.uint32)
    for i in prange(len(out)):
        g = games[i]
        m = dice[g]
        _, may_roll = kernels.decide(state, consts, g, bits, i)
        row = rows[i]
        member = g // per_member
        best = -np.inf
        action = -1
        for c in range(n_cols):
            for r in range(n_rows):
                if (bits[i, 0, c] >> np.uint32(r)) & one:
                    cell = c * n_rows + r
                    s = scores[row, cell]
                    if terms:
                        s = np.float32(s + bias[member, cell])
                        feature = np.float32(gain(row_scores[m, r], cell_values[member, cell], scale))
                        s = np.float32(s + np.float32(gain_weight[member, cell] * feature))
                    if s > best:
                        best = s
                        action = cell
        for c in range(n_cols):
            for r in range(n_rows):
                if (bits[i, 1, c] >> np.uint32(r)) & one:
                    cell = c * n_rows + r
                    s = scores[row, cr + cell]
                    if terms:
                        s = np.float32(s + bias[member, cr + cell])
                    if s > best:
                        best = s
                        action = cr + n_keeps + cell
        if not may_roll:
            out[i] = action
            continue
        s = scores[row, 2 * cr]
        if terms:
            s = np.float32(s + bias[member, 2 * cr])
        if s > best:
            best_keep = -np.inf
            for j in range(n_sub_keeps[m]):
                k = sub_keeps[m, j]
                if keep_size[k] >= n_dice:
                    continue
                value = 0.0
                for f in range(FACES):
                    at = 2 * cr + 1 + f * width + keeps[k, f]
                    if terms:
                        value += np.float32(scores[row, at] + bias[member, at])
                    else:
                        value += scores[row, at]
                if value > best_keep:
                    best_keep = value
                    action = cr + k
        out[i] = action


def choose(batch: GameBatch, games: np.ndarray, scores: np.ndarray, rows: np.ndarray,
           terms: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Actions of ``games`` (none done) from their direct-policy scores, ``scores[rows[i]]`` for ``games[i]``;
    ``terms``: the bias, gain weights and cell values that ``_choose`` adds to scores that lack them."""
    bias, gain_weight, cell_values = terms or (_NO_TERMS, _NO_TERMS, _NO_TERMS)
    per_member = batch.n_games // max(len(cell_values), 1)
    out = np.empty(len(games), dtype=np.int64)
    with threads_for(len(games)):
        _choose(np.asarray(games, dtype=np.int64), batch.state, batch.constants, batch.rules.dice.keeps,
                np.ascontiguousarray(scores), np.asarray(rows, dtype=np.int64), bias, gain_weight, cell_values,
                np.float32(score_scale(batch.layout)), per_member, out)
    return out


class DirectPolicyPlayer:
    """Plays with one direct-policy network, or with a population of them on one batch.

    ``cell_values`` is (P, CR), one row per member (see ``robo_players.neural.player``).
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, name: str = "neural-direct") -> None:
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.name = name
        torch_net = isinstance(forward, Population) and isinstance(forward.net, DirectPolicyNet)
        self._terms = forward.net.output_terms(forward.params) if torch_net else None
        self._batches: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if self._terms is None:
            scores, rows = network_outputs(self.forward, batch, games, self.cell_values, True)
            return choose(batch, games, scores, rows)
        net, params = self.forward.net, self.forward.params
        members = len(self.cell_values)
        with torch.no_grad():
            if members == 1:
                x = encode(batch, games, self.cell_values, True)
                scores = forward_rows(lambda x3: net.forward_stacked_raw(params, torch.from_numpy(x3)).numpy(), x)
                rows = np.arange(len(games))
            else:
                x, seen, x_torch, scores_torch = self._buffers(batch, members)
                encode(batch, games, self.cell_values, True, kept=(x, seen))
                net.forward_stacked_raw(params, x_torch, out=scores_torch)
                scores, rows = scores_torch.numpy().reshape(batch.n_games, -1), games
        return choose(batch, games, scores, rows, (*self._terms, self.cell_values))

    def _buffers(self, batch: GameBatch, members: int) -> tuple:
        """A population's kept features of ``batch`` (``features.encode``), their turns, and the same
        features and the scores as (P, G, ...) tensors, made at the batch's first decision."""
        if batch not in self._batches:
            if batch.n_games % members:
                raise YambError(f"a batch of {batch.n_games} games cannot be split among {members} networks")
            x = np.empty((batch.n_games, features_size(batch.layout, True)), dtype=np.float32)
            seen = np.full(batch.n_games, -1, dtype=np.int32)
            scores = torch.empty((members, batch.n_games // members, self.forward.net.n_outputs))
            self._batches[batch] = (x, seen, torch.from_numpy(x).view(members, batch.n_games // members, -1), scores)
        return self._batches[batch]
