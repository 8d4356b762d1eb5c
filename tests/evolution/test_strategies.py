"""Separable CMA-ES and the OpenAI ES on functions with known minima, and their parts checked by hand."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
import pytest
from deap import cma

from evolution.individual import Individual
from evolution.strategies.openai_es import OpenAIES, centered_ranks
from evolution.strategies.sep_cma import SepCMAStrategy

Function = Callable[[np.ndarray], float]


def sphere(x: np.ndarray) -> float:
    return float(x @ x)


def ellipsoid(n: int) -> tuple[Function, np.ndarray]:
    """The separable ellipsoid sum a_i x_i^2 with a_i from 1 to 1e4 (condition 1e4), and a."""
    a = 10.0 ** (4 * np.arange(n) / (n - 1))
    return (lambda x: float(a @ x ** 2)), a


def rate(population: list[Individual], f: Function) -> list[float]:
    """Set each individual's fitness to -f (the strategies maximise); the values of f."""
    values = [f(np.asarray(ind)) for ind in population]
    for ind, v in zip(population, values):
        ind.fitness.values = (-v,)
    return values


def evaluations_to(strategy, f: Function, target: float, budget: int) -> int | None:
    """Evaluations until an individual has f < ``target``, or None if ``budget`` is spent first."""
    used = 0
    while used < budget:
        population = strategy.generate(Individual)
        values = rate(population, f)
        used += len(population)
        if min(values) < target:
            return used
        strategy.update(population)
    return None


def sep_cma(n: int, seed: int = 0) -> SepCMAStrategy:
    """From (1, ..., 1), sigma 0.5, the default population 4 + floor(3 ln n)."""
    return SepCMAStrategy(np.ones(n), 0.5, 4 + int(3 * np.log(n)), np.random.default_rng(seed))


@pytest.mark.parametrize("seed", [0, 1])
def test_sep_cma_reaches_the_minimum_of_the_sphere(seed: int) -> None:
    used = evaluations_to(sep_cma(10, seed), sphere, 1e-10, budget=2_000)  # full CMA-ES takes about 1,500
    assert used is not None


@pytest.mark.slow
def test_sep_cma_beats_full_cma_on_the_separable_ellipsoid_and_learns_its_scales() -> None:
    n = 30
    f, a = ellipsoid(n)
    strategy = sep_cma(n)
    assert evaluations_to(strategy, f, 1e-10, budget=9_000) is not None  # about 7,000
    np.random.seed(0)  # deap's CMA-ES draws from numpy's global generator
    full = cma.Strategy(centroid=np.ones(n), sigma=0.5, lambda_=strategy.lambda_)
    assert evaluations_to(full, f, 1e-10, budget=9_000) is None  # about 23,000: it learns n^2 numbers
    # the ideal covariance is the inverse Hessian: C_i proportional to 1 / a_i, over four decades
    product = strategy.diagC * a
    assert product.max() / product.min() < 10
    slope = np.polyfit(np.log10(a), np.log10(strategy.diagC), 1)[0]
    assert slope == pytest.approx(-1, abs=0.1)


def test_sep_cma_sets_its_learning_rates_as_published() -> None:
    """Ros and Hansen (2008): c_cov of CMA-ES times (n + 2) / 3; weights ln(mu + 1/2) - ln i."""
    n, lambda_ = 100, 12
    s = SepCMAStrategy(np.zeros(n), 1.0, lambda_, np.random.default_rng(0))
    w = np.array([np.log(6.5) - np.log(i) for i in range(1, 7)])
    w /= w.sum()
    mueff = 1 / (w ** 2).sum()
    c_cov = (2 / mueff / (n + 2 ** 0.5) ** 2
             + (1 - 1 / mueff) * min(1, (2 * mueff - 1) / ((n + 2) ** 2 + mueff)))
    assert np.allclose(s.weights, w) and s.mueff == pytest.approx(mueff)
    assert s.ccov == pytest.approx(c_cov * (n + 2) / 3)


