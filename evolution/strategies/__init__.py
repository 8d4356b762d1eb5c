"""The ask/tell strategies a run may evolve with, behind one protocol, and the GA's variation operators.

``cma`` is CMA-ES (``cma_es``), ``sep-cma`` separable CMA-ES (``sep_cma``), ``es`` the
OpenAI evolution strategy (``openai_es``); ``genes`` narrows any of them to part of a
genome. The GA (``ga``) is DEAP's loop with the operators of ``operators``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evolution.strategies.cma_es import CMAStrategy
from evolution.strategies.genes import SubspaceStrategy
from evolution.strategies.openai_es import OpenAIES
from evolution.strategies.protocol import Strategy
from evolution.strategies.sep_cma import SepCMAStrategy

if TYPE_CHECKING:
    from evolution.config import EvolveConfig

STRATEGY_STREAM = 1  # the strategies' own generators draw from SeedSequence([seed, STRATEGY_STREAM])


def new_strategy(config: EvolveConfig, centroid: np.ndarray, index: np.ndarray | None = None) -> Strategy:
    """The ask/tell strategy of ``config.algorithm`` (not ``ga``), its mean at ``centroid``; over
    the genes at ``index`` alone (``genes``) when it is given and not all of them."""
    if index is not None and len(index) < centroid.size:
        return SubspaceStrategy(new_strategy(config, centroid[index]), centroid, index)
    rng = np.random.default_rng([config.seed, STRATEGY_STREAM])
    if config.algorithm == "cma":
        return CMAStrategy(centroid, config.cma_sigma, config.population, rng)
    if config.algorithm == "sep-cma":
        return SepCMAStrategy(centroid, config.cma_sigma, config.population, rng)
    return OpenAIES(centroid, config.es_sigma, config.population, config.es_learning_rate,
                    config.es_weight_decay, rng)
