"""Matches: win shares with ties, seat rotation on the same dice, and ``yamb match``."""

from __future__ import annotations

import json

import numpy as np

import yamb
from robo_players.greedy import GreedyPlayer
from robo_players.measure.match import match_report, play_match, seat_names, win_shares
from robo_players.smart import SmartPlayer
from yamb.layout import layout
from yamb_app.cli import main


def test_win_shares_split_ties():
    scores = np.array([[10, 12, 12], [5, 3, 1], [7, 7, 7]])
    want = np.array([[0, 0.5, 0.5], [1, 0, 0], [1 / 3, 1 / 3, 1 / 3]])
    assert np.array_equal(win_shares(scores), want)


def test_rotation_makes_a_player_against_itself_even():
    lay = layout(yamb.rules("yatzy"), players=2)
    results = play_match(lay, {"a": GreedyPlayer(), "b": GreedyPlayer()}, 40, seed=3, batch_size=16)
    assert np.array_equal(results.wins[:, 0], np.full(40, 0.5))
    assert np.array_equal(results.scores[:, 0], results.scores[:, 1])


def test_three_players_every_seat():
    lay = layout(yamb.rules("yatzy"), players=3)
    results = play_match(lay, {"g": GreedyPlayer(), "s": SmartPlayer(), "h": GreedyPlayer()}, 30, seed=5)
    assert np.allclose(results.wins.sum(axis=1), 1.0)
    report = match_report(results)
    assert report["players"]["s"]["win_share"] > 1 / 3  # smart wins more than its share against two greedy
    assert report["win_difference"]["s"]["g"]["mean"] > 0


def test_progress_counts_each_batchs_games_as_its_turns_go_by():
    """Within a batch the games are said as its slowest game's turns go by (a long batch is not silent to
    its end), every game exactly once, the same results as without progress."""
    lay = layout(yamb.rules("yatzy"), players=2)
    steps: list[int] = []
    players = {"g": GreedyPlayer(), "s": SmartPlayer()}
    results = play_match(lay, players, 30, seed=4, batch_size=20, progress=steps.append)
    assert sum(steps) == 30 * 2 and all(step > 0 for step in steps)
    assert len(steps) >= 2 * 15  # each of the 4 batches (2 rotations x 20 and 10 deals) said over its 30 turns
    quiet = play_match(lay, players, 30, seed=4, batch_size=20)
    assert np.array_equal(results.wins, quiet.wins) and np.array_equal(results.scores, quiet.scores)


def test_cli(capsys):
    assert main(["match", "random", "greedy", "--preset", "yatzy", "--games", "20", "--seed", "9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    shares = [out["players"][n]["win_share"] for n in ("random", "greedy")]
    assert abs(sum(shares) - 1) < 1e-12 and shares[1] > shares[0]
    assert {"win_share", "win_share_sem", "mean"} <= set(out["players"]["greedy"])
    assert main(["match", "greedy", "--preset", "yatzy"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_name_given_again_takes_another_seat(capsys):
    assert seat_names(["optimal-win", "optimal", "optimal"]) == ["optimal-win", "optimal", "optimal #2"]
    assert seat_names(["a #2", "a", "a"]) == ["a #2", "a", "a #3"]
    assert main(["match", "greedy", "greedy", "greedy", "--preset", "yatzy", "--games", "12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["players"]
    assert list(out) == ["greedy", "greedy #2", "greedy #3"]
    for r in out.values():  # the same player in every seat on the same dice: a third of every deal each
        assert abs(r["win_share"] - 1 / 3) < 1e-12 and r["win_share_sem"] < 1e-12
