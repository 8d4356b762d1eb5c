"""What both neural player kinds share: running the network(s) of a batch's games.

A ``Forward`` maps (P, G, features) to (P, G, outputs): a ``Population`` of
stacked networks (``robo_players.neural.dense``), or an ONNX session. With ``P``
members (one row of ``cell_values`` each) a batch holds ``P * G`` games and
game ``g`` belongs to member ``g // G``; evolution plays every member on the
same dice streams.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from robo_players.neural.features import encode
from yamb.engine import GameBatch
from yamb.errors import YambError

Forward = Callable[[np.ndarray], np.ndarray]


def network_outputs(
    forward: Forward, batch: GameBatch, games: np.ndarray, cell_values: np.ndarray, with_dice: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Outputs of the networks that play ``games``, and the row of each game's outputs.

    One member sees only ``games`` (row i is ``games[i]``); a population sees the
    whole batch as one (P, G) block (row g is game g), so nothing is copied.
    """
    members = len(cell_values)
    if members == 1:
        return forward(encode(batch, games, cell_values, with_dice)[None])[0], np.arange(len(games))
    if batch.n_games % members:
        raise YambError(f"a batch of {batch.n_games} games cannot be split among {members} networks")
    x = encode(batch, None, cell_values, with_dice)
    out = forward(x.reshape(members, batch.n_games // members, -1))
    return out.reshape(batch.n_games, -1), games
