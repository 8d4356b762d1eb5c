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
  tables' means and variances.

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
from yamb.rules import N_NUMBER_ROWS, Rules

NO_DIFFERENCE, PLAIN, CLAMPED = 0, 1, 2
ONE = np.uint32(1)


@dataclass(frozen=True, eq=False)
class CellModel:
    """Per-table constants of the value model (``C`` columns, ``R`` rows).

    ``levels[m, r]``: rank of hand m's score among the scores row r can take
    (number rows: how many dice count, 0..5); ``level_score[r, k]``: the score
    of level k. ``params``: bonus threshold, bonus, difference kind, rows of
    ones, max and min (-1 without a difference), Yahtzee row (-1 without), the
    Yahtzee row's full score and the extra-Yahtzee bonus.
    """

    expected: np.ndarray  # (C, R) float64
    variance: np.ndarray  # (C, R) float64
    levels: np.ndarray  # (M, R) int64
    level_score: np.ndarray  # (R, 6) float64
    params: np.ndarray  # (9,) int64


def _row_stats(rules: Rules, policy: str) -> tuple[np.ndarray, np.ndarray]:
    """Expected score and variance of each row under ``policy`` (``turn`` or ``roll``)."""
    means = load_table(rules.name, rules.n_dice, policy).to_numpy()
    variances = np.zeros(rules.n_rows)
    for r in range(N_NUMBER_ROWS):
        dist = load_distribution(rules.rows[r], rules.name, rules.n_dice, policy)
        scores = dist.index.to_numpy(dtype=np.float64)
        variances[r] = float((dist.to_numpy() * scores**2).sum()) - means[r] ** 2
    return means, variances


@cache
def cell_model(rules: Rules, columns: tuple[str, ...]) -> CellModel:
    """The model of a table, computed once per process."""
    stats = {policy: _row_stats(rules, policy) for policy in ("turn", "roll")}
    policy = ["roll" if kind == "hand" else "turn" for kind in columns]
    levels = np.zeros((rules.dice.n_multisets, rules.n_rows), dtype=np.int64)
    level_score = np.zeros((rules.n_rows, 6))
    for r in range(N_NUMBER_ROWS):
        values = np.unique(rules.scores[:, r])
        levels[:, r] = np.searchsorted(values, rules.scores[:, r])
        level_score[r, : len(values)] = values
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
        levels=levels,
        level_score=level_score,
        params=params,
    )


@njit(cache=True)
def _reach(mean, variance, threshold):
    """Probability that a sum with this mean and variance (normal, integer-valued) reaches ``threshold``."""
    if variance <= 1e-9:
        return 1.0 if mean >= threshold - 1e-9 else 0.0
    z = (mean - threshold + 0.5) / math.sqrt(variance)
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@njit(cache=True)
def column_values(filled, cells, g, p, c, expected, variance, level_score, params, lin, num):
    """Write the values of column ``c``'s open cells for player ``p`` of game ``g``.

    Collection, ``max`` and ``min`` rows: ``lin[c, r, 0] * s + lin[c, r, 1]``;
    number rows: ``num[c, r, k]`` for a score of level ``k``.
    """
    threshold, bonus, difference, ones, hi, lo = params[0], params[1], params[2], params[3], params[4], params[5]
    n_rows = expected.shape[1]
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
    for r in range(n_rows):
        if (own >> np.uint32(r)) & ONE:
            continue
        e = expected[c, r]
        if r < N_NUMBER_ROWS:
            for k in range(level_score.shape[1]):
                s = level_score[r, k]
                after = _reach(fixed + s + mean - e, var - variance[c, r], threshold)
                v = s - e + bonus * (after - before)
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

