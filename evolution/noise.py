"""Selection under noise: measuring it (rank changes, UH-CMA-ES) and an incumbent replaced on evidence only.

Near a strong player the differences between candidates are smaller than the
noise of their evaluation, and selection follows luck. Two remedies, both off
by default (``evolution/config.py``), used by ``evolution.algorithms``:

- **Uncertainty handling** (Hansen, Niederberger, Guzzella and Koumoutsakos
  2009, UH-CMA-ES): a few members are played again on fresh dice; if their
  ranks change more than chance allows (``rank_change_measure`` > 0, smoothed),
  noise dominates selection and the games per member grow by ``GAMES_FACTOR``
  (up to ``games_max``); when it no longer does, they shrink back.
- **An incumbent**: the player the run would hand back. Each generation the
  challenger (a strategy's mean, the GA's best) and the incumbent play the
  same fresh games; the challenger replaces it only when better with
  ``p < accept_p`` (paired t-test) and again on other fresh games; a strategy
  whose mean is worse with that significance is put back on the incumbent.
"""

from __future__ import annotations

import math

import numpy as np

THETA = 0.2  # the percentile of rank changes that chance allows (Hansen et al.'s theta)
SMOOTHING = 0.3  # weight of a generation's measure in the running one (their c_s)
GAMES_FACTOR = 1.5  # games per member grow (or shrink) by this factor when noise dominates (or not)


def _limit(rank: int, size: int) -> float:
    """Hansen et al.'s Delta_lim: the THETA percentile of |k - rank| for k = 1 .. size - 1."""
    return float(np.percentile(np.abs(np.arange(1, size) - rank), 100 * THETA))


def rank_change_measure(fitness: np.ndarray, again: np.ndarray) -> float:
    """Hansen et al.'s s: positive when the ranks of the first ``len(again)`` members change more
    than chance allows when they are played again (``again``), negative when selection sees through
    the noise. Higher fitness is better. The members' mean change is taken out of ``again`` first:
    on common dice a whole generation is lucky or unlucky together, which changes no rank."""
    fitness = np.asarray(fitness, dtype=np.float64)
    again = np.asarray(again, dtype=np.float64)
    k = len(again)
    again = again - (again - fitness[:k]).mean()
    values = -np.concatenate([fitness, again])  # ranked as the paper does, lowest (best) first
    ranks = np.argsort(np.argsort(values, kind="stable"), kind="stable") + 1
    size = len(values)
    total = 0.0
    for i in range(k):
        old, new = ranks[i], ranks[len(fitness) + i]
        delta = new - old - np.sign(new - old)
        total += 2 * abs(delta) - _limit(new - int(values[len(fitness) + i] > values[i]), size) \
            - _limit(old - int(values[i] > values[len(fitness) + i]), size)
    return total / k


def smoothed(previous: float, measure: float) -> float:
    """The running measure after a generation's ``measure``."""
    return (1 - SMOOTHING) * previous + SMOOTHING * measure


def next_games(games: int, noise: float, least: int, most: int) -> int:
    """Games per member for the next generation: more when ``noise`` > 0, fewer otherwise, in
    ``least .. most``."""
    scaled = games * GAMES_FACTOR if noise > 0 else games / GAMES_FACTOR
    return int(min(most, max(least, math.ceil(scaled))))
