"""The benchmark test's checks of the score tables, on the cached ones (built first if they are not):

    python -m scripts.check_score_tables yatzy
    python -m scripts.check_score_tables yahtzee

Every state's mean against the solver's value, the stored (float32) distributions' sums and means,
and ``--games`` games of ``optimal`` (seed ``--seed``) against the start distribution: the chi-square
statistic over bins of at least 50 expected games each (``tests/expected_scores/test_distributions.py``'s
computation). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from scipy.stats import chi2

from expected_scores.distributions import ScoreTables, score_tables
from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solve import solve
from robo_players.measure.simulate import simulate
from yamb.layout import layout


def stored_moments(tables: ScoreTables) -> tuple[np.ndarray, np.ndarray]:
    """Each state's stored distribution's sum and mean (float64 sums of the float32 entries)."""
    d = tables.dist
    widths = np.diff(d.start)
    p = d.flat.astype(np.float64)
    x = np.repeat(d.lo - d.start[:-1], widths) + np.arange(len(p))
    return np.add.reduceat(p, d.start[:-1]), np.add.reduceat(x * p, d.start[:-1]) + tables.tail


def goodness_of_fit(p: np.ndarray, scores: np.ndarray) -> tuple[float, int]:
    """``(chi-square, degrees of freedom)`` of final ``scores`` against the distribution ``p``: bins of at least
    50 expected games from the left, the last one open."""
    edges, acc = [0], 0.0
    for x in range(len(p)):
        acc += p[x]
        if acc * len(scores) >= 50:
            edges.append(x + 1)
            acc = 0.0
    edges[-1] = 10**6
    expected = np.add.reduceat(p, edges[:-1]) * len(scores)
    expected[-1] = len(scores) - expected[:-1].sum()
    observed = np.histogram(scores, bins=edges)[0]
    return float(((observed - expected) ** 2 / expected).sum()), len(expected) - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("preset", choices=["yatzy", "yahtzee"])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=4040)
    args = parser.parse_args()
    tables, solution = score_tables(args.preset), solve(args.preset)
    states = np.nonzero(tables.index >= 0)
    sums, means = stored_moments(tables)
    scores = simulate(layout(tables.rules), SolvedPlayer(solution), args.games, seed=args.seed)
    start = tables.state(0, 0)
    p = tables.distribution(start)
    stat, dof = goodness_of_fit(p, scores)
    print(json.dumps({
        "preset": args.preset, "states": tables.states, "dist_entries": len(tables.dist.flat),
        "reach_entries": len(tables.reach.flat),
        "mean_vs_solver": float(np.abs(tables.means[tables.index[states]] - solution.values[states]).max()),
        "stored_sum_vs_1": float(np.abs(sums - 1).max()),
        "stored_mean_relative": float((np.abs(means - tables.means) / tables.means.clip(1e-300)).max()),
        "start_mean": tables.mean(start), "solver_start": float(solution.values[0, 0, 0]),
        "optimal_p300": float(p[300:].sum()), "best_p300": float(tables.chances(start, 300)),
        "games": args.games, "seed": args.seed, "simulated_mean": float(scores.mean()),
        "chi_square": stat, "dof": dof, "p_value": float(chi2.sf(stat, dof)), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
