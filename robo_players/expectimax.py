"""``expectimax``: exact search of the rest of the turn, cells valued by ``cell_values``.

After the first roll of a turn the player plans the rest of it with the turn
optimizer (``expected_scores.turn.plan_one``): after each remaining roll the
turn may end in any cell the rules allow then, worth the cell's value (its
score against the row's expectation, see ``robo_players.cell_values``), and
keeps maximize the expected value of the best ending. Announcing is an ending
too, worth the exact expected value of playing the announced row alone from
the current dice: the row plans of the turn optimizer for collection rows,
and for number rows the probabilities of reaching each count (the plan of a
number row keeps every die of its face, whatever the bonus).

The plan covers every rule of the turn: ``hand`` cells end only the first
roll, ``late_announce`` rows can be announced after the second, jamb6's pure
hands may fill announce cells, and a Yahtzee's joker score and extra bonus
count. The plan is made once per turn, after its first roll (and again after an
announcement), and kept for the later rolls; a game met without a plan for
its current turn is planned from where it stands, so the player can take
over a game at any point (Monte Carlo rollouts do).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import get_num_threads, njit, prange

from expected_scores.turn import STOP, plan_one, plan_turn
from robo_players.cell_values import cell_model, column_values
from robo_players.heuristics import ONE, decide, fill_score
from robo_players.row_plans import row_plans
from yamb import kernels
from yamb.engine import PARALLEL_GAMES, GameBatch
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

CHUNKS_PER_THREAD = 8
LEVELS = 6  # scores a number row can take: 0 to 5 dice of its face
_FILL, _LATE, _PURE = 0, 1, 2  # how a turn may end after a later roll


@dataclass(frozen=True, eq=False)
class SearchTables:
    """Everything the search kernel reads besides the engine's state and constants."""

    model: tuple  # expected, variance, levels, level_score, params (see ``CellModel``)
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
        model=(model.expected, model.variance, model.levels, model.level_score, model.params),
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
        s = fill_score(scores, joker_scores, five_face, has_jokers, params[6], own, m, r)
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


@njit(cache=True)
def _workspace(n_cols, n_rows, n_levels, rolls, n_multisets, n_keeps, pure_hand):
    """Work arrays of one thread: cell values, endings, and the turn optimizer's arrays."""
    return (
        np.zeros((n_cols, n_rows, 2)),
        np.zeros((n_cols, N_NUMBER_ROWS, n_levels)),
        np.empty((n_cols * n_rows, 2), dtype=np.int64),
        np.empty((rolls, 1, n_multisets)),
        np.empty((rolls if pure_hand else 0, 1, n_multisets)),
        np.empty((rolls, 1, n_multisets)),
        np.empty((rolls, 1, n_multisets), dtype=np.int16),
        np.empty(n_keeps),
        np.empty(n_keeps),
        np.empty(n_keeps, dtype=np.int32),
    )


@njit(cache=True, inline="always")
def _search_one(i, games, state, consts, tables, plan_keep, plan_turn_id, plan_target, work, bits,
                actions):
    """Choose the action of ``games[i]``: the best ending now or the plan's keep.

    Each game's plan for its later rolls: ``plan_keep`` (keeps or ``STOP`` by roll
    and hand), valid for turn ``plan_turn_id`` and commitment ``plan_target``.
    (Arrays a parallel loop writes are passed one by one: numba may lose writes
    to arrays unpacked from a tuple, see ``yamb.kernels``.)
    """
    filled, cells, dice, roll, rolls_allowed, _, announced, answer, player, turn = state[:10]
    order, n_rows, scores, joker_scores, five_face = consts[0], consts[1], consts[3], consts[4], consts[5]
    keep_size, has_jokers, pure_hand = consts[7], consts[12], consts[15]
    (expected, variance, levels, level_score, params, sign, row_value, reach,
     add_die, remove_die, first_prob, scores_t, levels_t) = tables
    lin, num, ends, all_options, all_pure, all_value, all_keep, kv, best_keep, arg = work
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
def _search_range(start, stop, games, state, consts, tables, plan_keep, plan_turn_id, plan_target, bits,
                  actions):
    """Search ``games[start:stop]`` with one workspace."""
    n_rows, n_keeps, pure_hand = consts[1], len(consts[7]), consts[15]
    levels, level_score = tables[2], tables[3]
    work = _workspace(consts[0].shape[0], n_rows, level_score.shape[1], plan_keep.shape[1] + 1,
                      levels.shape[0], n_keeps, pure_hand)
    for i in range(start, stop):
        _search_one(i, games, state, consts, tables, plan_keep, plan_turn_id, plan_target, work, bits,
                    actions)


@njit(cache=True)
def _search(games, state, consts, tables, plan_keep, plan_turn_id, plan_target, actions):
    bits = np.empty((len(games), 2, consts[0].shape[0]), dtype=np.uint32)
    _search_range(0, len(games), games, state, consts, tables, plan_keep, plan_turn_id, plan_target, bits,
                  actions)


@njit(cache=True, parallel=True)
def _search_parallel(games, state, consts, tables, plan_keep, plan_turn_id, plan_target, actions, n_chunks):
    bits = np.empty((len(games), 2, consts[0].shape[0]), dtype=np.uint32)
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        _search_range(start, stop, games, state, consts, tables, plan_keep, plan_turn_id, plan_target,
                      bits, actions)


class ExpectimaxPlayer:
    """Exact turn search over cell values (score minus the row's expectation, bonus and difference aware)."""

    name = "expectimax"

    def __init__(self, layout: Layout) -> None:
        self.tables = search_tables(layout.rules, layout.columns).as_tuple()
        self._plans: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()

    def _plans_of(self, batch: GameBatch) -> tuple:
        """The plans of ``batch``'s games (none made yet for a new batch)."""
        if batch not in self._plans:
            rules = batch.rules
            later = max(rules.rolls, rules.spec.last_turn_rolls) - 1
            self._plans[batch] = (
                np.empty((batch.n_games, later, rules.dice.n_multisets), dtype=np.int16),
                np.full(batch.n_games, -1, dtype=np.int32),
                np.full(batch.n_games, -1, dtype=np.int32),
            )
        return self._plans[batch]

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        actions = np.empty(len(games), dtype=np.int64)
        args = (games, batch._state, batch._consts, self.tables, *self._plans_of(batch), actions)
        if len(games) >= PARALLEL_GAMES:
            _search_parallel(*args, min(len(games), CHUNKS_PER_THREAD * get_num_threads()))
        else:
            _search(*args)
        return actions
