"""What a cell is worth to a search player: its score against what the row is expected to bring.

A column's final total is estimated from its cells, the filled ones at their
score and the open ones at the row's expected score from the shipped tables
(``expected_scores.tables.load_table``: one optimal turn for the row, one roll
for a ``hand`` column). Filling a cell with score ``s`` changes the estimate by

- ``s - E[r]`` times the row's weight in the total: 1 for number and
  collection rows, and for ``max``/``min`` their weight in the difference
  ``ones x (max - min)`` (``+ones``/``-ones``, estimated); ``ones`` also
  scales the estimated spread;
- for a number row, the numbers bonus times the change in the probability of
  reaching the threshold, the open number rows' sum taken as normal with the
  tables' means and variances; or, given ``bonus_levels`` (each open number
  row's distribution over its levels), the exact distribution of that sum
  (``exact_reach``).

That change is the cell's value: the opportunity cost of using the cell now.
With one open cell left the value is exact, which the tests check against
``Rules.column_totals``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from expected_scores.tables import load_distribution, load_table
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

NO_DIFFERENCE, PLAIN, CLAMPED = 0, 1, 2
ONE = np.uint32(1)
LEVELS = 6  # scores a number row can take: 0 to 5 dice of its face
BONUS_MODELS = ("normal", "exact")  # how the chance of the numbers bonus is reckoned
NORMAL_BONUS = np.zeros((0, N_NUMBER_ROWS, LEVELS))  # ``bonus_levels`` of the normal approximation
# what each of ``CellModel.params`` holds
THRESHOLD, BONUS, DIFFERENCE, ONES, HIGH, LOW, YZ_ROW, YZ_SCORE, EXTRA_BONUS = range(9)


@dataclass(frozen=True, eq=False)
class CellModel:
    """Per-table constants of the value model (``C`` columns, ``R`` rows).

    ``levels[m, r]``: rank of hand m's score among the scores row r can take
    (number rows: how many dice count, 0..5); ``level_score[r, k]``: the score
    of level k. ``params`` (indices ``THRESHOLD`` to ``EXTRA_BONUS``): bonus threshold,
    bonus, difference kind, rows of ones, max and min (-1 without a difference), Yahtzee
    row (-1 without), the Yahtzee row's full score and the extra-Yahtzee bonus.
    """

    expected: np.ndarray  # (C, R) float64
    variance: np.ndarray  # (C, R) float64
    level_prob: np.ndarray  # (C, 6, 6) float64: probability of each level of each number row
    levels: np.ndarray  # (M, R) int64
    level_score: np.ndarray  # (R, 6) float64
    params: np.ndarray  # (9,) int64


def _row_stats(rules: Rules, policy: str, level_score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Expected score and variance of each row under ``policy`` (``turn`` or ``roll``), and the
    probability of each level of each number row."""
    means = load_table(rules.name, rules.n_dice, policy).to_numpy()
    variances = np.zeros(rules.n_rows)
    level_prob = np.zeros((N_NUMBER_ROWS, LEVELS))
    for r in range(N_NUMBER_ROWS):
        dist = load_distribution(rules.rows[r], rules.name, rules.n_dice, policy)
        scores = dist.index.to_numpy(dtype=np.float64)
        variances[r] = float((dist.to_numpy() * scores**2).sum()) - means[r] ** 2
        np.add.at(level_prob[r], np.searchsorted(level_score[r], scores), dist.to_numpy())
    return means, variances, level_prob


