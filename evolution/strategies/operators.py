"""Variation operators on numpy genomes, for DEAP's toolbox.

DEAP's ``cxBlend``, ``cxSimulatedBinary`` and ``mutGaussian`` loop over genes in
Python; these do the same per gene with numpy, in place, drawing from a
``numpy.random.Generator`` that the run's checkpoint carries. They return
tuples like DEAP's operators. Powers are ``yamb.portable_math``'s (numpy's
round differently on AVX-512 and AVX2 machines).
"""

from __future__ import annotations

import numpy as np

from yamb.portable_math import power_array


def cx_blend(ind1: np.ndarray, ind2: np.ndarray, alpha: float, rng: np.random.Generator) -> tuple:
    """BLX-alpha: each gene of each child at ``x1 + gamma (x2 - x1)``, gamma uniform on [-alpha, 1 + alpha]."""
    gamma = (1.0 + 2.0 * alpha) * rng.random(ind1.shape) - alpha
    x1, x2 = ind1.copy(), ind2.copy()
    ind1[:] = (1.0 - gamma) * x1 + gamma * x2
    ind2[:] = gamma * x1 + (1.0 - gamma) * x2
    return ind1, ind2


def cx_sbx(ind1: np.ndarray, ind2: np.ndarray, eta: float, rng: np.random.Generator) -> tuple:
    """Simulated binary crossover with crowding degree ``eta`` (unbounded genes)."""
    u = rng.random(ind1.shape)
    beta = power_array(np.where(u <= 0.5, 2.0 * u, 0.5 / (1.0 - u)), 1.0 / (eta + 1.0))
    x1, x2 = ind1.copy(), ind2.copy()
    ind1[:] = 0.5 * ((1.0 + beta) * x1 + (1.0 - beta) * x2)
    ind2[:] = 0.5 * ((1.0 - beta) * x1 + (1.0 + beta) * x2)
    return ind1, ind2


def mut_gaussian(ind: np.ndarray, sigma: float, indpb: float, rng: np.random.Generator) -> tuple:
    """Add N(0, sigma) noise to each gene with probability ``indpb``."""
    hit = rng.random(ind.shape) < indpb
    ind[hit] += sigma * rng.standard_normal(int(hit.sum()))
    return (ind,)
