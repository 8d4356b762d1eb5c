"""DEAP individuals: flat genomes as numpy arrays with a fitness.

DEAP's ``creator`` can derive individuals from ``numpy.ndarray``, but it pickles
them as Python lists of numpy scalars, which makes a checkpoint of 200
networks hundreds of megabytes. ``Individual`` pickles as one array.
``cell_values`` records the values of open cells the individual was last
evaluated with, so a hall-of-fame member is saved with the values it played.
"""

from __future__ import annotations

import copy

import numpy as np
from deap import base


class FitnessMax(base.Fitness):
    """Mean final score: higher is better."""

    weights = (1.0,)


class Individual(np.ndarray):
    """A float64 genome with a ``fitness`` and the ``cell_values`` of its last evaluation."""

    fitness: FitnessMax
    cell_values: np.ndarray | None

    def __new__(cls, genome: np.ndarray) -> Individual:
        return np.array(genome, dtype=np.float64).view(cls)

    def __array_finalize__(self, obj: object) -> None:
        self.fitness = FitnessMax()
        self.cell_values = None

    def __deepcopy__(self, memo: dict) -> Individual:
        out = Individual(self)
        out.fitness = copy.deepcopy(self.fitness, memo)
        out.cell_values = None if self.cell_values is None else self.cell_values.copy()
        return out

    def __reduce__(self) -> tuple:
        return _restore, (np.asarray(self), self.fitness, self.cell_values)


def _restore(genome: np.ndarray, fitness: FitnessMax, cell_values: np.ndarray | None) -> Individual:
    out = Individual(genome)
    out.fitness = fitness
    out.cell_values = cell_values
    return out
