"""A search player's cell values (``robo_players.search.explain``) are the ones it chooses by.

After the last roll of a turn with nothing announced, expectimax and the
players built on its search fill the legal cell worth the most: the cell whose
value ``open_cell_values`` reports highest must be the cell they fill.
"""

from __future__ import annotations

import numpy as np
import pytest

from robo_players.registry import make_player
from robo_players.search.explain import open_cell_values
from yamb.game import Game


@pytest.mark.parametrize("preset,name", [("yamb", "best"), ("yahtzee", "best"), ("yatzy", "expectimax-played"),
                                         ("yatzy", "expectimax+lookahead"),
                                         pytest.param("yamb", "best+lookahead", marks=pytest.mark.slow)])
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


def test_look_ahead_values_add_the_next_turns_value_of_each_fill():
    """The look-ahead's value of a fill is the one-turn value plus the next turn's from the table it
    leaves: that next value differs between cells early in a yatzy game, and is 0 on the last turn
    (one open cell: nothing comes after)."""
    game = Game("yatzy", seed=4)
    base = make_player("expectimax", game.layout)
    ahead = make_player("expectimax+lookahead", game.layout)
    seen_last = False
    while not game.is_over():
        if game.rolls_left == 0:
            one, two = open_cell_values(base, game), open_cell_values(ahead, game)
            assert one.keys() == two.keys()
            gain = np.array([two[c] - one[c] for c in one])
            if len(one) == 1:
                assert gain[0] == pytest.approx(0.0, abs=1e-9)
                seen_last = True
            elif len(one) >= 10:
                assert np.ptp(gain) > 1.0
        game.apply(int(ahead.act(game.batch, np.array([0]))[0]))
    assert seen_last


def test_players_without_values_give_none():
    game = Game("yatzy", seed=1)
    assert open_cell_values(make_player("greedy", game.layout), game) is None
