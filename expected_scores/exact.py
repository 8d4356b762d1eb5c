"""Exact expected score and score distribution of one row played alone for a turn.

Everything is integer arithmetic on Python ints: after ``t`` rolls every
probability is a multiple of ``6**-(n * t)``. Keep values come straight from the
keep-to-multiset table ``DiceTables.outcome_ways`` (every completion counted), a
computation independent of the one-die-at-a-time recursion of
``expected_scores.turn``; the tests compare the two.

The policy maximizes the row's score, or minimizes it for ``min`` (the rows in
``yamb.rules.LOWEST_FIVE_ROWS``). Ties prefer stopping, then the largest keep,
then the first keep in ``DiceTables.keeps`` order; the distribution is that of
this policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from yamb.rules import LOWEST_FIVE_ROWS, Rules


@dataclass(frozen=True)
class RowResult:
    """Exact expected score of a row and the probability of each score."""

    value: Fraction
    distribution: dict[int, Fraction]


def _optimize(rules: Rules, signed: list[int], rolls: int) -> tuple[np.ndarray, Fraction]:
    """Backward induction maximizing ``signed`` scores: (rolls, M) keeps (-1: stop) and the optimum."""
    dice = rules.dice
    n = rules.n_dice
    ways = dice.outcome_ways.astype(object)
    keep_scale = np.array([6 ** int(s) for s in dice.keep_size], dtype=object)
    first_full = dice.n_keeps - dice.n_multisets
    candidates = []  # proper sub-keeps of each multiset, largest first
    for m in range(dice.n_multisets):
        subs = [int(k) for k in dice.sub_keeps[m, : dice.n_sub_keeps[m]] if k < first_full]
        candidates.append(sorted(subs, key=lambda k: -int(dice.keep_size[k])))
    policy = np.full((rolls, dice.n_multisets), -1, dtype=np.int32)
    stop = np.array(signed, dtype=object)
    value = stop.copy()  # numerators over 6 ** (n * (rolls - 1 - t)) after roll t + 1
    for t in range(rolls - 2, -1, -1):
        kept = (ways @ value) * keep_scale  # keep values over the next denominator
        stop = stop * 6**n
        value = stop.copy()
        for m in range(dice.n_multisets):
            for k in candidates[m]:
                if kept[k] > value[m]:
                    value[m] = kept[k]
                    policy[t, m] = k
    optimum = Fraction(int(ways[0] @ value), 6 ** (n * rolls))
    return policy, optimum


def row_result(rules: Rules, row: str, rolls: int) -> RowResult:
    """Exact result of playing ``row`` alone for a turn of ``rolls`` rolls (1: a single roll).

    ``value`` is the optimum of the backward induction; the distribution is
    computed forwards from the policy, so its mean is an independent check.
    """
    r = rules.row_index(row)
    scores = [int(s) for s in rules.scores[:, r]]
    sign = -1 if row in LOWEST_FIVE_ROWS else 1
    policy, optimum = _optimize(rules, [sign * s for s in scores], rolls)
    dice = rules.dice
    n = rules.n_dice
    ways = dice.outcome_ways.astype(object)
    mass = ways[0].copy()  # numerators over 6 ** (n * (t + 1)) after roll t + 1
    counts: dict[int, int] = {}
    for t in range(rolls):
        nxt = np.zeros(dice.n_multisets, dtype=object)
        for m in np.flatnonzero(mass):
            k = policy[t, m]
            if k < 0:
                counts[scores[m]] = counts.get(scores[m], 0) + mass[m] * 6 ** (n * (rolls - 1 - t))
            else:
                nxt += mass[m] * ways[k] * 6 ** int(dice.keep_size[k])
        mass = nxt
    denominator = 6 ** (n * rolls)
    distribution = {s: Fraction(c, denominator) for s, c in sorted(counts.items())}
    return RowResult(value=sign * optimum, distribution=distribution)
