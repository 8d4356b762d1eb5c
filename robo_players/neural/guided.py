"""Kind ``guided``: the expectimax search, with cell values corrected by a network.

``expectimax`` plans the rest of each turn with the exact turn optimizer,
ending it in the cell worth the most: a cell's value is its score against
the row's expectation, aware of the numbers bonus and the difference row
(``robo_players.cell_values``). Here ``CellValueNet`` looks at the table and
corrects every open cell's value: ``(1 + w) * value + d``, with ``d`` (scaled
by the largest score) and ``w`` the network's two outputs for the cell. A
zero correction is expectimax exactly, which is where evolution starts.

The corrections depend on the table only, so they stay the same through a
turn and the turn's plan (made after its first roll) stays valid. The search
kernel is ``expectimax._search_one`` with the correction applied after the
cell values are computed.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from expected_scores.turn import STOP, plan_one
from robo_players.cell_values import column_values
from robo_players.expectimax import (
    _FILL, _LATE, _PURE, CHUNKS_PER_THREAD, ExpectimaxPlayer, _announce_value, _fill_value, _workspace,
)
from robo_players.heuristics import ONE, decide
from robo_players.neural.features import score_scale
from robo_players.neural.player import Forward, network_outputs
from yamb import kernels
from yamb.engine import PARALLEL_GAMES, GameBatch
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS


@njit(cache=True, inline="always")
def _correct(adjust, i, c, own, lin, num):
    """Open cells of column ``c`` valued ``(1 + w) * value + d``, ``(d, w) = adjust[i, :, c, r]``."""
    for r in range(lin.shape[1]):
        if (own >> np.uint32(r)) & ONE:
            continue
        d = adjust[i, 0, c, r]
        a = max(1.0 + adjust[i, 1, c, r], 0.0)
        if r < N_NUMBER_ROWS:
            for k in range(num.shape[2]):
                num[c, r, k] = a * num[c, r, k] + d
        else:
            lin[c, r, 0] = a * lin[c, r, 0]
            lin[c, r, 1] = a * lin[c, r, 1] + d


@njit(cache=True, inline="always")
def _guided_one(i, games, state, consts, tables, plans, work, bits, actions, adjust):
    """``expectimax._search_one`` of ``games[i]`` with the cell values corrected by ``adjust[i]``."""
    filled, cells, dice, roll, rolls_allowed, _, announced, answer, player, turn = state[:10]
    order, n_rows, scores, joker_scores, five_face = consts[0], consts[1], consts[3], consts[4], consts[5]
    keep_size, has_jokers, pure_hand = consts[7], consts[12], consts[15]
    (expected, variance, levels, level_score, params, sign, row_value, reach,
     add_die, remove_die, first_prob, scores_t, levels_t) = tables
    lin, num, ends, all_options, all_pure, all_value, all_keep, kv, best_keep, arg = work
    plan_keep, plan_turn_id, plan_target = plans
    n_cols = order.shape[0]
    n_cells = n_cols * n_rows
    n_keeps = len(keep_size)
    n_multisets = levels.shape[0]
    g = games[i]
    p = player[g]
    m = dice[g]
    must, may_roll = decide(state, consts, g, bits, i)
    target = announced[g] if announced[g] >= 0 else answer[g]
    planned = roll[g] > 1 and plan_turn_id[g] == turn[g] and plan_target[g] == target
    if planned and may_roll and not must and plan_keep[g, roll[g] - 2, m] != STOP:
        actions[i] = n_cells + plan_keep[g, roll[g] - 2, m]
        return
    full = (1 << n_rows) - 1
    for c in range(n_cols):
        if filled[g, p, c] != full:
            column_values(filled, cells, g, p, c, expected, variance, level_score, params, lin, num)
            _correct(adjust, i, c, filled[g, p, c], lin, num)
    yz_row = params[6]
    left = rolls_allowed[g] - roll[g]
    # the best ending after this roll
    best = -np.inf
    action = -1
    for c in range(n_cols):
        own = filled[g, p, c]
        yamb_cell = cells[g, p, c, yz_row] if has_jokers else 0
        for r in range(n_rows):
            if (bits[i, 0, c] >> np.uint32(r)) & ONE:
                v = _fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params,
                                yamb_cell, levels, lin, num)
                if v > best:
                    best, action = v, c * n_rows + r
            if (bits[i, 1, c] >> np.uint32(r)) & ONE:
                v = _announce_value(c, r, m, left, sign, row_value, reach, lin, num)
                if v > best:
                    best, action = v, n_cells + n_keeps + c * n_rows + r
    if must or not may_roll or planned:  # the plan, if any, says stop
        actions[i] = action
        return
    # the endings after each later roll: fills (ordinary, or the committed cell), late
    # announcements after roll 2, fills of announce cells by a pure hand
    n_ends = 0
    for c in range(n_cols):
        entry = order[c, filled[g, p, c]]
        kind = entry >> kernels.KIND_SHIFT
        rows = entry & np.uint32(kernels.ROW_BITS)
        for r in range(n_rows):
            if not (rows >> np.uint32(r)) & ONE:
                continue
            end = -1
            if (kind == kernels.ORDINARY and target < 0) or c * n_rows + r == target:
                end = _FILL
            elif kind == kernels.LATE and target < 0 and roll[g] == 1:
                end = _LATE
            elif kind == kernels.ANNOUNCE and pure_hand and target < 0:
                end = _PURE
            if end >= 0:
                ends[n_ends, 0] = c * n_rows + r
                ends[n_ends, 1] = end
                n_ends += 1
    layers = left + 1
    options = all_options[:layers]
    pure = all_pure[:layers]
    options[:] = -np.inf
    pure[:] = -np.inf
    options[0, 0, m] = best
    # fills after the next roll, one end at a time (contiguous rows of the tables, no helpers:
    # a helper taking arrays costs reference counts)
    for e in range(n_ends):
        c = ends[e, 0] // n_rows
        r = ends[e, 0] % n_rows
        if ends[e, 1] == _LATE:
            continue
        into = options if ends[e, 1] == _FILL else pure
        if r < N_NUMBER_ROWS:
            for mm in range(n_multisets):
                into[1, 0, mm] = max(into[1, 0, mm], num[c, r, levels_t[r, mm]])
        else:
            a, b = lin[c, r, 0], lin[c, r, 1]
            for mm in range(n_multisets):
                into[1, 0, mm] = max(into[1, 0, mm], a * scores_t[r, mm] + b)
        if has_jokers:  # a joker scores more, and an extra Yahtzee earns its bonus
            for mm in range(n_multisets):
                if five_face[mm] > 0:
                    v = _fill_value(c, r, mm, filled[g, p, c], scores, joker_scores, five_face,
                                    has_jokers, params, cells[g, p, c, yz_row], levels, lin, num)
                    into[1, 0, mm] = max(into[1, 0, mm], v)
    for t in range(2, layers):
        options[t] = options[1]
        if pure_hand:
            pure[t] = pure[1]
    for e in range(n_ends):  # announcing a late_announce row after roll 2
        if ends[e, 1] == _LATE:
            c = ends[e, 0] // n_rows
            r = ends[e, 0] % n_rows
            for mm in range(n_multisets):
                v = _announce_value(c, r, mm, left - 1, sign, row_value, reach, lin, num)
                options[1, 0, mm] = max(options[1, 0, mm], v)
    keep = all_keep[:layers]
    plan_one(options, pure, 0, add_die, remove_die, first_prob, all_value[:layers], keep, kv,
             best_keep, arg)
    for t in range(1, layers):
        for mm in range(n_multisets):
            plan_keep[g, roll[g] + t - 2, mm] = keep[t, 0, mm]
    plan_turn_id[g] = turn[g]
    plan_target[g] = target
    k = keep[0, 0, m]
    actions[i] = action if k == STOP else n_cells + k


@njit(cache=True, inline="always")
def _guided_range(start, stop, games, state, consts, tables, plans, bits, actions, adjust):
    """Search ``games[start:stop]`` with one workspace."""
    n_rows, n_keeps, pure_hand = consts[1], len(consts[7]), consts[15]
    levels, level_score, plan_keep = tables[2], tables[3], plans[0]
    work = _workspace(consts[0].shape[0], n_rows, level_score.shape[1], plan_keep.shape[1] + 1,
                      levels.shape[0], n_keeps, pure_hand)
    for i in range(start, stop):
        _guided_one(i, games, state, consts, tables, plans, work, bits, actions, adjust)


@njit(cache=True)
def _guided(games, state, consts, tables, plans, actions, adjust):
    bits = np.empty((len(games), 2, consts[0].shape[0]), dtype=np.uint32)
    _guided_range(0, len(games), games, state, consts, tables, plans, bits, actions, adjust)


@njit(cache=True, parallel=True)
def _guided_parallel(games, state, consts, tables, plans, actions, adjust, n_chunks):
    bits = np.empty((len(games), 2, consts[0].shape[0]), dtype=np.uint32)
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        _guided_range(start, stop, games, state, consts, tables, plans, bits, actions, adjust)


class SearchGuidedPlayer(ExpectimaxPlayer):
    """Expectimax over cell values corrected by one network, or by a population on one batch.

    ``cell_values`` is (P, CR), one row per member: what the network's
    features take an open cell to be worth (see ``robo_players.neural.player``).
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, layout: Layout,
                 name: str = "neural-guided") -> None:
        super().__init__(layout)
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.scale = score_scale(layout)
        self.name = name

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        lay = batch.layout
        out = network_outputs(self.forward, batch, games, self.cell_values, False).astype(np.float64)
        adjust = out.reshape(len(games), 2, lay.n_columns, lay.n_rows)
        adjust[:, 0] *= self.scale
        actions = np.empty(len(games), dtype=np.int64)
        args = (games, batch._state, batch._consts, self.tables, self._plans_of(batch), actions, adjust)
        if len(games) >= PARALLEL_GAMES:
            _guided_parallel(*args, min(len(games), CHUNKS_PER_THREAD * get_num_threads()))
        else:
            _guided(*args)
        return actions
