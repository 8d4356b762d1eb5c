"""What the loop asks of an ask/tell strategy (``Strategy``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class Strategy(Protocol):
    """What the loop asks of a strategy (DEAP's ``cma.Strategy`` interface): ``generate`` a
    population, ``update`` from it once its fitnesses are set; ``centroid``, its mean, may be
    read (the final check's candidate) and set (put back on an incumbent)."""

    centroid: np.ndarray

    def generate(self, ind_init: Callable[[np.ndarray], object]) -> list: ...

    def update(self, population: list) -> None: ...
