"""Fitting a guided network to the returns of play (``robo_players.training.returns``, ``yamb fit``).

The base search's value of a fill is checked against the exact single-column
solution (points earned + value after - value before), the recorded rows
against the same games replayed one at a time, the fit against data whose
per-cell means are known, and a whole run for legal play and reproducibility.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from expected_scores.free_column import solve_free_column
from robo_players.base import play
from robo_players.neural.build import neural_player
from robo_players.neural.features import encode, score_scale, table_size
from robo_players.neural.files import load_weights
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import Population
from robo_players.registry import make_player
from robo_players.search.column_exact import ColumnExactPlayer
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.explain import fill_values
from robo_players.training.returns import FitSettings, Returns, fit, improve, lambda_returns, record
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import N_NUMBER_ROWS, rules
from yamb_app.cli import main


def test_a_fills_base_value_is_the_exact_change_of_its_column() -> None:
    """yamb's free column with its last five collection rows open: for random tables and dice, the
    column player's value of filling each open collection row is what the exact solution says."""
    r = rules("yamb")
    lay = layout(r, ("free",))
    open_rows = [r.row_index(name) for name in ("two_pairs", "straight", "full_house", "carriage", "yamb")]
    full = (1 << r.n_rows) - 1
    solution = solve_free_column(r, full & ~sum(1 << k for k in open_rows))
    player = ColumnExactPlayer(lay, {"free": solution})
    rng = np.random.default_rng(5)
    n = 40
    batch = GameBatch(lay, n, seed=0)
    for g in range(n):
        still_open = [k for k in open_rows if rng.random() < 0.7] or open_rows[:1]
        batch.filled[g, 0, 0] = full & ~sum(1 << k for k in still_open)
        batch.cells[g, 0, 0, :N_NUMBER_ROWS] = rng.integers(0, 6, N_NUMBER_ROWS) * np.arange(1, 7)
        batch.cells[g, 0, 0, N_NUMBER_ROWS:] = [rng.integers(5, 31), rng.integers(5, 31), 20, 45, 50, 40, 60][
            : r.n_rows - N_NUMBER_ROWS]
        batch.cells[g, 0, 0, still_open] = 0
    batch.dice[:] = rng.integers(0, r.dice.n_multisets, n)
    games, fills = [], []
    for g in range(n):
        for k in open_rows:
            if not batch.filled[g, 0, 0] >> k & 1:
                games.append(g)
                fills.append(k)
    values = fill_values(player, batch, np.array(games), np.array(fills))
    mask, upper, aux = solution.state(batch.filled[:, 0, 0], batch.cells[:, 0, 0])
    for value, g, k in zip(values, games, fills):
        s = r.scores[batch.dice[g], k]
        after = solution.value(mask[g : g + 1] | 1 << k, upper[g : g + 1], aux[g : g + 1])[0]
        before = solution.value(mask[g : g + 1], upper[g : g + 1], aux[g : g + 1])[0]
        assert value == pytest.approx(s + after - before, abs=1e-9)
    assert len(games) > 60


def test_recorded_rows_are_those_of_each_game_replayed_alone() -> None:
    lay = layout(rules("yatzy"))
    player = ExpectimaxPlayer(lay)
    values = np.linspace(1, 20, lay.n_cells, dtype=np.float32)
    streams = np.arange(10, 16, dtype=np.uint64)
    returns, final = record(player, player, GameBatch(lay, len(streams), seed=3, streams=streams), values,
                            first_game=100)
    assert len(returns) == len(streams) * lay.n_cells
    for i, stream in enumerate(streams):
        alone = GameBatch(lay, 1, seed=3, streams=np.array([stream]))
        rows = np.flatnonzero(returns.game == 100 + i)
        seen = 0
        while not alone.done.all():
            before = float(alone.scores()[0, 0])
            action = int(player.act(alone, np.array([0]))[0])
            if action < lay.n_cells:
                row = rows[seen]
                assert returns.fills[row] == action
                assert returns.turn[row] == seen
                np.testing.assert_array_equal(returns.features[row], encode(alone, np.array([0]), values[None], False)[0])
                base = fill_values(player, alone, np.array([0]), np.array([action]))[0]
                seen += 1
                alone.step(np.array([action]), np.array([0]))
                assert returns.target[row] == pytest.approx(final[i] - before - base)
                continue
            alone.step(np.array([action]), np.array([0]))
        assert seen == lay.n_cells
        assert alone.scores()[0, 0] == final[i]