@cache
def cell_model(rules: Rules, columns: tuple[str, ...]) -> CellModel:
    """The model of a table, computed once per process."""
    levels = np.zeros((rules.dice.n_multisets, rules.n_rows), dtype=np.int64)
    level_score = np.zeros((rules.n_rows, LEVELS))
    for r in range(N_NUMBER_ROWS):
        values = np.unique(rules.scores[:, r])
        levels[:, r] = np.searchsorted(values, rules.scores[:, r])
        level_score[r, : len(values)] = values
    stats = {policy: _row_stats(rules, policy, level_score) for policy in ("turn", "roll")}
    policy = ["roll" if kind == "hand" else "turn" for kind in columns]
    spec = rules.spec
    names = list(rules.rows)
    has_difference = spec.difference is not None
    yz_row = rules.row_index("yahtzee") if rules.has_jokers else -1
    params = np.array([
        spec.bonus_threshold, spec.bonus,
        {None: NO_DIFFERENCE, "plain": PLAIN, "clamped": CLAMPED}[spec.difference],
        0 if has_difference else -1,
        names.index("max") if has_difference else -1,
        names.index("min") if has_difference else -1,
        yz_row,
        int(rules.scores[:, yz_row].max()) if yz_row >= 0 else 0,
        spec.extra_yahtzee_bonus,
    ], dtype=np.int64)
    return CellModel(
        expected=np.array([stats[p][0] for p in policy]),
        variance=np.array([stats[p][1] for p in policy]),
        level_prob=np.array([stats[p][2] for p in policy]),
        levels=levels,
        level_score=level_score,
        params=params,
    )


def expected_cell_scores(layout: Layout) -> np.ndarray:
    """Each cell's expected score ``(C, R)`` on ``layout``'s table, as the neural players measure
    gains: the ``row_scores`` of ``Yamb-v0`` (``gymnasium.make("Yamb-v0", row_scores=expected_cell_scores)``)."""
    return cell_model(layout.rules, layout.columns).expected


@njit(cache=True)
def _reach(mean, variance, threshold):
    """Probability that a sum with this mean and variance (normal, integer-valued) reaches ``threshold``."""
    if variance <= 1e-9:
        return 1.0 if mean >= threshold - 1e-9 else 0.0
    z = (mean - threshold + 0.5) / math.sqrt(variance)
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@njit(cache=True)
def exact_reach(prob, level_score, own, need, after):
    """P(the open number rows (not in ``own``) add up to ``need`` or more), each row ``r`` at level
    ``k`` with probability ``prob[r, k]``; and in ``after[r, k]`` the same once open row ``r``
    scored level ``k``.

    Sums are counted up to ``need`` (index ``need`` holds "need or more"): the
    rows before each open row (``head``) and after it (``tail``, as "at least"
    probabilities) are convolved once, and each row's chances combine the two.
    """
    rows = np.array([r for r in range(N_NUMBER_ROWS) if not (own >> np.uint32(r)) & ONE], dtype=np.int64)
    n = len(rows)
    head = np.zeros((n + 1, need + 1))
    head[0, 0] = 1.0
    tail = np.zeros((n + 1, need + 1))
    tail[n, 0] = 1.0
    for i in range(n):
        r, j = rows[i], rows[n - 1 - i]
        for a in range(need + 1):
            for k in range(prob.shape[1]):
                head[i + 1, min(a + int(level_score[r, k]), need)] += head[i, a] * prob[r, k]
                tail[n - 1 - i, min(a + int(level_score[j, k]), need)] += tail[n - i, a] * prob[j, k]
    for i in range(n + 1):  # tail[i, b]: P(rows i.. add up to b or more)
        for b in range(need - 1, -1, -1):
            tail[i, b] += tail[i, b + 1]
    for i in range(n):
        r = rows[i]
        for k in range(prob.shape[1]):
            gap = need - int(level_score[r, k])
            chance = 0.0
            for a in range(need + 1):
                chance += head[i, a] * (1.0 if a >= gap else tail[i + 1, gap - a])
            after[r, k] = chance
    return tail[0, need]


