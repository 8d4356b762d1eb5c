"""``expectimax``: exact search of the rest of the turn, cells valued by ``cell_values``.

After the first roll of a turn the player plans the rest of it with the turn
optimizer's recursion (``expected_scores.turn.plan_one``, run for up to 64
turns at once, one per SIMD lane: ``expected_scores.lanes``, bit for bit
the same plans): after each remaining roll the turn may end in any cell the
rules allow then, worth the cell's value (its score against the row's
expectation, see ``robo_players.cell_values``), and keeps maximize the
expected value of the best ending. Announcing is an ending too, worth the
exact expected value of playing the announced row alone from the current
dice: the row plans of the turn optimizer for collection rows, and for number
rows the probabilities of reaching each count (the plan of a number row keeps
every die of its face, whatever the bonus).

The plan covers every rule of the turn: ``hand`` cells end only the first
roll, ``late_announce`` rows can be announced after the second, jamb6's pure
hands may fill announce cells, and a Yahtzee's joker score and extra bonus
count. The plan is made once per turn, after its first roll (and again after an
announcement), and kept for the later rolls; a game met without a plan for
its current turn is planned from where it stands, so the player can take
over a game at any point (Monte Carlo rollouts do).

The search takes a correction of the cell values, ``(1 + w) * value + d`` per
cell: the search-guided player (``robo_players.neural.guided``) is this search
with corrections from a network; expectimax passes none.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from numba import get_num_threads, njit, prange

from expected_scores.turn import STOP, plan_turn
from robo_players.cell_values import LEVELS, NORMAL_BONUS, cell_model, column_values
from robo_players.heuristics import ONE
from expected_scores.lanes import plan_lanes
from robo_players.row_plans import row_plans
from yamb import kernels
from yamb.engine import GameBatch, threads_for
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

CHUNKS_PER_THREAD = 8
BLOCK = 64  # games whose plans are made together
NO_CORRECTION = (np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64), 1.0)  # plain expectimax
NO_AFTER = np.zeros((0, 0, 0, 0))  # ``_correct``'s fourth part: nothing added after the correction
_FILL, _LATE, _PURE = 0, 1, 2  # how a turn may end after a later roll


@dataclass(frozen=True, eq=False)
class SearchTables:
    """Everything the search kernel reads besides the engine's state and constants."""

    model: tuple  # expected, variance, bonus levels (or NORMAL_BONUS), levels, level_score, params (``CellModel``)
    sign: np.ndarray  # (R,) +1, or -1 for rows aimed low
    row_value: np.ndarray  # (L, M, R) signed value of a row played alone with L rolls left
    reach: np.ndarray  # (L, M, 6, 5) probability that a number row ends at level >= k + 1
    dice: tuple  # add_die, remove_die, first_prob
    by_row: tuple  # scores (R, M) float64 and levels (R, M): the tables row by row

    def as_tuple(self) -> tuple:
        return (*self.model, self.sign, self.row_value, self.reach, *self.dice, *self.by_row)


def _reach_tables(rules: Rules, levels: np.ndarray) -> np.ndarray:
    """(L, M, 6, 5): P(number row r ends at level >= k + 1 | hand m, L rolls left), playing for it."""
    rolls = max(rules.rolls, rules.spec.last_turn_rolls)
    top = LEVELS - 1
    goals = np.array([[levels[:, r] >= k for k in range(1, top + 1)] for r in range(N_NUMBER_ROWS)])
    plan = plan_turn(goals.reshape(-1, levels.shape[0]).astype(np.float64), rules.dice, rolls)
    by_left = plan.value[::-1]  # (L, 6 * 5, M)
    return np.ascontiguousarray(by_left.reshape(rolls, N_NUMBER_ROWS, top, -1).transpose(0, 3, 1, 2))


@cache
def search_tables(rules: Rules, columns: tuple[str, ...]) -> SearchTables:
    model = cell_model(rules, columns)
    plans = row_plans(rules)
    dice = rules.dice
    return SearchTables(
        model=(model.expected, model.variance, NORMAL_BONUS, model.levels, model.level_score, model.params),
        sign=plans.sign,
        row_value=plans.value,
        reach=_reach_tables(rules, model.levels),
        dice=(dice.add_die, dice.remove_die, dice.outcome_prob[0]),
        by_row=(np.ascontiguousarray(rules.scores.T, dtype=np.float64), np.ascontiguousarray(model.levels.T)),
    )


