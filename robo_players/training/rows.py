"""Recorded rows: a dataclass of arrays of equal length, one row per record (a decision, a fill).

``Demonstrations`` (imitation) and ``Returns`` (policy iteration) keep what
they record this way; this base gives them their length, a subset of rows and
the concatenation of recorded parts.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Self

import numpy as np


class Rows:
    """A dataclass whose fields are arrays with one row per record."""

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))

    def take(self, rows: np.ndarray) -> Self:
        """The records ``rows``, in that order."""
        return type(self)(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    @classmethod
    def concatenate(cls, parts: list[Self]) -> Self:
        """The records of ``parts``, one after another."""
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})
