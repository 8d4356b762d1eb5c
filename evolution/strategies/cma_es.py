"""CMA-ES with a full covariance matrix, the same samples on every machine.

The update is DEAP's ``cma.Strategy`` (Hansen and Ostermeier 2001; the
parameters of Hansen's tutorial): log-decreasing weights of the best half,
cumulative step-size adaptation, rank-one and rank-mu covariance updates. Two
things differ:

- its linear algebra is ``yamb.portable_linalg``'s, summed in a fixed order (DEAP
  calls numpy's BLAS and LAPACK, whose results change with the CPU and the
  thread count), and its random numbers come from its own numpy ``Generator``,
  pickled with it;
- the eigendecomposition of the covariance, ``n^3`` work, is done again only
  every ``max(1, 1 / (10 n (c1 + cmu)))`` generations, as the tutorial
  advises (Hansen 2016, "The CMA Evolution Strategy: A Tutorial", B.2): the
  covariance moves by less than that in between. With the ``quick`` recipe's
  992 weights that is every 11 generations; with 104 weights every generation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import attrgetter

import numpy as np

from yamb.portable_linalg import covariance_update, matvec, norm, symmetric_eigen, times_transposed, weighted_rows


def recombination_weights(mu: int) -> tuple[np.ndarray, float]:
    """The log-decreasing weights of the best ``mu`` (summing to 1) and their variance-effective
    number ``mueff``, exactly rounded sums (``math.fsum``)."""
    weights = np.array([math.log(mu + 0.5) - math.log(i) for i in range(1, mu + 1)])
    weights = weights / math.fsum(weights)
    return weights, 1.0 / math.fsum(weights * weights)


class CMABase:
    """What CMA-ES and separable CMA-ES hold alike: the mean, the step size, the recombination
    weights, the evolution paths and the strategy's own random generator."""

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, rng: np.random.Generator) -> None:
        n = centroid.size
        self.dim, self.lambda_, self.mu = n, lambda_, lambda_ // 2
        self.rng = rng
        self.centroid = np.array(centroid, dtype=np.float64)
        self.sigma = float(sigma)
        self.weights, self.mueff = recombination_weights(self.mu)
        self.cc = 4.0 / (n + 4.0)
        self.chiN = math.sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n ** 2))  # E|N(0, I)|
        self.pc = np.zeros(n)
        self.ps = np.zeros(n)
        self.update_count = 0


class CMAStrategy(CMABase):
    """CMA-ES over ``centroid.size`` variables, maximising DEAP fitnesses (``generate``, then
    ``update`` with fitnesses set, as DEAP's ``cma.Strategy``)."""

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, rng: np.random.Generator) -> None:
        super().__init__(centroid, sigma, lambda_, rng)
        n = self.dim
        self.cs = (self.mueff + 2.0) / (n + self.mueff + 3.0)
        self.ccov1 = 2.0 / ((n + 1.3) ** 2 + self.mueff)
        self.ccovmu = min(1.0 - self.ccov1, 2.0 * (self.mueff - 2.0 + 1.0 / self.mueff) / ((n + 2.0) ** 2 + self.mueff))
        self.damps = 1.0 + 2.0 * max(0.0, math.sqrt((self.mueff - 1.0) / (n + 1.0)) - 1.0) + self.cs
        self.eigen_every = max(1, int(1.0 / (10.0 * n * (self.ccov1 + self.ccovmu))))
        self.C = np.eye(n)
        self.B = np.eye(n)  # the covariance's eigenvectors (columns) and the square roots of its eigenvalues
        self.diagD = np.ones(n)

    def generate(self, ind_init: Callable[[np.ndarray], object]) -> list:
        """``lambda_`` individuals drawn from N(centroid, sigma^2 C), as ``centroid + sigma B D z``."""
        z = self.rng.standard_normal((self.lambda_, self.dim))
        return [ind_init(x) for x in self.centroid + self.sigma * times_transposed(z, self.B * self.diagD)]

    def update(self, population: list) -> None:
        """Move the mean, the evolution paths, the covariance and the step size after ``population``
        was rated; the eigendecomposition every ``eigen_every`` updates."""
        best = np.asarray(sorted(population, key=attrgetter("fitness"), reverse=True)[: self.mu], dtype=np.float64)
        old = self.centroid
        self.centroid = weighted_rows(self.weights, best)
        c_diff = self.centroid - old
        whitened = matvec(self.B, weighted_rows(c_diff, self.B) / self.diagD)  # B D^-1 B^T c_diff
        self.ps = (1 - self.cs) * self.ps + math.sqrt(self.cs * (2 - self.cs) * self.mueff) / self.sigma * whitened
        ps_norm = norm(self.ps)
        hsig = float(ps_norm / math.sqrt(1.0 - (1.0 - self.cs) ** (2.0 * (self.update_count + 1.0))) / self.chiN
                     < 1.4 + 2.0 / (self.dim + 1.0))
        self.update_count += 1
        self.pc = (1 - self.cc) * self.pc + hsig * math.sqrt(self.cc * (2 - self.cc) * self.mueff) / self.sigma * c_diff
        keep = 1 - self.ccov1 - self.ccovmu + (1 - hsig) * self.ccov1 * self.cc * (2 - self.cc)
        covariance_update(self.C, keep, self.ccov1, self.pc, self.ccovmu / self.sigma ** 2, self.weights, best - old)
        self.sigma *= math.exp((ps_norm / self.chiN - 1.0) * self.cs / self.damps)
        if self.update_count % self.eigen_every == 0:
            values, self.B = symmetric_eigen(self.C)
            self.diagD = np.sqrt(np.maximum(values, 0.0))
