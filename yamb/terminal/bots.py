"""Which bot sits at the table: the one place a ``--bot`` value becomes a player."""

from __future__ import annotations

from robo_players.base import Player
from robo_players.registry import PLAYERS, make_player
from yamb.layout import Layout

# Strongest first: the default bot is the first of these that the registry has.
PREFERRED_BOTS = ("best", "expectimax", "smart", "greedy", "random")


def default_bot() -> str:
    """Name of the strongest registered bot."""
    return next(name for name in PREFERRED_BOTS if name in PLAYERS)


def load_bot(spec: str, layout: Layout) -> Player:
    """The bot named ``spec`` in the registry, or stored in the weights file ``spec``, for ``layout``."""
    return make_player(spec, layout)
