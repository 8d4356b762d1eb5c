"""Comparing players: the same dice for every player, statistics, and the ``yamb compare`` command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robo_players.base import play
from robo_players.greedy import GreedyPlayer
from robo_players.measure.compare import mann_whitney_p, paired_difference, play_games, report, row_names, win_rate
from robo_players.measure.luck import LuckCounter
from robo_players.measure.simulate import simulate
from robo_players.random_player import RandomPlayer
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main


def yamb_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the ``yamb`` program in this process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_games_matches_simulate_and_its_rows_add_up() -> None:
    lay = layout(rules("yamb"))
    res = play_games(lay, GreedyPlayer(), 60, seed=5, batch_size=25)
    assert (res.scores == simulate(lay, GreedyPlayer(), 60, seed=5)).all()
    names = row_names(lay)
    computed = [names.index(k) for k in ("numbers_sum", "difference", "collections_sum")]
    assert np.allclose(res.rows[:, computed].sum(axis=1), res.scores)
    numbers = res.rows[:, :6].sum(axis=1)
    bonus = res.rows[:, names.index("numbers_sum")] - numbers
    assert set(np.unique(bonus)) <= {0, 30, 60, 90, 120}  # 30 per column reaching 60


def test_simulate_and_play_games_say_each_batchs_games_as_its_turns_go_by() -> None:
    """A batch is not silent to its end: its games are said in steps as its slowest game's turns go by,
    every game exactly once, with the same scores as without progress."""
    lay = layout(rules("yatzy"))
    for run in (simulate, play_games):
        steps: list[int] = []
        said = run(lay, GreedyPlayer(), 50, seed=6, batch_size=40, progress=steps.append)
        quiet = run(lay, GreedyPlayer(), 50, seed=6, batch_size=40)
        assert sum(steps) == 50 and all(step > 0 for step in steps), (run, steps)
        assert len(steps) >= 15 + 10, (run, steps)  # the batch of 40 over its 15 turns, then the batch of 10
        scores = (said, quiet) if run is simulate else (said.scores, quiet.scores)
        assert np.array_equal(*scores)


def test_statistics_against_hand_counts() -> None:
    a = np.array([10, 20, 30, 40])
    b = np.array([15, 20, 25, 50])
    assert win_rate(a, b) == pytest.approx((0 + 0.5 + 1 + 0) / 4)
    assert win_rate(b, a) == pytest.approx(1 - win_rate(a, b))
    assert mann_whitney_p(a, a) == 1.0
    far = mann_whitney_p(np.arange(100), np.arange(100) + 1000)
    assert far < 1e-10
    diff = paired_difference(a, b)  # differences -5, 0, 5, -10: mean -2.5, variance 125 / 3, sem sd / 2
    assert diff["mean"] == pytest.approx(-2.5)
    assert diff["sem"] == pytest.approx(np.sqrt(125 / 3) / 2)


def test_report_is_keyed_by_player() -> None:
    lay = layout(rules("yatzy"))
    results = {"random": play_games(lay, RandomPlayer(), 50), "greedy": play_games(lay, GreedyPlayer(), 50)}
    out = report(lay, results)
    assert set(out) == {"random", "greedy"}
    assert out["greedy"]["mean"] == pytest.approx(results["greedy"].scores.mean())
    assert out["greedy"]["win_rate"]["random"] > 0.9
    assert out["greedy"]["mann_whitney_p"]["random"] < 1e-6
    gap = results["greedy"].scores - results["random"].scores
    assert out["greedy"]["difference"]["random"]["mean"] == pytest.approx(gap.mean())
    assert out["random"]["difference"]["greedy"]["mean"] == pytest.approx(-gap.mean())
    assert set(out["greedy"]["rows"]) == set(row_names(lay))


def test_compare_command_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "scores.png"
    code, stdout, stderr = yamb_cli(capsys, "compare", "greedy", "smart", "--preset", "yatzy", "--games", "40",
                                    "--seed", "3", "--json", "--plot", str(plot))
    assert code == 0, stderr
    out = json.loads(stdout)
    assert list(out) == ["greedy", "smart"]
    for stats in out.values():
        assert {"mean", "std", "sem", "rows", "win_rate", "mann_whitney_p"} <= set(stats)
        assert stats["sem"] == pytest.approx(stats["std"] / np.sqrt(40))
    lay = layout(rules("yatzy"))
    assert out["greedy"]["mean"] == pytest.approx(simulate(lay, GreedyPlayer(), 40, seed=3).mean())
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["greedy", "nobody"], "unknown player 'nobody'"), (["greedy", "greedy"], "named more than once"),
     (["greedy", "--luck", "smart"], "valued by a search player"), (["greedy", "--luck", "nobody"], "unknown player")],
)
def test_compare_bad_input_is_one_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = yamb_cli(capsys, "compare", *args, "--games", "10")
    assert code == 2
    assert needle in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_compare_command_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, stderr = yamb_cli(capsys, "compare", "random", "greedy", "--preset", "yahtzee", "--games", "20")
    assert code == 0, stderr
    for title in ("mean score of each row", "head to head", "Mann-Whitney U p-value", "numbers_sum", "chance"):
        assert title in stdout


def test_compare_with_luck_adds_adjusted_scores_that_are_the_scores_less_each_games_luck(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--luck``: the raw figures unchanged, and beside them the scores less each game's luck
    (counted here again by a ``LuckCounter``), with their paired differences."""
    code, stdout, stderr = yamb_cli(capsys, "compare", "expectimax", "greedy", "--preset", "yatzy", "--games", "30",
                                    "--seed", "2", "--luck", "expectimax", "--json")
    assert code == 0, stderr
    out = json.loads(stdout)
    lay = layout(rules("yatzy"))
    adjusted = {}
    for name, player in (("expectimax", ExpectimaxPlayer(lay)), ("greedy", GreedyPlayer())):
        batch = GameBatch(lay, 30, seed=2)
        counter = LuckCounter(player, ExpectimaxPlayer(lay), batch)
        scores = play(batch, [counter])[:, 0]
        assert out[name]["mean"] == pytest.approx(scores.mean())
        adjusted[name] = scores - counter.luck[:, 0]
        assert out[name]["adjusted"]["mean"] == pytest.approx(adjusted[name].mean())
        assert out[name]["adjusted"]["std"] < out[name]["std"]
    gap = adjusted["expectimax"] - adjusted["greedy"]
    assert out["expectimax"]["adjusted_difference"]["greedy"]["mean"] == pytest.approx(gap.mean())
    code, stdout, _ = yamb_cli(capsys, "compare", "expectimax", "greedy", "--preset", "yatzy", "--games", "10",
                               "--luck", "expectimax")
    assert code == 0
    assert "luck-adjusted" in stdout


def test_the_exported_compare_plays_each_player_on_the_same_dice_as_simulate() -> None:
    """``robo_players.compare`` (what ``yamb compare --json`` reports) against each player simulated
    alone on the same seed: the same means, and the paired difference of those scores."""
    import robo_players

    lay = layout(rules("yatzy"))
    report = robo_players.compare(lay, ["greedy", "smart"], 60, seed=8)
    alone = {name: robo_players.simulate(lay, robo_players.make_player(name, lay), 60, seed=8)
             for name in ("greedy", "smart")}
    assert report["smart"]["mean"] == pytest.approx(alone["smart"].mean())
    assert report["greedy"]["mean"] == pytest.approx(alone["greedy"].mean())
    diff = alone["smart"] - alone["greedy"]
    assert report["smart"]["difference"]["greedy"]["mean"] == pytest.approx(diff.mean())
