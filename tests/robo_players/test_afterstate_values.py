"""After-state values: the targets, the leaf's plumbing through the look-ahead, the fit's file and command."""

from __future__ import annotations

import numpy as np
import pytest

from robo_players.base import play
from robo_players.measure.compare import paired_difference, play_games
from robo_players.measure.luck import luck_reference
from robo_players.measure.simulate import simulate
from robo_players.neural.guided import base_search, feature_cell_values, solved_kinds
from robo_players.registry import make_player
from robo_players.search.lookahead import LookaheadPlayer
from robo_players.search.row_means import DEFAULT_PLAYED
from robo_players.training.afterstates import afterstate_lambda_targets, afterstate_targets
from robo_players.training.returns import Returns, record
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main


def test_the_targets_sum_each_turns_and_its_games_later_base_values() -> None:
    rng = np.random.default_rng(0)
    lengths = [5, 1, 8, 3]
    game = np.concatenate([np.full(n, g) for g, n in enumerate(lengths)])
    turn = np.concatenate([rng.permutation(20)[:n] for n in lengths])  # any increasing count of filled cells
    base = rng.normal(0, 10, len(game))
    shuffle = rng.permutation(len(game))
    returns = Returns(np.zeros((len(game), 1), np.float32), np.zeros(len(game), np.int64), np.zeros(len(game)),
                      game[shuffle], turn[shuffle], base[shuffle])
    got = afterstate_targets(returns)
    for i in range(len(game)):  # brute force: this fill's and every later fill's of its game
        later = (returns.game == returns.game[i]) & (returns.turn >= returns.turn[i])
        assert got[i] == pytest.approx(returns.base[later].sum(), abs=1e-9)


@pytest.mark.parametrize("lam", [0.0, 0.8, 1.0])
def test_the_lambda_targets_mix_a_turns_value_the_next_prediction_and_the_next_return(lam: float) -> None:
    rng = np.random.default_rng(1)
    lengths = [4, 1, 6]
    game = np.concatenate([np.full(n, g) for g, n in enumerate(lengths)])
    turn = np.concatenate([np.sort(rng.permutation(30)[:n]) for n in lengths])
    base, predicted = rng.normal(0, 10, len(game)), rng.normal(50, 20, len(game))
    shuffle = rng.permutation(len(game))
    returns = Returns(np.zeros((len(game), 1), np.float32), np.zeros(len(game), np.int64), np.zeros(len(game)),
                      game[shuffle], turn[shuffle], base[shuffle])
    got = afterstate_lambda_targets(returns, predicted[shuffle], lam)
    expected = np.empty(len(game))  # brute force, each game from its last turn back, in the unshuffled order
    for i in range(len(game) - 1, -1, -1):
        last = i + 1 == len(game) or game[i + 1] != game[i]
        expected[i] = base[i] + (0.0 if last else (1 - lam) * predicted[i + 1] + lam * expected[i + 1])
    assert got == pytest.approx(expected[shuffle], abs=1e-9)
    if lam == 1.0:
        assert got == pytest.approx(afterstate_targets(returns), abs=1e-9)


@pytest.mark.parametrize("preset", ["yamb", "jamb6"])
def test_the_base_values_of_a_game_add_up_to_its_score_less_a_constant(preset: str) -> None:
    """What the targets rest on: the base search's values of a game's fills telescope (the estimate of a
    full table is its score), so the first turn's target is the final score less one constant."""
    lay = layout(rules(preset))
    base = base_search(lay, DEFAULT_PLAYED, solved_kinds(lay))
    returns, final = record(base, base, GameBatch(lay, 40, seed=3), feature_cell_values(lay))
    first = afterstate_targets(returns)[returns.turn == 0]
    rest = final[returns.game[returns.turn == 0]] - first
    assert rest.std() < 0.05 * final.std()  # the estimate's few approximations, against a spread of ~80 points


@pytest.mark.parametrize("leaf", [lambda tables: np.zeros(tables.n_games), lambda tables: np.full(tables.n_games, 37.5)])
def test_a_leaf_that_values_every_next_table_alike_plays_as_the_base_search(leaf) -> None:
    lay = layout(rules("yamb"))
    base = base_search(lay, DEFAULT_PLAYED, solved_kinds(lay))
    ahead = LookaheadPlayer(base, lay, leaf=leaf)
    assert np.array_equal(simulate(lay, ahead, 12, seed=5), simulate(lay, base, 12, seed=5))


def test_a_leaf_that_favours_tables_changes_the_play() -> None:
    lay = layout(rules("yamb"))
    base = base_search(lay, DEFAULT_PLAYED, solved_kinds(lay))
    ahead = LookaheadPlayer(base, lay, leaf=lambda tables: 30.0 * tables.filled[:, 0, 0].astype(np.float64) / 8191)
    assert not np.array_equal(simulate(lay, ahead, 12, seed=5), simulate(lay, base, 12, seed=5))
    with pytest.raises(YambError, match="2 turns, not 3"):
        LookaheadPlayer(base, lay, turns=3, leaf=lambda tables: np.zeros(tables.n_games))


def test_fit_afterstates_writes_a_file_that_plays_its_table_only(tmp_path, capsys) -> None:
    path = tmp_path / "after.npz"
    assert main(["fit-afterstates", "--preset", "yamb", "--games", "30", "--rounds", "2", "--hidden", "8",
                 "--epochs", "2", "--refits", "2", "--check-games", "10", "--out", str(path)]) == 0
    assert "on 10 fresh games: fitted" in capsys.readouterr().out
    lay = layout(rules("yamb"))
    player = make_player(str(path), lay)
    assert player.name == "after"
    assert play(GameBatch(lay, 3, seed=1), [player]).shape == (3, 1)
    with pytest.raises(YambError, match="an after-state network for yamb"):
        make_player(str(path), layout(rules("jamb6")))


@pytest.mark.parametrize(("argv", "message"), [
    (["--out", "after.pt"], "a values file is written as .npz, not .pt"),
    (["--columns", "free,nowhere", "--out", "after.npz"], "nowhere"),
    (["--start", "nobody", "--out", "after.npz"], "unknown player 'nobody'"),
    (["--td-lambda", "1", "--refits", "2", "--out", "after.npz"], "give --td-lambda below 1 with it"),
    (["--refits", "0", "--out", "after.npz"], "--refits"),
])
def test_fit_afterstates_refuses_bad_input_in_one_line(tmp_path, capsys, argv: list[str], message: str) -> None:
    argv = [a if not a.startswith("after") else str(tmp_path / a) for a in argv]
    assert main(["fit-afterstates", "--preset", "yamb", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


@pytest.mark.slow
@pytest.mark.benchmark
def test_the_shipped_yamb_values_beat_best_on_the_same_dice() -> None:
    """yamb's ``best-values`` (after-state values) was shipped for beating ``best``: on 4,000 games
    of dice no fit or measurement used, paired and less the luck of the dice, by more than three
    standard errors."""
    lay = layout(rules("yamb"))
    luck = luck_reference("best", lay)
    values, best = (play_games(lay, make_player(name, lay), 4000, seed=31, luck=luck) for name in ("best-values", "best"))
    diff = paired_difference(values.adjusted, best.adjusted)
    assert diff["mean"] > 3 * diff["sem"], diff
