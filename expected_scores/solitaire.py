"""Optimal solitaire Yatzy and Yahtzee (one free column): the value of every state, exactly.

A state is met at the start of a turn: ``mask``, the filled rows as a bitmask;
``upper``, the sum of the number rows capped at the bonus threshold (63); and
``y``, for Yahtzee only, 1 when the ``yahtzee`` cell holds 50 (then every further
Yahtzee earns the extra bonus). ``values[mask, upper, y]`` is the expected number
of points still to come under optimal play; points are counted when earned (a
cell's score, the numbers bonus when the capped sum reaches the threshold, the
extra Yahtzee bonus), so the optimal expected final score is ``values[0, 0, 0]``.
States that cannot occur hold NaN.

Solved level by level, from full tables back to the empty one: for each mask
every reachable ``(upper, y)`` is valued at once by scoring every final
multiset (best fill) and running the turn optimizer (``expected_scores.turn``).

Yahtzee's jokers (docs/rules.md): a Yahtzee is a joker when the ``yahtzee`` cell is
filled and its face's number row too; jokers score ``Rules.joker_scores``. With
``joker="forced"`` a Yahtzee, once the ``yahtzee`` cell is filled, goes to its
face's number row if open, else to an open lower row, else to a number row.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from expected_scores.column_levels import level_masks
from expected_scores.lanes import NO_HANDS, plan_lanes
from expected_scores.upper_sum import capped_upper, reachable_upper
from yamb.engine import GameBatch
from yamb.rules import N_NUMBER_ROWS, Rules

UPPER_BITS = (1 << N_NUMBER_ROWS) - 1
NO_ROW = -1


class Params(NamedTuple):
    """The rules' numbers the kernels read."""

    n_rows: int
    yz_row: int  # the ``yahtzee`` row, or ``NO_ROW`` without jokers
    forced: bool  # the forced joker rule
    extra_bonus: int  # of every further Yahtzee
    bonus: int  # the numbers bonus
    threshold: int  # of the numbers bonus


def params_of(rules: Rules) -> Params:
    """The ``Params`` of ``rules``."""
    spec = rules.spec
    yz_row = rules.row_index("yahtzee") if rules.has_jokers else NO_ROW
    return Params(rules.n_rows, yz_row, rules.joker == "forced", spec.extra_yahtzee_bonus, spec.bonus,
                  spec.bonus_threshold)


@njit(cache=True)
def allowed_rows(mask, face, params):
    """Bitmask of the rows that may be filled with dice showing five ``face`` (0: not five alike)."""
    n_rows, yz_row, forced = params.n_rows, params.yz_row, params.forced
    open_rows = ~mask & ((1 << n_rows) - 1)
    if not forced or face == 0 or yz_row < 0 or not (mask >> yz_row) & 1:
        return open_rows
    if open_rows & (1 << (face - 1)):
        return 1 << (face - 1)
    if open_rows & ~UPPER_BITS:
        return open_rows & ~UPPER_BITS
    return open_rows


@njit(cache=True)
def next_state(upper, y, r, score, params):
    """``(gained, next_upper, next_y)`` of writing ``score`` in row ``r``: the numbers bonus it completes
    and the next state's capped numbers sum and Yahtzee flag."""
    yz_row, bonus, threshold = params.yz_row, params.bonus, params.threshold
    next_y = 1 if r == yz_row and score > 0 else y
    next_upper = upper
    gained = 0
    if r < N_NUMBER_ROWS:
        next_upper = min(threshold, upper + score)
        if upper < threshold <= upper + score:
            gained = bonus
    return gained, next_upper, next_y


@njit(cache=True)
def _after(mask, upper, y, r, score, values, params):
    """``score`` in row ``r`` plus the numbers bonus it completes plus the next state's value."""
    gained, next_upper, next_y = next_state(upper, y, r, score, params)
    return score + gained + values[mask | (1 << r), next_upper, next_y]


@njit(cache=True)
def row_score(mask, y, m, r, scores, joker_scores, five_face, params):
    """``(score, extra)``: what multiset ``m`` scores in row ``r`` (a joker's score where it is one) and
    the extra Yahtzee bonus it earns."""
    yz_row, extra_bonus = params.yz_row, params.extra_bonus
    face = five_face[m]
    score = scores[m, r]
    extra = 0
    if yz_row >= 0 and face > 0:
        if (mask >> yz_row) & 1 and (mask >> (face - 1)) & 1:
            score = joker_scores[m, r]
        extra = extra_bonus * y
    return score, extra