@njit(cache=True, inline="always")
def _fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params, yamb_cell,
                levels, lin, num):
    """Value of filling row ``r`` of column ``c`` (filled rows ``own``) with hand ``m``."""
    if r < N_NUMBER_ROWS:
        v = num[c, r, levels[m, r]]
    else:
        v = lin[c, r, 0] * scores[m, r] + lin[c, r, 1]
    if has_jokers and five_face[m] > 0:  # a joker's score, the extra Yahtzee bonus
        s = kernels.fill_score(scores, joker_scores, five_face, has_jokers, params[6], own, m, r)
        v += lin[c, r, 0] * (s - scores[m, r])
        if yamb_cell == params[7]:
            v += params[8]
    return v


@njit(cache=True, inline="always")
def _announce_value(c, r, m, left, sign, row_value, reach, lin, num):
    """Expected value of announcing row ``r`` of column ``c`` holding ``m`` with ``left`` rolls left."""
    if r < N_NUMBER_ROWS:
        v = num[c, r, 0]
        for k in range(reach.shape[3]):
            v += reach[left, m, r, k] * (num[c, r, k + 1] - num[c, r, k])
        return v
    return lin[c, r, 0] * sign[r] * row_value[left, m, r] + lin[c, r, 1]


@njit(cache=True, inline="always")
def _correct(adjust, i, c, own, lin, num):
    """Open cells of column ``c`` valued ``(1 + w) * value + d``.

    ``adjust`` is (outputs, rows, scale): ``outputs[rows[i]]`` holds, for cell
    ``c * R + r`` of the ``CR`` cells, ``d / scale`` at that index and ``w`` at ``CR`` plus it
    (float32 network outputs are taken to float64 here).

    The search-guided player's correction (``robo_players.neural.guided``). A fourth part
    ``after`` (n, C, R, LEVELS), unless empty, is added to the corrected values, by row
    ``rows[i]``: to each level of a number row, and to a later row's intercept (``[.., 0]``)
    and slope (``[.., 1]``) (the look-ahead's next-turn values, ``robo_players.lookahead``).
    """
    outputs, rows, scale, after = adjust
    row = rows[i]
    n_rows = lin.shape[1]
    n_cells = lin.shape[0] * n_rows
    for r in range(n_rows):
        if (own >> np.uint32(r)) & ONE:
            continue
        d = outputs[row, c * n_rows + r] * scale
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


@njit(cache=True)
def _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, work):
    """Plan the ``n_queued`` turns queued by ``_search_range``, all of a roll count at once.

    Only the hand held is planned at the current roll (so only its option after
    the current roll is copied in). ``work[3:]``: flat buffers for the lanes
    (reshaped to each roll count), allocated once per chunk. The copies into and
    out of the lanes run with the lane innermost: whole cache lines of the lanes
    are written and read, the queue's rows stay in the cache.
    """
    roll, turn = state[3], state[9]
    n_cells, n_keeps = consts[0].shape[0] * consts[1], len(consts[7])
    sub_keeps = consts[18]
    dice = state[2]
    add_die, remove_die, first_prob = tables[9], tables[10], tables[11]
    plan_keep, plan_turn_id, plan_target = plans[:3]
    queued_options, queued_pure, queued_layers, targets, queued = queue
    lane_options, lane_pure, lane_value, lane_keep, kv, best, arg, hands, index, start = work[3:]
    n_multisets = queued_options.shape[2]
    later = plan_keep.shape[1]
    flat_keep = plan_keep.reshape(-1)
    for layers in range(2, queued_options.shape[1] + 1):
        lanes = 0
        for q in range(n_queued):
            if queued_layers[q] == layers:
                index[lanes] = q
                lanes += 1
        if lanes == 0:
            continue
        with_pure = queued_pure.shape[1] > 0
        size = layers * n_multisets * lanes
        options = lane_options[:size].reshape((layers, n_multisets, lanes))
        pure = lane_pure[:size if with_pure else 0].reshape((layers if with_pure else 0, n_multisets, lanes))
        for lane in range(lanes):
            q = index[lane]
            g = games[queued[q]]
            m = dice[g]
            hands[lane] = m
            start[lane] = (g * later + roll[g] - 1) * n_multisets  # where plan_keep[g, roll[g] - 1] starts
            options[0, m, lane] = queued_options[q, 0, m]
            if with_pure:
                pure[0, m, lane] = queued_pure[q, 0, m]
        for t in range(1, layers):
            for mm in range(n_multisets):
                for lane in range(lanes):
                    options[t, mm, lane] = queued_options[index[lane], t, mm]
                if with_pure:
                    for lane in range(lanes):
                        pure[t, mm, lane] = queued_pure[index[lane], t, mm]
        value = lane_value[:size].reshape((layers, n_multisets, lanes))
        keep = lane_keep[:size].reshape((layers, n_multisets, lanes))
        plan_lanes(options, pure, add_die, remove_die, first_prob, value, keep,
                   kv[: n_keeps * lanes].reshape((n_keeps, lanes)), best[: n_keeps * lanes].reshape((n_keeps, lanes)),
                   arg[: n_keeps * lanes].reshape((n_keeps, lanes)), hands[:lanes], sub_keeps)
        for t in range(1, layers):  # plan_keep[g, roll[g] + t - 2] = keep[t]
            for mm in range(n_multisets):
                for lane in range(lanes):
                    flat_keep[start[lane] + (t - 1) * n_multisets + mm] = keep[t, mm, lane]
        for lane in range(lanes):
            i = queued[index[lane]]
            g = games[i]
            plan_turn_id[g] = turn[g]
            plan_target[g] = targets[index[lane]]
            k = keep[0, hands[lane], lane]
            if k != STOP:
                actions[i] = n_cells + k


