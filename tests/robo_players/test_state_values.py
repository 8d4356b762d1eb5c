"""State-value networks (``robo_players.neural.state_values``) and their fit to play (``value_fit``).

The solver's values appear here only as the yardstick: the fit never reads them.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
import torch

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import solve_solitaire
from robo_players.base import play
from robo_players.neural.state_values import reachable_states, table_player, value_table
from robo_players.neural.value_nets import ValuesFileError, ValueSpec, load_values, save_values
from robo_players.registry import make_player
from robo_players.training.value_fit import FitSettings, backup, fit_values
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main

# Yatzy's endgame with three rows open: two number rows (the bonus still at stake) and chance.
OPEN = ("fives", "sixes", "chance")


def _endgame(r) -> int:
    return ((1 << r.n_rows) - 1) & ~sum(1 << r.row_index(row) for row in OPEN)


class _Recorder:
    """Wraps a player and records its actions."""

    def __init__(self, player) -> None:
        self.player, self.name, self.actions = player, player.name, []

    def act(self, batch, games):
        actions = self.player.act(batch, games)
        self.actions.append(actions.copy())
        return actions


@pytest.mark.parametrize("preset", ["yatzy", "yahtzee"])
def test_a_table_player_over_the_solved_values_plays_as_the_optimal_player(preset: str) -> None:
    """The player machinery: over the solver's own values (the table read back from its reachable
    states) it takes the optimal player's actions on the same games."""
    r = rules(preset)
    filled = ((1 << r.n_rows) - 1) & ~(1 << 0 | 1 << 5 | 1 << r.row_index("chance"))
    exact = solve_solitaire(r, filled=filled)
    states = reachable_states(r, filled)
    table = np.full_like(exact.values, np.nan)
    table[-1] = 0.0
    table[states] = exact.values[states]
    lay = layout(r, ("free",))
    seats = [_Recorder(SolvedPlayer(exact)), _Recorder(table_player(r, table, "values"))]
    for seat in seats:
        batch = GameBatch(lay, 300, seed=5)
        batch.filled[:, 0, 0] = filled
        batch.turn[:] = filled.bit_count()
        play(batch, [seat])
    assert all(np.array_equal(a, b) for a, b in zip(seats[0].actions, seats[1].actions, strict=True))


def test_the_one_turn_backup_over_the_solved_values_is_the_solved_value() -> None:
    """``backup`` is the Bellman equation the solver solves: over the exact values it gives them back."""
    r = rules("yahtzee")
    filled = ((1 << r.n_rows) - 1) & ~(1 << 5 | 1 << r.row_index("yahtzee") | 1 << r.row_index("full_house"))
    exact = solve_solitaire(r, filled=filled)
    states = np.array(reachable_states(r, filled))
    assert backup(r, exact.values, states) == pytest.approx(exact.values[tuple(states)], abs=1e-9)


def test_the_fit_on_an_endgame_comes_close_to_the_exact_values() -> None:
    """Fitted value iteration on its own play of a three-row endgame: the fitted start value within
    a point of the solver's, and the fitted player's mean within half a point of the optimal
    player's on the same 2000 games."""
    r = rules("yatzy")
    filled = _endgame(r)
    torch.set_num_threads(1)
    spec = ValueSpec("yatzy", None, hidden=(32, 32))
    settings = FitSettings(rounds=12, games=500, memory=3, epochs=30, lr=3e-3, final_lr=3e-4, seed=1)
    net, _ = fit_values(spec, settings, filled=filled)
    exact = solve_solitaire(r, filled=filled).values
    fitted = value_table(net, r, filled)
    assert fitted[filled, 0, 0] == pytest.approx(exact[filled, 0, 0], abs=1.0)
    lay = layout(r, ("free",))
    means = []
    for player in (SolvedPlayer(solve_solitaire(r, filled=filled)), table_player(r, fitted, "values")):
        batch = GameBatch(lay, 2000, seed=9)
        batch.filled[:, 0, 0] = filled
        batch.turn[:] = filled.bit_count()
        means.append(play(batch, [player])[:, 0].mean())
    assert means[1] >= means[0] - 0.5


def test_a_values_file_round_trips_and_refuses_damage(tmp_path) -> None:
    spec = ValueSpec("yahtzee", "free", hidden=(8,))
    torch.manual_seed(0)
    net = spec.build()
    path = tmp_path / "v.npz"
    save_values(path, net, spec, {"seed": 3})
    loaded, spec2, meta = load_values(path)
    assert spec2 == spec and meta["seed"] == 3
    r = spec.rules()
    filled = _endgame(rules("yatzy")) & ((1 << r.n_rows) - 1)
    assert np.array_equal(value_table(loaded, r, filled), value_table(net, r, filled), equal_nan=True)
    with np.load(path) as f:
        arrays = dict(f)
    arrays["layers.0.bias"] = arrays["layers.0.bias"] + 1
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValuesFileError, match="damaged"):
        load_values(tmp_path / "bad.npz")