@njit(cache=True)
def _fill_value(mask, upper, y, m, r, scores, joker_scores, five_face, values, params):
    """Points earned by filling row ``r`` with multiset ``m`` plus the value of the next state."""
    score, extra = row_score(mask, y, m, r, scores, joker_scores, five_face, params)
    return extra + _after(mask, upper, y, r, score, values, params)


@njit(cache=True)
def _best_fills(mask, upper, y, scores, joker_scores, five_face, values, params, out, b):
    """``out[0, b, m]``: the best fill value of every multiset ``m``.

    Fast path: a number row's value depends only on its count of the face, another
    row's on its score plus a constant; Yahtzees of a joker game take ``_fill_value``.
    """
    n_rows, yz_row = params.n_rows, params.yz_row
    upper_next = np.empty((N_NUMBER_ROWS, 6))
    lower_base = np.empty(n_rows)
    for r in range(n_rows):
        if (mask >> r) & 1:
            continue
        if r < N_NUMBER_ROWS:
            for k in range(6):
                upper_next[r, k] = _after(mask, upper, y, r, k * (r + 1), values, params)
        else:
            lower_base[r] = _after(mask, upper, y, r, 0, values, params)
    for m in range(scores.shape[0]):
        best = -np.inf
        if yz_row >= 0 and five_face[m] > 0:
            allowed = allowed_rows(mask, five_face[m], params)
            for r in range(n_rows):
                if (allowed >> r) & 1:
                    best = max(best, _fill_value(mask, upper, y, m, r, scores, joker_scores, five_face,
                                                 values, params))
        else:
            for r in range(n_rows):
                if (mask >> r) & 1:
                    continue
                if r < N_NUMBER_ROWS:
                    best = max(best, upper_next[r, scores[m, r] // (r + 1)])
                else:
                    best = max(best, scores[m, r] + lower_base[r])
        out[0, b, m] = best


@njit(cache=True, parallel=True)
def _solve_level(masks, values, reachable, scores, joker_scores, five_face, params,
                 add_die, remove_die, first_prob, sub_keeps, rolls):
    """Value every reachable state of each mask in ``masks`` (all of one level); returns the count.

    The states of one mask are planned together, one per SIMD lane (``plan_lanes``,
    bit for bit ``plan_one``).
    """
    n_multisets = scores.shape[0]
    n_keeps = add_die.shape[0]
    n_upper, n_y = values.shape[1], values.shape[2]
    yz_row = params.yz_row
    counts = np.zeros(len(masks), dtype=np.int64)
    no_pure = np.empty((0, 1, 1))
    for i in prange(len(masks)):
        mask = masks[i]
        states = np.empty((n_upper * n_y, 2), dtype=np.int64)
        n = 0
        for y in range(n_y):
            if y == 1 and not (yz_row >= 0 and (mask >> yz_row) & 1):
                continue
            for u in range(n_upper):
                if reachable[mask & UPPER_BITS, u]:
                    states[n, 0] = u
                    states[n, 1] = y
                    n += 1
        fills = np.empty((1, n, n_multisets))
        for b in range(n):
            _best_fills(mask, states[b, 0], states[b, 1], scores, joker_scores, five_face, values,
                        params, fills, b)
        options = np.empty((rolls, n_multisets, n))  # the same options after every roll
        for t in range(rolls):
            for m in range(n_multisets):
                for b in range(n):
                    options[t, m, b] = fills[0, b, m]
        value = np.empty((rolls, n_multisets, n))
        keep = np.empty((rolls, n_multisets, n), dtype=np.int16)
        plan_lanes(options, no_pure, add_die, remove_die, first_prob, value, keep, np.empty((n_keeps, n)),
                   np.empty((n_keeps, n)), np.empty((n_keeps, n), dtype=np.int32), NO_HANDS, sub_keeps)
        for b in range(n):  # the turn's start value, summed as plan_one sums it
            start = 0.0
            for m in range(n_multisets):
                start += first_prob[m] * value[0, m, b]
            values[mask, states[b, 0], states[b, 1]] = start
        counts[i] = n
    return counts.sum()


@dataclass(frozen=True)
class SolitaireSolution:
    """The solved values of a solitaire Yatzy or Yahtzee game, and what an optimal player needs."""

    rules: Rules
    values: np.ndarray  # (2**R, threshold + 1, 1 or 2) float64, NaN where unreachable
    seconds: float
    states: int

    @property
    def expected_score(self) -> float:
        return float(self.values[0, 0, 0])

    def state_of(self, batch: GameBatch, games: np.ndarray,
                 players: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mask, upper, y) of the player to move (or of ``players``) in each of ``games`` (column 0)."""
        p = batch.player[games] if players is None else players
        mask = batch.filled[games, p, 0].astype(np.int64)
        cells = batch.cells[games, p, 0].astype(np.int64)
        upper = capped_upper(self.rules, cells)
        y = np.zeros(len(games), dtype=np.int64)
        if self.rules.has_jokers:
            y = (cells[:, self.rules.row_index("yahtzee")] == 50).astype(np.int64)
        return mask, upper, y

    def value(self, mask: np.ndarray, upper: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Expected points still to come from states at the start of a turn."""
        return self.values[mask, upper, y]

    def fill_values(self, mask: np.ndarray, upper: np.ndarray, y: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """(n, R): points for filling each row with multiset ``dice`` plus the next state's value; -inf if not allowed."""
        out = np.empty((len(mask), self.rules.n_rows))
        _fill_batch(np.asarray(mask, np.int64), np.asarray(upper, np.int64), np.asarray(y, np.int64),
                    np.asarray(dice, np.int64), *self._tables(), out)
        return out

    def turn_options(self, mask: np.ndarray, upper: np.ndarray, y: np.ndarray) -> np.ndarray:
        """(n, M): value of ending the turn with each multiset, the ``options`` of ``plan_turn``."""
        out = np.empty((1, len(mask), self.rules.dice.n_multisets))
        _options_batch(np.asarray(mask, np.int64), np.asarray(upper, np.int64), np.asarray(y, np.int64),
                       *self._tables(), out)
        return out[0]

    def _tables(self) -> tuple:
        r = self.rules
        return r.scores, r.joker_scores, r.five_alike_face, self.values, params_of(r)


@njit(cache=True, parallel=True)
def _fill_batch(mask, upper, y, dice, scores, joker_scores, five_face, values, params, out):
    for i in prange(len(mask)):
        allowed = allowed_rows(mask[i], five_face[dice[i]], params)
        for r in range(params.n_rows):
            out[i, r] = -np.inf
            if (allowed >> r) & 1:
                out[i, r] = _fill_value(mask[i], upper[i], y[i], dice[i], r, scores, joker_scores,
                                        five_face, values, params)


@njit(cache=True, parallel=True)
def _options_batch(mask, upper, y, scores, joker_scores, five_face, values, params, out):
    for i in prange(len(mask)):
        _best_fills(mask[i], upper[i], y[i], scores, joker_scores, five_face, values, params, out, i)


def solve_solitaire(rules: Rules, filled: int = 0) -> SolitaireSolution:
    """Solve a one-free-column game of ``rules`` (Yatzy or Yahtzee) exactly.

    With ``filled`` (a row bitmask) only the states whose filled rows include it are
    solved (an endgame); the others stay NaN.
    """
    start = time.perf_counter()
    n_rows = rules.n_rows
    threshold = rules.spec.bonus_threshold
    values = np.full((1 << n_rows, threshold + 1, 2 if rules.has_jokers else 1), np.nan)
    values[-1] = 0.0
    reachable = reachable_upper(rules)
    dice = rules.dice
    states = 0
    for _, masks in level_masks(n_rows, filled):
        states += _solve_level(masks, values, reachable, rules.scores, rules.joker_scores,
                               rules.five_alike_face, params_of(rules), dice.add_die, dice.remove_die,
                               dice.outcome_prob[0], dice.sub_keeps, rules.rolls)
    return SolitaireSolution(rules=rules, values=values, seconds=time.perf_counter() - start, states=states)
