"""Which weights a run evolves: all of them, or the output layer's biases of its start network.

Near a strong player the budget of games is what limits selection (``evolution.noise``),
and the games a strategy needs grow with the number of variables it moves. With
``genes = "output-bias"`` the strategy moves only the last layer's biases of the ``init``
network: for a search-guided network, one additive and one scaling correction of each
cell's value (``2 * C * R`` numbers: 104 on yamb and jamb6, 30 on Yatzy), the rest of its
weights held as fitted. A strategy over so few variables keeps a full covariance (CMA-ES)
whatever the network's size; what it gained from the shipped bots is in docs/history.md.

``SubspaceStrategy`` wraps any ask/tell strategy (``cma``, ``sep-cma``, ``es``): it draws
and updates the chosen genes and hands out whole genomes, so the games, the hall of fame,
the checkpoints and the saved player see whole networks as in any other run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from evolution.individual import Individual
from robo_players.neural.networks import NetSpec

if TYPE_CHECKING:
    from evolution.strategies.protocol import Strategy

def gene_index(spec: NetSpec, genes: str) -> np.ndarray:
    """The positions in a flat genome of ``spec`` (``net.parameters()`` order) of the genes evolved."""
    sizes = [(name, p.numel()) for name, p in spec.build().named_parameters()]
    total = sum(n for _, n in sizes)
    if genes == "all":
        return np.arange(total, dtype=np.int64)
    name, last = sizes[-1]  # the output layer's bias: the last parameter of every network kind
    if not name.endswith("bias"):
        raise ValueError(f"the last parameter of a {spec.kind} network is {name}, not the output layer's bias")
    return np.arange(total - last, total, dtype=np.int64)


class SubspaceStrategy:
    """An ask/tell ``strategy`` over the genes at ``index`` of ``base``'s genome; it hands out whole
    genomes (``base`` with those genes replaced) and reads their fitnesses back."""

    def __init__(self, strategy: Strategy, base: np.ndarray, index: np.ndarray) -> None:
        self.strategy = strategy
        self.base = np.array(base, dtype=np.float64)
        self.index = np.asarray(index, dtype=np.int64)

    def whole(self, genes: np.ndarray) -> np.ndarray:
        """The whole genome with these ``genes``."""
        out = self.base.copy()
        out[self.index] = genes
        return out

    @property
    def centroid(self) -> np.ndarray:
        return self.whole(self.strategy.centroid)

    @centroid.setter
    def centroid(self, genome: np.ndarray) -> None:
        self.strategy.centroid = np.array(np.asarray(genome)[self.index], dtype=np.float64)

    def generate(self, ind_init: Callable[[np.ndarray], Individual]) -> list[Individual]:
        """The strategy's samples, as whole genomes built by ``ind_init``."""
        return [ind_init(self.whole(np.asarray(x))) for x in self.strategy.generate(np.asarray)]

    def update(self, population: list[Individual]) -> None:
        """The strategy's update from ``population`` (whole genomes with fitnesses) read at its genes."""
        rated = []
        for ind in population:
            genes = Individual(np.asarray(ind)[self.index])
            genes.fitness.values = ind.fitness.values
            rated.append(genes)
        self.strategy.update(rated)