def damaged_copies(path, tmp_path) -> dict:
    """``path`` cut in half, and with one bit flipped in its stored data: (file, reason) by name."""
    data = path.read_bytes()
    cut, flipped = tmp_path / f"cut-{path.name}", tmp_path / f"flipped-{path.name}"
    cut.write_bytes(data[:len(data) // 2])
    flip = bytearray(data)
    flip[len(data) // 3] ^= 0x10
    flipped.write_bytes(bytes(flip))
    return {cut: "damaged (", flipped: "damaged ("}


@pytest.mark.parametrize("kind", ["values", "weights"])
def test_a_damaged_npz_is_one_line_saying_so(tmp_path, capsys, kind: str) -> None:
    """A values or weights ``.npz`` cut short or with a flipped bit (zip's BadZipFile, zlib's error, a bad
    CRC-32): whether a player, a coach, a start, a teacher or a luck reference, it is named damaged."""
    from robo_players.neural.files import save_weights
    from robo_players.neural.networks import NetSpec
    from robo_players.neural.value_nets import is_values_file
    from robo_players.neural.weights import NeuralWeights

    yatzy = layout(rules("yatzy"))
    if kind == "values":
        spec = ValueSpec("yatzy", None, hidden=(64,))
        torch.manual_seed(0)
        good = tmp_path / "v.npz"
        save_values(good, spec.build(), spec, {"seed": 3})
    else:
        net = NetSpec.for_layout("direct", yatzy, (64,))
        genome = net.build().initial_genome(np.random.default_rng(0)).astype(np.float32)
        good = save_weights(NeuralWeights(net, genome, np.zeros(yatzy.n_cells, np.float32), {}), tmp_path / "w.npz")
    make_player(str(good), yatzy)
    for path, reason in damaged_copies(good, tmp_path).items():
        with pytest.raises(YambError, match=f"^{path}: {reason.replace('(', '[(]')}"):
            make_player(str(path), yatzy)
        if kind == "values":
            with pytest.raises(ValuesFileError, match="damaged"):
                is_values_file(str(path))
            with pytest.raises(ValuesFileError, match="damaged"):
                load_values(path)
        for argv in (["simulate", "--player", str(path)], ["compare", "random", "--luck", str(path)]):
            assert main([*argv, "--preset", "yatzy", "--games", "2"]) == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and f"{path}: damaged (" in err, err

def test_best_values_is_refused_where_no_network_is_shipped() -> None:
    with pytest.raises(YambError, match="no shipped best-values network for jamb6-6d-down-free-up-announce"):
        make_player("best-values", layout(rules("jamb6")))


@pytest.mark.parametrize("argv, message", [
    (["--preset", "yamb", "--out", "v.npz"], "fits one free column of yatzy or yahtzee"),
    (["--out", "v.pt"], "written as .npz"),
    (["--explore", "1.5", "--out", "v.npz"], "not a number from 0 to below 1"),
])
def test_fit_values_refuses_bad_input_in_one_line(tmp_path, capsys, argv: list[str], message: str) -> None:
    argv = [str(tmp_path / a) if a.startswith("v.") else a for a in argv]
    assert main(["fit-values", *argv]) == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]


def test_fit_values_writes_a_file_that_plays_and_the_same_fit_writes_the_same_bytes(tmp_path, monkeypatch) -> None:
    path, again = tmp_path / "v.npz", tmp_path / "again.npz"
    for out, seconds_per_reading in ((path, 1.0), (again, 1000.0)):  # a fast and a slow machine
        clock = itertools.count(0.0, seconds_per_reading)
        monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
        assert main(["fit-values", "--preset", "yahtzee", "--rounds", "1", "--games", "20", "--hidden", "8",
                     "--out", str(out)]) == 0
    monkeypatch.undo()
    assert path.read_bytes() == again.read_bytes()
    player = make_player(str(path), layout(rules("yahtzee")))
    assert player.name == "v"
    assert play(GameBatch(layout(rules("yahtzee")), 5, seed=1), [player]).shape == (5, 1)
    with pytest.raises(YambError, match="not this table"):
        make_player(str(path), layout(rules("yatzy")))


# The shipped value networks: the total of 60 games, seed 2026 (recorded when shipped).
SHIPPED = {"yatzy": 14898, "yahtzee": 15754, "yamb": 67837}  # 60 games' total, seed 2026 (yamb: after-state values)


@pytest.mark.parametrize("preset", sorted(SHIPPED))
def test_the_shipped_value_networks_load_and_play_as_shipped(preset: str) -> None:
    from robo_players.measure.simulate import simulate
    from robo_players.neural.bots import values_file

    lay = layout(rules(preset))
    _, spec, meta = load_values(values_file(lay))
    assert (spec.preset, meta.get("settings", meta)["seed"]) == (preset, 0)  # yamb's: the fit-afterstates command's
    player = make_player("best-values", lay)
    assert player.name == "best-values"
    assert int(simulate(lay, player, 60, seed=2026).sum()) == SHIPPED[preset]