@njit(cache=True)
def _search_range(start, stop, games, state, consts, tables, plans, actions, adjust):
    """Search ``games[start:stop]``: the action of each game (the best ending now or the plan's
    keep), its turn queued when it needs a plan, the queued plans made ``BLOCK`` at a time.

    Cell values are corrected by ``adjust`` (none when its outputs are empty; see ``_correct``).
    A turn to plan goes to queue slot ``q``: its options (and pure-hand options)
    after each roll in ``queued_options[q]`` (and ``queued_pure[q]``), its roll count in
    ``queued_layers[q]`` and its commitment in ``targets[q]``. The tuples are unpacked
    once here, not per game: every array taken out of a tuple costs reference counts.
    """
    filled, cells, dice, roll, rolls_allowed, pure_roll, announced, answer, player, turn = state[:10]
    order, n_rows, scores, joker_scores, five_face = consts[0], consts[1], consts[3], consts[4], consts[5]
    keep_size, forced, yz_index, has_jokers, pure_hand = consts[7], consts[13], consts[14], consts[12], consts[15]
    (expected, variance, bonus_levels, levels, level_score, params, sign, row_value, reach,
     _, _, _, scores_t, levels_t) = tables
    plan_keep, plan_turn_id, plan_target, column_key, column_lin, column_num = plans
    n_cols = order.shape[0]
    n_cells = n_cols * n_rows
    n_keeps = len(keep_size)
    n_multisets = levels.shape[0]
    rolls = plan_keep.shape[1] + 1
    lane_size = rolls * n_multisets * BLOCK
    lin = np.zeros((n_cols, n_rows, 2))
    num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    ends = np.empty((n_cols * n_rows, 2), dtype=np.int64)
    work = (lin, num, ends,
            np.empty(lane_size), np.empty(lane_size if pure_hand else 0), np.empty(lane_size),
            np.empty(lane_size, dtype=np.int16), np.empty(n_keeps * BLOCK), np.empty(n_keeps * BLOCK),
            np.empty(n_keeps * BLOCK, dtype=np.int32), np.empty(BLOCK, dtype=np.int64),
            np.empty(BLOCK, dtype=np.int64), np.empty(BLOCK, dtype=np.int64))
    bits = np.empty((BLOCK, 2, n_cols), dtype=np.uint32)
    queued_options = np.empty((BLOCK, rolls, n_multisets))
    queued_pure = np.empty((BLOCK, rolls if pure_hand else 0, n_multisets))
    queued_layers = np.zeros(BLOCK, dtype=np.int64)
    targets = np.empty(BLOCK, dtype=np.int64)
    queued = np.empty(BLOCK, dtype=np.int64)
    queue = (queued_options, queued_pure, queued_layers, targets, queued)
    corrected = adjust[0].shape[0] > 0
    yz_row = params[6]
    full = (1 << n_rows) - 1
    n_queued = 0
    for i in range(start, stop):
        q = n_queued
        g = games[i]
        p = player[g]
        m = dice[g]
        must, may_roll = kernels.decision(
            filled, g, p, order, bits, q, roll[g], rolls_allowed[g], announced[g], answer[g], pure_roll[g],
            five_face[m], n_rows, pure_hand, forced, yz_index)
        target = announced[g] if announced[g] >= 0 else answer[g]
        planned = roll[g] > 1 and plan_turn_id[g] == turn[g] and plan_target[g] == target
        if planned and may_roll and not must and plan_keep[g, roll[g] - 2, m] != STOP:
            actions[i] = n_cells + plan_keep[g, roll[g] - 2, m]
            continue
        for c in range(n_cols):
            own = filled[g, p, c]
            if own != full:
                if column_key[g, p, c] != own:  # a column's values change only when one of its cells is filled
                    column_values(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params,
                                  column_lin[g, p], column_num[g, p])
                    column_key[g, p, c] = own
                for r in range(n_rows):
                    lin[c, r, 0] = column_lin[g, p, c, r, 0]
                    lin[c, r, 1] = column_lin[g, p, c, r, 1]
                for r in range(N_NUMBER_ROWS):
                    for k in range(LEVELS):
                        num[c, r, k] = column_num[g, p, c, r, k]
                if corrected:
                    _correct(adjust, i, c, own, lin, num)
        left = rolls_allowed[g] - roll[g]
        # the best ending after this roll
        best = -np.inf
        action = -1
        for c in range(n_cols):
            own = filled[g, p, c]
            yamb_cell = cells[g, p, c, yz_row] if has_jokers else 0
            for r in range(n_rows):
                if (bits[q, 0, c] >> np.uint32(r)) & ONE:
                    v = _fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params,
                                    yamb_cell, levels, lin, num)
                    if v > best:
                        best, action = v, c * n_rows + r
                if (bits[q, 1, c] >> np.uint32(r)) & ONE:
                    v = _announce_value(c, r, m, left, sign, row_value, reach, lin, num)
                    if v > best:
                        best, action = v, n_cells + n_keeps + c * n_rows + r
        actions[i] = action
        if must or not may_roll or planned:  # the plan, if any, says stop
            continue
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
        for t in range(layers):
            for mm in range(n_multisets):
                queued_options[q, t, mm] = -np.inf
            if pure_hand:
                for mm in range(n_multisets):
                    queued_pure[q, t, mm] = -np.inf
        queued_options[q, 0, m] = best
        # fills after the next roll, one end at a time (contiguous rows of the tables)
        for e in range(n_ends):
            c = ends[e, 0] // n_rows
            r = ends[e, 0] % n_rows
            if ends[e, 1] == _LATE:
                continue
            into = queued_options if ends[e, 1] == _FILL else queued_pure
            if r < N_NUMBER_ROWS:
                for mm in range(n_multisets):
                    into[q, 1, mm] = max(into[q, 1, mm], num[c, r, levels_t[r, mm]])
            else:
                a, b = lin[c, r, 0], lin[c, r, 1]
                for mm in range(n_multisets):
                    into[q, 1, mm] = max(into[q, 1, mm], a * scores_t[r, mm] + b)
            if has_jokers:  # a joker scores more, and an extra Yahtzee earns its bonus
                for mm in range(n_multisets):
                    if five_face[mm] > 0:
                        v = _fill_value(c, r, mm, filled[g, p, c], scores, joker_scores, five_face,
                                        has_jokers, params, cells[g, p, c, yz_row], levels, lin, num)
                        into[q, 1, mm] = max(into[q, 1, mm], v)
        for t in range(2, layers):
            for mm in range(n_multisets):
                queued_options[q, t, mm] = queued_options[q, 1, mm]
            if pure_hand:
                for mm in range(n_multisets):
                    queued_pure[q, t, mm] = queued_pure[q, 1, mm]
        for e in range(n_ends):  # announcing a late_announce row after roll 2
            if ends[e, 1] == _LATE:
                c = ends[e, 0] // n_rows
                r = ends[e, 0] % n_rows
                for mm in range(n_multisets):
                    v = _announce_value(c, r, mm, left - 1, sign, row_value, reach, lin, num)
                    queued_options[q, 1, mm] = max(queued_options[q, 1, mm], v)
        queued_layers[q] = layers
        targets[q] = target
        queued[q] = i
        n_queued += 1
        if n_queued == BLOCK:
            _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, work)
            n_queued = 0
    _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, work)


