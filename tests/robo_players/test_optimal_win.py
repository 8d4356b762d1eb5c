"""``optimal-reach@T`` and ``optimal-win`` against brute force over every roll of small endgames."""

from __future__ import annotations

import numpy as np
import pytest

import yamb
from expected_scores.distributions import endgame_tables
from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import solve_solitaire
from robo_players.optimal_win import ReachPlayer, WinPlayer
from robo_players.registry import make_player, players_for
from tests.endgames import BruteForce, start_batch
from yamb.errors import YambError
from yamb.layout import layout

FILLED = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "one_pair": 8, "two_pairs": 14,
          "three_of_a_kind": 9, "four_of_a_kind": 0, "small_straight": 15, "large_straight": 0,
          "full_house": 18, "chance": 22}  # yatzy: sixes and yatzy open, the bonus needs 18 sixes


def _sheet(rules, written: dict) -> tuple:
    return tuple(written.get(row) for row in rules.rows)


def _filled(rules, written: dict) -> int:
    return sum(1 << rules.row_index(row) for row in written)


@pytest.mark.parametrize("target", [60, 95, 120])
def test_reach_player_reaches_as_often_as_the_tables_say(target):
    rules = yamb.rules("yatzy")
    cells = _sheet(rules, FILLED)
    solution = solve_solitaire(rules, _filled(rules, FILLED))
    tables = endgame_tables(rules, _filled(rules, FILLED))
    lay = layout(rules)
    earned = int(start_batch(lay, cells, 1).scores()[0, 0])
    player = ReachPlayer(solution, tables, earned + target)
    played = BruteForce(lay, player, most=earned + 200).dist(cells, 0)[earned + target:].sum()
    best = BruteForce(lay, player, most=0).best(cells, 0, lambda total: [total >= earned + target])[0]
    s = tables.state(_filled(rules, FILLED), 45)
    assert played == pytest.approx(best, abs=1e-12)
    assert float(tables.chances(s, target)) == pytest.approx(best, abs=1e-12)
    optimal = BruteForce(lay, SolvedPlayer(solution), most=earned + 200).dist(cells, 0)[earned + target:].sum()
    assert played >= optimal - 1e-12


@pytest.mark.parametrize("by_reach", [False, True])
@pytest.mark.parametrize(("mine", "theirs"), [
    ({"yatzy": 0}, {"sixes": 18, "yatzy": 0}),  # my last turn, the other done: 3 points behind, the bonus decides
    ({"yatzy": 50}, {"sixes": 12}),  # my last turn, the other's to come: its optimal play's distribution
    ({}, {"sixes": 18, "yatzy": 0}),  # two turns to go
])
def test_win_player_against_the_best_chance_of_winning(by_reach, mine, theirs):
    rules = yamb.rules("yatzy")
    me, other = {**FILLED, **mine}, {**FILLED, "chance": 25, **theirs}
    filled = _filled(rules, me) & _filled(rules, other)
    solution = solve_solitaire(rules, filled)
    tables = endgame_tables(rules, filled)
    lay, alone = layout(rules, players=2), layout(rules)
    cells, their_cells = _sheet(rules, me), _sheet(rules, other)
    their_final = BruteForce(alone, SolvedPlayer(solution), most=400).dist(their_cells, 0)
    below = np.concatenate([[0.0], np.cumsum(their_final)[:-1]])
    share = below + 0.5 * their_final  # of each final total of mine

    def wins(player) -> float:
        return float(BruteForce(lay, player, most=400, others=(their_cells,)).dist(cells, 0) @ share)

    played = wins(WinPlayer(solution, tables, by_reach))
    best = BruteForce(lay, None, most=400).best(cells, 0, lambda total: [share[total]])[0]
    optimal = wins(SolvedPlayer(solution))
    assert optimal - 1e-12 <= played <= best + 1e-12
    if len(mine) == 1:  # the last turn: exact
        assert played == pytest.approx(best, abs=1e-12)


def test_registry():
    yatzy = layout(yamb.rules("yatzy"), players=3)
    assert "optimal-win" in players_for(yatzy)
    assert "optimal-win" not in players_for(layout(yamb.rules("yamb")))
    with pytest.raises(YambError, match="alone"):
        make_player("optimal-reach@300", yatzy)
    with pytest.raises(YambError, match="score tables"):
        make_player("optimal-reach@300", layout(yamb.rules("yamb"), columns=["free"]))
