"""The numbers sum as the solvers track it: capped at the bonus threshold."""

from __future__ import annotations

import numpy as np

from yamb.rules import N_NUMBER_ROWS, Rules


def capped_upper(rules: Rules, cells: np.ndarray) -> np.ndarray:
    """(n,) int64: the numbers sum of columns ``cells`` (n, R) (open cells 0), capped at the threshold."""
    cells = np.asarray(cells, dtype=np.int64)
    return np.minimum(cells[:, :N_NUMBER_ROWS].sum(axis=1), rules.spec.bonus_threshold)


def reachable_upper(rules: Rules) -> np.ndarray:
    """(64, threshold + 1) bool: capped upper sums reachable with each set of filled number rows."""
    threshold = rules.spec.bonus_threshold
    counts = range(min(rules.n_dice, 5) + 1)
    out = np.zeros((1 << N_NUMBER_ROWS, threshold + 1), dtype=bool)
    for filled in range(1 << N_NUMBER_ROWS):
        sums = {0}
        for f in range(N_NUMBER_ROWS):
            if filled >> f & 1:
                sums = {min(threshold, s + (f + 1) * k) for s in sums for k in counts}
        out[filled, sorted(sums)] = True
    return out
