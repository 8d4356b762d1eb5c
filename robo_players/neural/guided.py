"""Kind ``guided``: the expectimax search, with cell values corrected by a network.

``expectimax`` plans the rest of each turn with the exact turn optimizer,
ending it in the cell worth the most: a cell's value is its score against
the row's expectation, aware of the numbers bonus and the difference row
(``robo_players.cell_values``). Here ``CellValueNet`` looks at the table and
corrects every open cell's value: ``(1 + w) * value + d``, with ``d`` (times
the largest score) and ``w`` the network's two outputs for the cell. A zero
correction is expectimax exactly, which is where evolution starts.

The corrections depend on the table only, so they stay the same through a
turn and the turn's plan (made after its first roll) stays valid. The search
is ``expectimax._search_one`` with two changes: the correction after the cell
values are computed, and the plans of a block of games made together, one
game per SIMD lane (``robo_players.neural.lanes``), bit for bit the same.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from expected_scores.turn import STOP
from robo_players.cell_values import column_values
from robo_players.expectimax import (
    _FILL, _LATE, _PURE, CHUNKS_PER_THREAD, LEVELS, ExpectimaxPlayer, _announce_value, _fill_value,
)
from robo_players.heuristics import ONE, decide
from robo_players.neural.features import score_scale
from robo_players.neural.lanes import plan_lanes
from robo_players.neural.player import Forward, network_outputs
from yamb import kernels
from yamb.engine import GameBatch
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS

BLOCK = 64  # games whose plans are made together


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
def _endings(i, il, games, state, consts, tables, plans, work, bits, actions, adjust, queue):
    """``expectimax._search_one`` up to its plan, with cell values corrected by ``adjust[i]``.

    Sets ``actions[i]`` to the best ending now. When the turn needs a plan,
    queues it: its options (and pure-hand options) after each roll in
    ``options[il]`` (and ``pure[il]``), its roll count in ``layers[il]`` and its
    commitment in ``targets[il]``; otherwise ``layers[il]`` is 0.
    """
    filled, cells, dice, roll, rolls_allowed, _, announced, answer, player, turn = state[:10]
    order, n_rows, scores, joker_scores, five_face = consts[0], consts[1], consts[3], consts[4], consts[5]
    keep_size, has_jokers, pure_hand = consts[7], consts[12], consts[15]
    (expected, variance, levels, level_score, params, sign, row_value, reach,
     add_die, remove_die, first_prob, scores_t, levels_t) = tables
    lin, num, ends = work
    queued_options, queued_pure, queued_layers, targets = queue
    queued_layers[il] = 0
    plan_keep, plan_turn_id, plan_target = plans
    n_cols = order.shape[0]
    n_cells = n_cols * n_rows
    n_keeps = len(keep_size)
    n_multisets = levels.shape[0]
    g = games[i]
    p = player[g]
    m = dice[g]
    must, may_roll = decide(state, consts, g, bits, il)
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
            if (bits[il, 0, c] >> np.uint32(r)) & ONE:
                v = _fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params,
                                yamb_cell, levels, lin, num)
                if v > best:
                    best, action = v, c * n_rows + r
            if (bits[il, 1, c] >> np.uint32(r)) & ONE:
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
    options = queued_options[il, :layers]
    pure = queued_pure[il, :layers]
    options[:] = -np.inf
    pure[:] = -np.inf
    options[0, m] = best
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
                into[1, mm] = max(into[1, mm], num[c, r, levels_t[r, mm]])
        else:
            a, b = lin[c, r, 0], lin[c, r, 1]
            for mm in range(n_multisets):
                into[1, mm] = max(into[1, mm], a * scores_t[r, mm] + b)
        if has_jokers:  # a joker scores more, and an extra Yahtzee earns its bonus
            for mm in range(n_multisets):
                if five_face[mm] > 0:
                    v = _fill_value(c, r, mm, filled[g, p, c], scores, joker_scores, five_face,
                                    has_jokers, params, cells[g, p, c, yz_row], levels, lin, num)
                    into[1, mm] = max(into[1, mm], v)
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
                options[1, mm] = max(options[1, mm], v)
    actions[i] = action
    queued_layers[il] = layers
    targets[il] = target


@njit(cache=True)
def _plan_queued(start, stop, games, state, consts, tables, plans, actions, queue):
    """Plan the turns queued by ``_endings`` for ``games[start:stop]``, all of a roll count at once."""
    roll, turn = state[3], state[9]
    n_cells, n_keeps = consts[0].shape[0] * consts[1], len(consts[7])
    dice = state[2]
    add_die, remove_die, first_prob = tables[8], tables[9], tables[10]
    plan_keep, plan_turn_id, plan_target = plans
    queued_options, queued_pure, queued_layers, targets = queue
    n_multisets = queued_options.shape[2]
    for layers in range(2, queued_options.shape[1] + 1):
        lanes = 0
        for il in range(stop - start):
            lanes += queued_layers[il] == layers
        if lanes == 0:
            continue
        options = np.empty((layers, n_multisets, lanes))
        pure = np.empty((layers if queued_pure.shape[1] else 0, n_multisets, lanes))
        index = np.empty(lanes, dtype=np.int64)
        lane = 0
        for il in range(stop - start):
            if queued_layers[il] == layers:
                index[lane] = il
                for t in range(layers):
                    for mm in range(n_multisets):
                        options[t, mm, lane] = queued_options[il, t, mm]
                        if pure.shape[0]:
                            pure[t, mm, lane] = queued_pure[il, t, mm]
                lane += 1
        value = np.empty((layers, n_multisets, lanes))
        keep = np.empty((layers, n_multisets, lanes), dtype=np.int16)
        plan_lanes(options, pure, add_die, remove_die, first_prob, value, keep,
                   np.empty((n_keeps, lanes)), np.empty((n_keeps, lanes)), np.empty((n_keeps, lanes), dtype=np.int32))
        for lane in range(lanes):
            i = start + index[lane]
            g = games[i]
            for t in range(1, layers):
                for mm in range(n_multisets):
                    plan_keep[g, roll[g] + t - 2, mm] = keep[t, mm, lane]
            plan_turn_id[g] = turn[g]
            plan_target[g] = targets[index[lane]]
            k = keep[0, dice[g], lane]
            if k != STOP:
                actions[i] = n_cells + k


@njit(cache=True)
def _guided_range(start, stop, games, state, consts, tables, plans, actions, adjust):
    """Search ``games[start:stop]``, block by block."""
    n_cols, n_rows, pure_hand = consts[0].shape[0], consts[1], consts[15]
    n_multisets, rolls = tables[2].shape[0], plans[0].shape[1] + 1
    work = (np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS)),
            np.empty((n_cols * n_rows, 2), dtype=np.int64))
    bits = np.empty((BLOCK, 2, n_cols), dtype=np.uint32)
    queue = (np.empty((BLOCK, rolls, n_multisets)), np.empty((BLOCK, rolls if pure_hand else 0, n_multisets)),
             np.zeros(BLOCK, dtype=np.int64), np.empty(BLOCK, dtype=np.int64))
    for block in range(start, stop, BLOCK):
        end = min(block + BLOCK, stop)
        for i in range(block, end):
            _endings(i, i - block, games, state, consts, tables, plans, work, bits, actions, adjust, queue)
        _plan_queued(block, end, games, state, consts, tables, plans, actions, queue)


@njit(cache=True, parallel=True)
def _guided(games, state, consts, tables, plan_keep, plan_turn_id, plan_target, actions, adjust, n_chunks):
    """The search of every game, in chunks. (The plan arrays come one by one: a parallel loop
    may lose writes to arrays unpacked from a tuple, see ``yamb.kernels``.)"""
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        plans = (plan_keep, plan_turn_id, plan_target)
        _guided_range(start, stop, games, state, consts, tables, plans, actions, adjust)


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
        out, rows = network_outputs(self.forward, batch, games, self.cell_values, False)
        out = out[rows].astype(np.float64)
        adjust = out.reshape(len(games), 2, lay.n_columns, lay.n_rows)
        adjust[:, 0] *= self.scale
        actions = np.empty(len(games), dtype=np.int64)
        chunks = min(-(-len(games) // BLOCK), CHUNKS_PER_THREAD * get_num_threads())
        _guided(games, batch._state, batch._consts, self.tables, *self._plans_of(batch), actions, adjust, chunks)
        return actions
