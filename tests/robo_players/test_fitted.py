"""The fitted models: the standard tables' shipped, any other fitted once and cached, a damaged copy fitted again."""

import re

import numpy as np
import pytest

import yamb
from robo_players import fitted
from robo_players.best_win import best_win_player, fit_cells
from robo_players.coach import spread as spread_module
from robo_players.coach.values import make_coach
from yamb.layout import layout

PRESETS = ("yamb", "jamb6", "yatzy", "yahtzee")
LOOKING_AHEAD = ("yamb", "jamb6")  # best-win+lookahead's model shipped too (scripts/fit_models.py)


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("YAMB_CACHE", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("preset", PRESETS)
def test_the_standard_tables_models_are_shipped(preset, tmp_path, monkeypatch):
    """Nothing is fitted for a standard table, nor read from a cache: each model's name is one the package
    holds."""
    monkeypatch.setattr(fitted, "cache_dir", lambda: tmp_path)  # the fitted models' cache empty, the solutions'
    monkeypatch.setattr(spread_module, "fit_spread", lambda *args, **kwargs: pytest.fail("the spread was fitted"))
    monkeypatch.setattr("robo_players.best_win.fit_cells", lambda *args, **kwargs: pytest.fail("the cells were fitted"))
    alone = layout(yamb.rules(preset))
    spread = spread_module.spread_for(make_coach(alone), alone)
    assert spread.games == spread_module.FIT_GAMES and (spread.spread[1:] > 0).all()
    model = best_win_player(layout(yamb.rules(preset), players=2)).model
    assert model.mean.shape == (alone.n_cells + 1, alone.n_columns, alone.n_rows)
    if preset in LOOKING_AHEAD:
        two = layout(yamb.rules(preset), players=2)
        ahead = best_win_player(two).looking_ahead(two, 2, float("inf")).model
        assert ahead.mean.shape == model.mean.shape and not np.array_equal(ahead.ending, model.ending)


def test_another_table_is_fitted_once_and_a_damaged_copy_again(empty_cache, monkeypatch, capsys):
    calls = []

    def fit(say):
        calls.append(1)
        return {"x": np.arange(3.0)}

    first = fitted.fitted_arrays("toy-model", fit, "a toy")
    assert np.array_equal(first["x"], np.arange(3.0)) and len(calls) == 1
    assert "fitting a toy, once" in capsys.readouterr().err
    assert np.array_equal(fitted.fitted_arrays("toy-model", fit, "a toy")["x"], first["x"]) and len(calls) == 1
    path = empty_cache / "toy-model.npz"
    path.write_bytes(path.read_bytes()[:40])  # cut short
    assert np.array_equal(fitted.fitted_arrays("toy-model", fit, "a toy")["x"], first["x"]) and len(calls) == 2


def test_a_fit_says_its_progress_from_its_first_step(empty_cache, monkeypatch, capsys):
    """The notice first, then each step the fit says (at most every ``PROGRESS_SECONDS``), with the seconds
    since the fit began; a fit of the cells says each turn of its games, in order, to the last."""
    def fit(say):
        for step in ("turn 1 of 2", "turn 2 of 2"):
            say(step)
        return {"x": np.arange(3.0)}

    monkeypatch.setattr(fitted, "PROGRESS_SECONDS", 0.0)
    fitted.fitted_arrays("toy-steps", fit, "a toy")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("fitting a toy, once; cached in ")
    assert re.fullmatch(r"  turn 1 of 2 \(\d+ s\)", lines[1]) and re.fullmatch(r"  turn 2 of 2 \(\d+ s\)", lines[2])
    monkeypatch.setattr(fitted, "PROGRESS_SECONDS", 1e9)
    fitted.fitted_arrays("toy-quiet", fit, "a toy")
    assert not any("turn" in line for line in capsys.readouterr().err.splitlines())

    from robo_players.neural.bots import load_bot

    lay = layout(yamb.rules("yatzy"), players=2)
    steps = []
    fit_cells(load_bot(lay), lay, 4, say=steps.append)
    turns = [int(re.fullmatch(r"turn (\d+) of 15", step).group(1)) for step in steps]
    assert turns == sorted(turns) and turns[0] == 1 and turns[-1] == 15


def test_a_shipped_cell_model_is_what_a_fit_gives(empty_cache, monkeypatch):
    """The shipped file of Yatzy's cells is the fit of today's code: refitted here with fewer games under the
    same seed, the means of the cells every sheet fills agree within the sampling error."""
    from robo_players.neural.bots import load_bot

    lay = layout(yamb.rules("yatzy"), players=2)
    shipped = best_win_player(lay).model
    refit = fit_cells(load_bot(lay), lay, 400)
    first = shipped.mean[-1].ravel()
    assert np.all(np.abs(refit.mean[-1].ravel() - first) <= 5 * np.sqrt(shipped.var[-1].ravel() / 400) + 1e-9)
