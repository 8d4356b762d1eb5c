"""The OpenAI evolution strategy: a gradient estimate from mirrored noise, followed by Adam.

Salimans, Ho, Chen, Sidor and Sutskever (2017), "Evolution Strategies as a
Scalable Alternative to Reinforcement Learning". Each generation samples
``lambda_ / 2`` Gaussian directions eps and plays the mirrored pairs
``mean + sigma * eps`` and ``mean - sigma * eps``; fitnesses are replaced by
their centered ranks (in [-0.5, 0.5], summing to 0, blind to the fitness's
scale); the gradient of the expected fitness is estimated as
``sum(shaped_i * eps_i) / (lambda_ * sigma)``, and an Adam step (with optional
weight decay) moves the mean up it. ``sigma`` stays fixed. Time and memory are
linear in the number of weights.

The interface is DEAP's ``cma.Strategy`` (``generate(ind_init)``, then
``update(population)`` with fitnesses set), so ``evolution.algorithms`` runs it
with the same loop. Every random number comes from the strategy's own numpy
``Generator``, which is pickled with it (a checkpoint holds it).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.stats import rankdata

from yamb.portable_linalg import weighted_rows

BETA1, BETA2, ADAM_EPSILON = 0.9, 0.999, 1e-8  # Adam's usual constants


def centered_ranks(fitness: np.ndarray) -> np.ndarray:
    """Ranks of ``fitness`` (ties share their mean rank) mapped linearly onto [-0.5, 0.5]."""
    ranks = rankdata(fitness) - 1.0
    return ranks / (len(fitness) - 1) - 0.5


class OpenAIES:
    """Mirrored-sampling ES with centered-rank shaping and Adam on the mean, maximising DEAP fitnesses."""

    def __init__(self, centroid: np.ndarray, sigma: float, lambda_: int, learning_rate: float,
                 weight_decay: float, rng: np.random.Generator) -> None:
        if lambda_ < 2 or lambda_ % 2:
            raise ValueError(f"the OpenAI ES plays mirrored pairs: lambda_ must be even, not {lambda_}")
        self.centroid = np.array(centroid, dtype=np.float64)
        self.dim, self.lambda_ = self.centroid.size, lambda_
        self.sigma, self.learning_rate, self.weight_decay = float(sigma), float(learning_rate), float(weight_decay)
        self.rng = rng
        self.m = np.zeros(self.dim)  # Adam's first and second moments
        self.v = np.zeros(self.dim)
        self.steps = 0

    def generate(self, ind_init: Callable[[np.ndarray], object]) -> list:
        """``lambda_`` individuals in mirrored pairs: mean + sigma * eps_k, then mean - sigma * eps_k."""
        eps = self.rng.standard_normal((self.lambda_ // 2, self.dim))
        noise = np.stack([eps, -eps], axis=1).reshape(self.lambda_, self.dim)
        return [ind_init(x) for x in self.centroid + self.sigma * noise]

    def gradient(self, population: list) -> np.ndarray:
        """The estimate sum(shaped_i * eps_i) / (lambda_ * sigma) of the fitness's gradient at the mean."""
        eps = (np.asarray(population, dtype=np.float64) - self.centroid) / self.sigma
        shaped = centered_ranks(np.array([ind.fitness.wvalues[0] for ind in population]))
        return weighted_rows(shaped, eps) / (len(population) * self.sigma)

    def update(self, population: list) -> None:
        """One Adam step of the mean up the estimated gradient, less ``weight_decay`` times the mean."""
        ascent = self.gradient(population) - self.weight_decay * self.centroid
        self.steps += 1
        self.m = BETA1 * self.m + (1 - BETA1) * ascent
        self.v = BETA2 * self.v + (1 - BETA2) * ascent ** 2
        rate = self.learning_rate * math.sqrt(1 - BETA2 ** self.steps) / (1 - BETA1 ** self.steps)
        self.centroid = self.centroid + rate * self.m / (np.sqrt(self.v) + ADAM_EPSILON)