@njit(cache=True, inline="always")
def _column_terms(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params, after):
    """What column ``c``'s estimate is made of: the filled number rows' sum, the open ones' mean
    and variance, the chance of the numbers bonus now (``after`` filled as ``exact_reach`` does,
    when exact), and the difference's ``ones`` and spread (estimated where open) and weight."""
    threshold, difference = params[THRESHOLD], params[DIFFERENCE]
    ones, hi, lo = params[ONES], params[HIGH], params[LOW]
    own = filled[g, p, c]
    fixed = 0.0
    mean = 0.0
    var = 0.0
    for r in range(N_NUMBER_ROWS):
        if (own >> np.uint32(r)) & ONE:
            fixed += cells[g, p, c, r]
        else:
            mean += expected[c, r]
            var += variance[c, r]
    need = max(int(threshold - fixed), 0)
    if bonus_levels.shape[0] > 0:
        before = exact_reach(bonus_levels[c], level_score, own, need, after) if need > 0 else 1.0
    else:
        before = _reach(fixed + mean, var, threshold)
    ones_e = 0.0
    spread = 0.0
    if difference != NO_DIFFERENCE:
        ones_e = cells[g, p, c, ones] if (own >> np.uint32(ones)) & ONE else expected[c, ones]
        high = cells[g, p, c, hi] if (own >> np.uint32(hi)) & ONE else expected[c, hi]
        low = cells[g, p, c, lo] if (own >> np.uint32(lo)) & ONE else expected[c, lo]
        spread = high - low
        if difference == CLAMPED:
            spread = max(spread, 0.0)
    weight = ones_e if difference == PLAIN or spread > 0 else 0.0
    return fixed, mean, var, before, ones_e, spread, weight


@njit(cache=True)
def column_values(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params, lin, num):
    """Write the values of column ``c``'s open cells for player ``p`` of game ``g``.

    Collection, ``max`` and ``min`` rows: ``lin[c, r, 0] * s + lin[c, r, 1]``;
    number rows: ``num[c, r, k]`` for a score of level ``k``. The chance of the
    bonus is exact from ``bonus_levels[c]`` (C, 6, LEVELS) unless that is empty
    (``NORMAL_BONUS``): then the open rows' sum is taken as normal.
    """
    threshold, bonus = params[THRESHOLD], params[BONUS]
    ones, hi, lo = params[ONES], params[HIGH], params[LOW]
    n_rows = expected.shape[1]
    own = filled[g, p, c]
    exact = bonus_levels.shape[0] > 0
    after = np.ones((N_NUMBER_ROWS if exact else 0, LEVELS))
    fixed, mean, var, before, _, spread, weight = _column_terms(filled, cells, g, p, c, expected, variance,
                                                                bonus_levels, level_score, params, after)
    for r in range(n_rows):
        if (own >> np.uint32(r)) & ONE:
            continue
        e = expected[c, r]
        if r < N_NUMBER_ROWS:
            for k in range(level_score.shape[1]):
                s = level_score[r, k]
                if exact:
                    chance = after[r, k]
                else:
                    chance = _reach(fixed + s + mean - e, var - variance[c, r], threshold)
                v = s - e + bonus * (chance - before)
                if r == ones:
                    v += (s - e) * spread
                num[c, r, k] = v
        else:
            a = 1.0
            if r == hi:
                a = weight
            elif r == lo:
                a = -weight
            lin[c, r, 0] = a
            lin[c, r, 1] = -a * e


@njit(cache=True)
def column_estimate(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params):
    """The estimated final total ``E`` of column ``c`` of player ``p`` in game ``g``, of which
    ``column_values`` gives the changes: filled cells at their score, open ones at their row's
    expectation, the numbers bonus times its chance, the difference from ``ones`` and the spread."""
    bonus, difference, hi, lo = params[BONUS], params[DIFFERENCE], params[HIGH], params[LOW]
    own = filled[g, p, c]
    after = np.ones((N_NUMBER_ROWS if bonus_levels.shape[0] > 0 else 0, LEVELS))
    fixed, mean, _, before, ones_e, spread, _ = _column_terms(filled, cells, g, p, c, expected, variance,
                                                              bonus_levels, level_score, params, after)
    total = fixed + mean + bonus * before
    if difference != NO_DIFFERENCE:
        total += ones_e * spread
    for r in range(N_NUMBER_ROWS, expected.shape[1]):
        if difference != NO_DIFFERENCE and (r == hi or r == lo):
            continue
        total += cells[g, p, c, r] if (own >> np.uint32(r)) & ONE else expected[c, r]
    return total