def test_mirrored_pairs_around_the_mean() -> None:
    mean = np.linspace(-1, 1, 7)
    s = OpenAIES(mean, 0.3, 8, 0.01, 0.0, np.random.default_rng(1))
    population = np.asarray(s.generate(Individual))
    assert population.shape == (8, 7)
    assert np.allclose(population[0::2] + population[1::2], 2 * mean)
    assert len({tuple(row) for row in population}) == 8
    with pytest.raises(ValueError, match="lambda_ must be even"):
        OpenAIES(mean, 0.3, 7, 0.01, 0.0, np.random.default_rng(1))


def test_centered_ranks() -> None:
    fitness = np.array([3.0, -1.0, 10.0, 2.5, 7.0])
    shaped = centered_ranks(fitness)
    assert np.array_equal(shaped, [0.0, -0.5, 0.5, -0.25, 0.25])  # ranks 2, 0, 4, 1, 3 of 0..4
    assert shaped.sum() == 0
    for monotone in (np.exp, lambda x: x ** 3 - 5, lambda x: np.arctan(x / 100)):
        assert np.array_equal(centered_ranks(monotone(fitness)), shaped)
    assert np.array_equal(centered_ranks(np.array([1.0, 1.0, 0.0, 2.0])), [0, 0, -0.5, 0.5])  # ties share rank 1.5


def test_es_gradient_matches_a_brute_force_sum_and_the_true_gradient_of_a_linear_function() -> None:
    n = 20
    slope = np.random.default_rng(5).standard_normal(n)
    s = OpenAIES(np.zeros(n), 0.1, 200, 0.01, 0.0, np.random.default_rng(6))
    population = s.generate(Individual)
    values = rate(population, lambda x: -float(slope @ x))  # fitness = slope . x
    estimate = s.gradient(population)
    fitness = -np.array(values)
    brute = np.zeros(n)
    for x, f in zip(population, fitness):
        rank = (fitness < f).sum() + ((fitness == f).sum() - 1) / 2
        brute += (rank / (len(fitness) - 1) - 0.5) * (np.asarray(x) - s.centroid) / s.sigma
    assert np.allclose(estimate, brute / (len(population) * s.sigma))
    cosine = estimate @ slope / np.linalg.norm(estimate) / np.linalg.norm(slope)
    assert cosine > 0.85


def test_es_improves_the_sphere() -> None:
    s = OpenAIES(np.ones(10), 0.1, 20, 0.02, 0.0, np.random.default_rng(0))
    for _ in range(150):  # 3,000 evaluations
        population = s.generate(Individual)
        rate(population, sphere)
        s.update(population)
    assert sphere(s.centroid) < 1e-4 * sphere(np.ones(10))


def test_es_first_step_with_only_weight_decay_is_adams() -> None:
    """Equal fitnesses give no gradient; Adam's first step is the learning rate against the decay's sign."""
    mean = np.array([0.5, -2.0, 3.0])
    s = OpenAIES(mean, 0.1, 4, 0.01, 0.1, np.random.default_rng(0))
    population = s.generate(Individual)
    for ind in population:
        ind.fitness.values = (1.0,)
    s.update(population)
    assert np.allclose(s.centroid, mean - 0.01 * np.sign(mean), atol=1e-9)


@pytest.mark.parametrize("make", [lambda: sep_cma(5, seed=3),
                                  lambda: OpenAIES(np.ones(5), 0.1, 6, 0.05, 0.01, np.random.default_rng(3))])
def test_a_pickled_strategy_continues_exactly(make) -> None:
    def steps(s, k: int) -> list[np.ndarray]:
        out = []
        for _ in range(k):
            population = s.generate(Individual)
            rate(population, sphere)
            s.update(population)
            out.append(np.asarray(population))
        return out

    whole, cut = make(), make()
    first = steps(whole, 6)
    second = steps(cut, 3)
    cut = pickle.loads(pickle.dumps(cut))
    second += steps(cut, 3)
    assert all(np.array_equal(x, y) for x, y in zip(first, second))
    assert np.array_equal(whole.centroid, cut.centroid)
