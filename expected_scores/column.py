"""Expected total of one column whose rows are played independently, each for its own turn.

With every row filled by its own single roll (``rolls=1``) this is the
original project's "whole column's total": for the yamb preset
``8117/288`` = the sum of the single-roll expectations of the number and
collection rows, with the difference ``ones x (max - min)`` contributing
``E[ones] x (E[max] - E[min]) = 0`` (independent rows) and without the numbers
bonus. The exact expectation adds the bonus times the small probability that
six independent single rolls reach the threshold; ``column_total`` returns both.

Only ``Rules.column_totals`` combines cells: the numbers part is evaluated on
every joint outcome of the number rows, the difference on every joint outcome
of ones, max and min, and the collections (linear) one row at a time.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import lcm

import numpy as np

from expected_scores.exact import row_result
from yamb.rules import N_NUMBER_ROWS, Rules


def _joint_mean(rules: Rules, rows: list[int], dists: list[dict[int, Fraction]], key: str) -> Fraction:
    """E[column_totals(cells)[key]] over the independent joint outcomes of ``rows``."""
    denominator = lcm(*(p.denominator for d in dists for p in d.values()))
    supports = [[(s, int(p * denominator)) for s, p in d.items()] for d in dists]
    combos = list(product(*supports))
    cells = np.zeros((len(combos), rules.n_rows), dtype=np.int32)
    weights = []
    for i, combo in enumerate(combos):
        weight = 1
        for r, (score, ways) in zip(rows, combo):
            cells[i, r] = score
            weight *= ways
        weights.append(weight)
    values = rules.column_totals(cells)[key]
    return Fraction(sum(int(v) * w for v, w in zip(values, weights)), denominator ** len(rows))


def column_total(rules: Rules, rolls: int = 1) -> dict[str, Fraction]:
    """Exact expected computed rows of a column whose rows are each played alone for a turn.

    Keys: ``numbers_sum``, ``difference`` (when the preset has one),
    ``collections_sum``, ``total``, and ``bonus``: the part of ``numbers_sum``
    that is the bonus (``total - bonus`` is the bonus-free total).
    """
    dists = {r: row_result(rules, row, rolls).distribution for r, row in enumerate(rules.rows)}
    numbers = list(range(N_NUMBER_ROWS))
    out = {"numbers_sum": _joint_mean(rules, numbers, [dists[r] for r in numbers], "numbers_sum")}
    if rules.spec.difference is not None:
        spread = [0, rules.row_index("max"), rules.row_index("min")]
        out["difference"] = _joint_mean(rules, spread, [dists[r] for r in spread], "difference")
    out["collections_sum"] = sum(
        (_joint_mean(rules, [r], [dists[r]], "collections_sum") for r in range(N_NUMBER_ROWS, rules.n_rows)),
        Fraction(0),
    )
    out["total"] = sum(out.values(), Fraction(0))
    plain_numbers = sum((sum(s * p for s, p in dists[r].items()) for r in numbers), Fraction(0))
    out["bonus"] = out["numbers_sum"] - plain_numbers
    return out
