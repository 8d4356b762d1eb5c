"""The player interface and the loop that plays batches of games with players."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from yamb.engine import GameBatch


class Player(Protocol):
    """Chooses one action (see ``yamb.layout``) for each of the given games.

    ``act`` sees the whole batch and the indices ``games`` of the games it must
    decide, all of which are not done and have this player to move.
    """

    name: str

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray: ...


def play(batch: GameBatch, seats: list[Player], check: bool = True) -> np.ndarray:
    """Play every game of ``batch`` to the end; ``seats[p]`` moves for player p.

    Returns the final scores, shape (N, P).
    """
    if len(seats) != batch.layout.players:
        raise ValueError(f"{len(seats)} players for a table of {batch.layout.players}")
    while not batch.done.all():
        for p, player in enumerate(seats):
            games = np.flatnonzero(~batch.done & (batch.player == p))
            if len(games):
                batch.step(player.act(batch, games), games, check=check)
    return batch.scores()
