"""Forks: new batches whose games continue games of another batch from where they stand."""

from __future__ import annotations

import numpy as np

from yamb.batch_arrays import STATE_ARRAYS
from yamb.engine import GameBatch


def fork(batch: GameBatch, games: np.ndarray, seed: int | None = None,
         streams: np.ndarray | None = None) -> GameBatch:
    """A batch whose game i is a copy of game ``games[i]`` of ``batch``.

    Its later dice come from ``seed`` and ``streams`` (default: the originals',
    so a fork rolls what the original would).
    """
    games = np.asarray(games, dtype=np.int64)
    out = GameBatch(batch.layout, len(games), seed=batch.seed if seed is None else seed,
                    streams=batch.streams[games] if streams is None else streams)
    for key in STATE_ARRAYS:
        getattr(out, key)[:] = getattr(batch, key)[games]
    return out
