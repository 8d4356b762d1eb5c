"""Separable CMA-ES: CMA-ES with a diagonal covariance, linear in the number of weights.

Ros and Hansen (2008), "A simple modification in CMA-ES achieving linear time
and space complexity": the covariance matrix is kept diagonal, so sampling,
updating and storing it cost O(n) per individual instead of O(n^2), and its
learning rate is raised by (n + 2) / 3, since n numbers are learned instead of
n (n + 1) / 2. Step size: cumulative step-size adaptation; recombination: the
standard log-decreasing weights of the best half.

The interface is DEAP's ``cma.Strategy`` (``generate(ind_init)``, then
``update(population)`` with fitnesses set), so ``evolution.algorithms`` runs it
with the same loop. Every random number comes from the strategy's own numpy
``Generator``, which is pickled with it (a checkpoint holds it); its sums are
``yamb.portable_linalg``'s, the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import attrgetter

import numpy as np

from evolution.strategies.cma_es import CMABase
from yamb.portable_linalg import norm, weighted_rows


class SepCMAStrategy(CMABase):
    """Separable CMA-ES over ``centroid.size`` variables, maximising DEAP fitnesses."""

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, rng: np.random.Generator) -> None:
        super().__init__(centroid, sigma, lambda_, rng)
        n = self.dim
        self.cs = (self.mueff + 2.0) / (n + self.mueff + 5.0)
        self.damps = 1.0 + 2.0 * max(0.0, math.sqrt((self.mueff - 1.0) / (n + 1.0)) - 1.0) + self.cs
        full = (2.0 / self.mueff / (n + math.sqrt(2.0)) ** 2
                + (1.0 - 1.0 / self.mueff) * min(1.0, (2.0 * self.mueff - 1.0) / ((n + 2.0) ** 2 + self.mueff)))
        self.ccov = min(1.0, full * (n + 2.0) / 3.0)  # the separable learning rate
        self.diagC = np.ones(n)  # the covariance's diagonal; its square root scales each coordinate

    def generate(self, ind_init: Callable[[np.ndarray], object]) -> list:
        """``lambda_`` individuals drawn from N(centroid, sigma^2 diag(C))."""
        z = self.rng.standard_normal((self.lambda_, self.dim))
        return [ind_init(x) for x in self.centroid + self.sigma * np.sqrt(self.diagC) * z]

    def update(self, population: list) -> None:
        """Move the mean, the evolution paths, the diagonal and the step size after ``population`` was rated."""
        best = sorted(population, key=attrgetter("fitness"), reverse=True)[: self.mu]
        old = self.centroid
        y = (np.asarray(best, dtype=np.float64) - old) / self.sigma  # (mu, n) the selected steps
        y_w = weighted_rows(self.weights, y)
        self.centroid = old + self.sigma * y_w
        self.ps = (1 - self.cs) * self.ps + math.sqrt(self.cs * (2 - self.cs) * self.mueff) * y_w / np.sqrt(self.diagC)
        self.update_count += 1
        ps_norm = norm(self.ps)
        hsig = ps_norm / math.sqrt(1 - (1 - self.cs) ** (2 * self.update_count)) / self.chiN < 1.4 + 2 / (self.dim + 1)
        self.pc = (1 - self.cc) * self.pc + hsig * math.sqrt(self.cc * (2 - self.cc) * self.mueff) * y_w
        rank_one = self.pc ** 2 + (not hsig) * self.cc * (2 - self.cc) * self.diagC
        rank_mu = weighted_rows(self.weights, y * y)
        self.diagC = ((1 - self.ccov) * self.diagC + self.ccov / self.mueff * rank_one
                      + self.ccov * (1 - 1 / self.mueff) * rank_mu)
        self.sigma *= math.exp((ps_norm / self.chiN - 1) * self.cs / self.damps)
