"""Play many solitaire games with one player, in batches, reproducibly."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from robo_players.base import Player, play
from yamb.engine import GameBatch
from yamb.layout import Layout

DEFAULT_BATCH = 20_000


def simulate(
    layout: Layout,
    player: Player,
    games: int,
    seed: int = 0,
    batch_size: int = DEFAULT_BATCH,
    first_stream: int = 0,
    check: bool = True,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Final scores of ``games`` solitaire games; game i plays dice stream ``first_stream + i``.

    The result does not depend on ``batch_size``.
    """
    scores = np.empty(games, dtype=np.int64)
    for start in range(0, games, batch_size):
        n = min(batch_size, games - start)
        streams = np.arange(first_stream + start, first_stream + start + n, dtype=np.uint64)
        batch = GameBatch(layout, n, seed=seed, streams=streams)
        scores[start : start + n] = play(batch, [player], check=check, progress=progress)[:, 0]
    return scores


def summary(scores: np.ndarray) -> dict[str, float]:
    """Mean, spread and percentiles of final scores."""
    scores = np.asarray(scores, dtype=np.float64)
    n = len(scores)
    std = float(scores.std(ddof=1)) if n > 1 else 0.0
    out = {
        "games": n,
        "mean": float(scores.mean()),
        "std": std,
        "sem": std / np.sqrt(n) if n else float("nan"),
        "min": float(scores.min()),
        "max": float(scores.max()),
    }
    for q in (5, 25, 50, 75, 95):
        out[f"p{q}"] = float(np.percentile(scores, q))
    return out