def test_the_fit_finds_each_cells_mean_return_over_a_shared_baseline() -> None:
    """Returns = a table-dependent baseline (large) + a per-cell offset (small) + noise: the fitted
    value outputs, differenced between cells, recover the offsets; the weight outputs are 0."""
    spec = NetSpec.for_layout("guided", layout(rules("yatzy")), (16,))
    cells = spec.layout().n_cells
    scale = score_scale(spec.layout())
    rng = np.random.default_rng(0)
    n = 60_000
    x = rng.random((n, table_size(spec.layout())), dtype=np.float32)
    fills = rng.integers(0, cells, n)
    offsets = rng.normal(0, 5, cells)
    target = 200 * x[:, 0] + 50 * x[:, 1] + offsets[fills] + rng.normal(0, 10, n)
    returns = Returns(x, fills, target, np.arange(n) // 10, np.zeros(n, dtype=np.int64), np.zeros(n))
    genome, predicted = fit(spec, returns, FitSettings(epochs=20, decay=0.0, seed=1), predictions=True)
    net = Population(spec.build(), genome[None])
    out = net(x[None, :2000])[0]
    d = out[:, :cells].mean(axis=0) * scale
    np.testing.assert_allclose(d - d.mean(), offsets - offsets.mean(), atol=1.0)
    assert not out[:, cells:].any()
    mean = 200 * x[:, 0] + 50 * x[:, 1] + offsets[fills]  # each row's expected return, which the fit returns
    assert np.sqrt(np.mean((predicted - mean) ** 2)) < 3.0 < np.sqrt(np.mean((target - mean) ** 2))


def test_improve_is_reproducible_and_plays_legally() -> None:
    lay = layout(rules("yatzy"))
    spec = NetSpec.for_layout("guided", lay, (4,), played=0.6)
    settings = FitSettings(epochs=1, seed=7)
    torch.set_num_threads(1)
    runs = [improve(spec, ExpectimaxPlayer(lay), 40, 2, settings) for _ in range(2)]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    other = improve(spec, ExpectimaxPlayer(lay), 40, 1, FitSettings(epochs=1, seed=8))
    assert not np.array_equal(other[0], runs[0][0])
    td = [improve(spec, ExpectimaxPlayer(lay), 40, 2, replace(settings, td_lambda=0.5))[0] for _ in range(2)]
    np.testing.assert_array_equal(td[0], td[1])
    assert not np.array_equal(td[0], runs[0][0])
    genome, cell_values, rounds = runs[0]
    assert [r.policy for r in rounds] == ["expectimax", "fitted-1"]
    player = neural_player(spec, Population(spec.build(), genome[None]), cell_values[None], "fitted")
    play(GameBatch(lay, 50, seed=1), [player], check=True)


def test_the_command_writes_a_player_and_its_verdict(tmp_path, capsys) -> None:
    out = tmp_path / "fitted.pt"
    code = main(["fit", "--preset", "yatzy", "--start", "expectimax", "--games", "60", "--rounds", "1",
                 "--epochs", "1", "--hidden", "4", "--check-games", "30", "--threads", "1", "--out", str(out)])
    assert code == 0
    said = capsys.readouterr().out
    assert "on 30 fresh games: fitted" in said and "expectimax" in said
    weights = load_weights(out)
    assert weights.spec.kind == "guided" and weights.spec.exact == ("free",) and weights.spec.hidden == (4,)
    player = make_player(str(out), layout(rules("yatzy")))
    play(GameBatch(layout(rules("yatzy")), 20, seed=2), [player], check=True)
    assert main(["fit", "--preset", "yatzy", "--games", "0", "--out", str(out)]) == 2
    assert main(["fit", "--preset", "yatzy", "--games", "5", "--out", str(tmp_path / "x.txt")]) == 2


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.8, 1.0])
def test_lambda_returns_are_the_forward_view_average_of_n_step_returns(lam: float) -> None:
    """The backward recursion equals the forward definition (Sutton and Barto, eq. 12.3): the
    weights (1 - lam) lam^(n-1) on the n-step returns ``y[t] - y[t+n] + q[t+n]`` and the rest on
    the whole return, for games of different lengths given in shuffled rows."""
    rng = np.random.default_rng(3)
    lengths = [1, 2, 5, 9]
    game = np.concatenate([np.full(n, g) for g, n in enumerate(lengths)])
    turn = np.concatenate([np.arange(n) for n in lengths])
    y, q = rng.normal(0, 50, len(game)), rng.normal(0, 50, len(game))
    shuffle = rng.permutation(len(game))
    returns = Returns(np.zeros((len(game), 1), np.float32), np.zeros(len(game), np.int64), y[shuffle],
                      game[shuffle], turn[shuffle], np.zeros(len(game)))
    got = lambda_returns(returns, q[shuffle], lam)
    start = 0
    for n in lengths:
        for t in range(n):
            i = start + t
            expected = sum((1 - lam) * lam ** (k - 1) * (y[i] - y[i + k] + q[i + k]) for k in range(1, n - t))
            expected += lam ** (n - t - 1) * y[i]
            assert got[np.flatnonzero(shuffle == i)[0]] == pytest.approx(expected, abs=1e-9)
        start += n
