"""A search player's cell values (``robo_players.explain``) are the ones it chooses by.

After the last roll of a turn with nothing announced, expectimax and the
players built on its search fill the legal cell worth the most: the cell whose
value ``open_cell_values`` reports highest must be the cell they fill.
"""

from __future__ import annotations

import numpy as np
import pytest

from robo_players.explain import open_cell_values
from robo_players.registry import make_player
from yamb.game import Game


@pytest.mark.parametrize("preset,name", [("yamb", "best"), ("yahtzee", "best"), ("yatzy", "expectimax-played")])
def test_the_last_rolls_fill_is_the_most_valued_legal_cell(preset, name):
    game = Game(preset, seed=21)
    player = make_player(name, game.layout)
    checked = 0
    while not game.is_over():
        action = int(player.act(game.batch, np.array([0]))[0])
        if action < game.layout.n_cells and game.rolls_left == 0 and game.announced is None:
            values = open_cell_values(player, game)
            legal = game.legal_cells()
            assert set(legal) <= set(values)
            assert max(legal, key=values.__getitem__) == game.cell_of(action)
            checked += 1
        game.apply(action)
    assert checked >= 5
    assert open_cell_values(player, game) is None  # over


def test_players_without_values_give_none():
    game = Game("yatzy", seed=1)
    assert open_cell_values(make_player("greedy", game.layout), game) is None