@njit(cache=True, parallel=True)
def _search(games, state, consts, tables, plan_keep, plan_turn_id, plan_target, column_key, column_lin,
            column_num, actions, adjust, n_chunks):
    """The search of every game, in chunks.

    Each game's plan for its later rolls: ``plan_keep`` (keeps or ``STOP`` by roll
    and hand), valid for turn ``plan_turn_id`` and commitment ``plan_target``.
    The uncorrected cell values of each column of each player (``column_lin``,
    ``column_num``, as ``column_values`` writes them), valid while its filled rows
    are ``column_key``. (These arrays come one by one: a parallel loop may lose
    writes to arrays unpacked from a tuple, see ``yamb.kernels``.)
    """
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        plans = (plan_keep, plan_turn_id, plan_target, column_key, column_lin, column_num)
        _search_range(start, stop, games, state, consts, tables, plans, actions, adjust)


def with_after(adjust: tuple) -> tuple:
    """``adjust`` with its fourth part (``NO_AFTER`` when it has three)."""
    return adjust if len(adjust) == 4 else (*adjust, NO_AFTER)


def _checked(name: str, array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` as contiguous float64, if it has ``shape``."""
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, not {shape}")
    return array


class ExpectimaxPlayer:
    """Exact turn search over cell values (score minus the row's expectation, bonus and difference aware)."""

    name = "expectimax"

    def __init__(self, layout: Layout, expected: np.ndarray | None = None,
                 bonus_levels: np.ndarray | None = None) -> None:
        """``expected``: (C, R) row expectations to value cells against, instead of one turn's;
        ``bonus_levels``: (C, 6, 6) each number row's chances of each level, from which the
        chance of the numbers bonus is computed exactly, instead of a normal approximation
        (``robo_players.row_means``)."""
        tables = search_tables(layout.rules, layout.columns)
        model = list(tables.model)
        if expected is not None:
            model[0] = _checked("expected", expected, model[0].shape)
        if bonus_levels is not None:
            model[2] = _checked("bonus_levels", bonus_levels, (len(layout.columns), N_NUMBER_ROWS, LEVELS))
        tables = replace(tables, model=tuple(model))
        self.tables = tables.as_tuple()
        self._plans: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()

    def _plans_of(self, batch: GameBatch) -> tuple:
        """The plans and column values of ``batch``'s games (none made yet for a new batch)."""
        if batch not in self._plans:
            rules = batch.rules
            later = max(rules.rolls, rules.spec.last_turn_rolls) - 1
            columns = (batch.n_games, batch.layout.players, batch.layout.n_columns)
            self._plans[batch] = (
                np.empty((batch.n_games, later, rules.dice.n_multisets), dtype=np.int16),
                np.full(batch.n_games, -1, dtype=np.int32),
                np.full(batch.n_games, -1, dtype=np.int32),
                np.full(columns, -1, dtype=np.int64),
                np.zeros((*columns, rules.n_rows, 2)),  # zeros: the number rows' lin stays 0, as jokers read it
                np.zeros((*columns, N_NUMBER_ROWS, LEVELS)),
            )
        return self._plans[batch]

    def search(self, batch: GameBatch, games: np.ndarray, adjust: tuple = NO_CORRECTION) -> np.ndarray:
        """The actions of ``games`` (int64), cell values corrected by ``adjust``: (n, 2 CR)
        ``[d / scale | w]`` per cell (float32 network outputs, or float64), the row of each game's
        corrections (int64), and ``scale`` (see ``_correct``); none by default. On all numba threads."""
        actions = np.empty(len(games), dtype=np.int64)
        adjust = with_after(adjust)
        chunks = min(-(-len(games) // BLOCK), CHUNKS_PER_THREAD * get_num_threads())
        _search(games, batch.state, batch.constants, self.tables, *self._plans_of(batch), actions, adjust, chunks)
        return actions

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        with threads_for(len(games)):
            return self.search(batch, np.asarray(games, dtype=np.int64), NO_CORRECTION)
