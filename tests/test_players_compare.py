"""Comparing players: the same dice for every player, statistics, and the ``yamb compare`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robo_players.compare import mann_whitney_p, play_games, report, row_names, win_rate
from robo_players.greedy import GreedyPlayer
from robo_players.random_player import RandomPlayer
from robo_players.simulate import simulate
from yamb.layout import layout
from yamb.rules import rules


def yamb_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yamb", *args], capture_output=True, text=True, timeout=600)


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


def test_statistics_against_hand_counts() -> None:
    a = np.array([10, 20, 30, 40])
    b = np.array([15, 20, 25, 50])
    assert win_rate(a, b) == pytest.approx((0 + 0.5 + 1 + 0) / 4)
    assert win_rate(b, a) == pytest.approx(1 - win_rate(a, b))
    assert mann_whitney_p(a, a) == 1.0
    far = mann_whitney_p(np.arange(100), np.arange(100) + 1000)
    assert far < 1e-10


def test_report_is_keyed_by_player() -> None:
    lay = layout(rules("yatzy"))
    results = {"random": play_games(lay, RandomPlayer(), 50), "greedy": play_games(lay, GreedyPlayer(), 50)}
    out = report(lay, results)
    assert set(out) == {"random", "greedy"}
    assert out["greedy"]["mean"] == pytest.approx(results["greedy"].scores.mean())
    assert out["greedy"]["win_rate"]["random"] > 0.9
    assert out["greedy"]["mann_whitney_p"]["random"] < 1e-6
    assert set(out["greedy"]["rows"]) == set(row_names(lay))


def test_compare_command_json_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "scores.png"
    result = yamb_cli("compare", "greedy", "smart", "--preset", "yatzy", "--games", "40", "--seed", "3",
                      "--json", "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert list(out) == ["greedy", "smart"]
    for stats in out.values():
        assert {"mean", "std", "sem", "rows", "win_rate", "mann_whitney_p"} <= set(stats)
        assert stats["sem"] == pytest.approx(stats["std"] / np.sqrt(40))
    lay = layout(rules("yatzy"))
    assert out["greedy"]["mean"] == pytest.approx(simulate(lay, GreedyPlayer(), 40, seed=3).mean())
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["greedy", "nobody"], "unknown player 'nobody'"), (["greedy", "greedy"], "named more than once")],
)
def test_compare_bad_input_is_one_line(args: list[str], needle: str) -> None:
    result = yamb_cli("compare", *args, "--games", "10")
    assert result.returncode == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
