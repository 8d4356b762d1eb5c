"""A game's decisions replayed into one batch: decision ``i`` (before action ``i``) in game ``i``.

Every copy plays the same seed and stream, so all of them roll the dice the game rolled;
``decision_batch`` steps copy ``i`` through the first ``i`` actions, one engine step per
action for the copies still behind, so the coach values every decision in one batch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yamb.engine import GameBatch
from yamb.game import Game


class Decisions(NamedTuple):
    """The positions of a game's decisions: ``batch`` game ``i`` stands before ``actions[i]``."""

    batch: GameBatch
    actions: np.ndarray  # (D,) int64 the action taken at each decision
    player: np.ndarray  # (D,) int64 the player who took it
    turn: np.ndarray  # (D,) int64 the game's turn (all players together) it was taken in
    roll: np.ndarray  # (D,) int64 the rolls made in that turn before it


def decision_batch(game: Game) -> Decisions:
    """Every decision of ``game`` (its actions so far) as one batch of positions."""
    actions = np.asarray(game.history, dtype=np.int64)
    n = len(actions)
    batch = GameBatch(game.layout, n, seed=game.seed, streams=np.full(n, game.stream, dtype=np.uint64))
    for i in range(n - 1):
        batch.step(np.full(n - 1 - i, actions[i]), np.arange(i + 1, n), check=False)
    return Decisions(batch, actions, batch.player.astype(np.int64), batch.turn.astype(np.int64),
                     batch.roll.astype(np.int64))
