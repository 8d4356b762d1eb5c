"""After-state values: a network's value of the table a fill leaves, as the one-turn search's leaf.

The look-ahead (``robo_players.search.lookahead``) values an ending of the turn at
``V(T, c, h) + N(T')``: the base search's value of the fill (the change it makes
to the estimated final total ``E``) plus ``N``, what the rest of the game adds to
the estimate of the table ``T'`` it leaves. The look-ahead reckons ``N`` by
planning the next turn; here a network ``U`` (a ``ValueNet`` of kind
``afterstate``) gives it for the whole rest of the game: ``U(T') = E[final] -
E(T')``, the same currency, so ``V + U`` is the expected final score of the
ending less the estimate of the table now.

``U`` is fitted to the returns of play (``robo_players.training.afterstates``):
the base search, the rules and the games go in. The base search is the
solver's where it can be: ``expectimax-columns-played`` values the free, down
and up columns by their exact one-column solutions (``guided.base_search``);
no solution of the whole table is used.
"""

from __future__ import annotations

import numpy as np

from robo_players.neural.features import encode
from robo_players.neural.guided import base_search, feature_cell_values
from robo_players.neural.value_nets import ValueNet, ValuesFileError, ValueSpec, value_function
from robo_players.search.lookahead import LookaheadPlayer, NextTables
from yamb.layout import Layout
from yamb.table import Table


def afterstate_player(net: ValueNet, spec: ValueSpec, layout: Layout, name: str) -> LookaheadPlayer:
    """The base search of ``spec`` whose endings add the network's value of the table they leave."""
    table = Table.of(layout).solo
    if table != spec.table:
        raise ValuesFileError(f"{name}: an after-state network for {spec.table.describe()}, not for "
                              f"{table.describe()}")
    values = feature_cell_values(layout)[None]

    value = value_function(net)  # the weights read once, not at every decision

    def leaf(tables: NextTables) -> np.ndarray:
        return value(encode(tables, np.arange(tables.n_games), values, False))  # type: ignore[arg-type]

    player = LookaheadPlayer(base_search(layout, spec.played, spec.exact), layout, leaf=leaf)
    player.name = name
    return player
