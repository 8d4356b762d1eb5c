"""``best-win``: the chance of winning it plays for, the final totals it estimates, its risks, and the registry."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import integrate, stats

import yamb
from robo_players.best_win import BestWinPlayer, CellModel, best_win_player, estimate
from robo_players.neural.bots import load_bot
from robo_players.registry import make_player, players_for
from robo_players.search.win_utility import OTHERS, TIE_SD, A, B, win_chance
from tests.endgames import BruteForce, start_batch
from yamb.layout import layout
from yamb.rules import N_NUMBER_ROWS
from yamb_app.cli import main

FILLED = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "one_pair": 8, "two_pairs": 14,
          "three_of_a_kind": 9, "four_of_a_kind": 0, "small_straight": 15, "large_straight": 0,
          "full_house": 18, "chance": 22}  # yatzy: sixes and yatzy open, the bonus needs 18 sixes


def _model(mean: np.ndarray, var: np.ndarray) -> CellModel:
    """A cell model of a one-column table, the same with any number of open cells."""
    cells = mean.size
    return CellModel(np.broadcast_to(mean, (cells + 1, *mean.shape)).copy(),
                     np.broadcast_to(var, (cells + 1, *var.shape)).copy(), 0.0, 0.0, np.zeros(cells + 1))


def _row(mean: float, sd: float, others: list[tuple[float, float]]) -> np.ndarray:
    row = np.zeros(OTHERS + 2 * len(others))
    for j, (m, s) in enumerate(others):
        row[OTHERS + 2 * j], row[OTHERS + 2 * j + 1] = m, s
    return row


@pytest.mark.parametrize(("mean", "sd", "others"), [
    (1000.0, 40.0, [(990.0, 50.0)]),
    (250.0, 0.0, [(262.0, 25.0)]),
    (1000.0, 40.0, [(990.0, 50.0), (1010.0, 30.0)]),
    (250.0, 10.0, [(240.0, 0.0), (255.0, 20.0), (230.0, 15.0)]),
])
def test_win_chance_against_integration(mean, sd, others):
    """The chance of the highest of independent normal totals (each blurred by TIE_SD), integrated."""
    tie = TIE_SD
    spread = math.hypot(sd, tie)

    def density(y: float) -> float:
        return stats.norm.pdf(y, mean, spread) * np.prod([stats.norm.cdf(y, m, math.hypot(s, tie)) for m, s in others])

    want = integrate.quad(density, mean - 12 * spread, mean + 12 * spread, limit=400, epsabs=1e-12)[0]
    assert win_chance(mean, sd, _row(mean, sd, others)) == pytest.approx(want, abs=2e-5)


def test_win_chance_of_known_totals():
    """Settled totals: the highest wins, ties share the win."""
    assert win_chance(251.0, 0.0, _row(0, 0, [(250.0, 0.0)])) == pytest.approx(1.0, abs=1e-12)
    assert win_chance(249.0, 0.0, _row(0, 0, [(250.0, 0.0)])) == pytest.approx(0.0, abs=1e-12)
    assert win_chance(250.0, 0.0, _row(0, 0, [(250.0, 0.0)])) == pytest.approx(0.5, abs=1e-12)
    assert win_chance(250.0, 0.0, _row(0, 0, [(250.0, 0.0), (250.0, 0.0)])) == pytest.approx(1 / 3, abs=1e-8)
    assert win_chance(250.0, 0.0, _row(0, 0, [(250.0, 0.0), (251.0, 0.0)])) == pytest.approx(0.0, abs=1e-9)


def _yamb_sheet(rules, rng: np.random.Generator) -> np.ndarray:
    """A plausible filled yamb column: numbers, max, min and collections."""
    sheet = np.zeros(rules.n_rows, dtype=np.int64)
    sheet[:N_NUMBER_ROWS] = rng.integers(0, 6, N_NUMBER_ROWS) * np.arange(1, 7)
    sheet[rules.row_index("max")], sheet[rules.row_index("min")] = 27, 9
    sheet[N_NUMBER_ROWS + 2:] = rng.integers(0, 60, rules.n_rows - N_NUMBER_ROWS - 2)
    return sheet


def test_estimate_against_enumeration():
    """Open cells each taking two values with equal chance (the model's mean and variance): the
    estimate's mean and variance are those of the exact totals when the numbers bonus is settled
    (sums and products of independent cells), whatever cells are open, difference row included."""
    rules = yamb.rules("yamb")
    rng = np.random.default_rng(5)
    mean = rng.uniform(5, 40, (1, rules.n_rows))
    var = rng.uniform(1, 30, (1, rules.n_rows))
    model = _model(mean, var)
    sheet = _yamb_sheet(rules, rng)
    sheet[:N_NUMBER_ROWS] = [5, 10, 15, 20, 25, 30]  # 105: the bonus is won whatever the open number row brings
    for open_rows in ([], [rules.row_index("straight")], [0, rules.row_index("max"), rules.row_index("yamb")],
                      [3, rules.row_index("min"), N_NUMBER_ROWS + 2]):
        filled = (1 << rules.n_rows) - 1 - sum(1 << r for r in open_rows)
        totals, chances = [], []
        for signs in itertools.product([-1, 1], repeat=len(open_rows)):
            trial = sheet.astype(np.float64)
            for r, sign in zip(open_rows, signs):
                trial[r] = mean[0, r] + sign * math.sqrt(var[0, r])
            numbers = trial[:N_NUMBER_ROWS].sum()
            spread = trial[rules.row_index("max")] - trial[rules.row_index("min")]
            rest = [r for r in range(N_NUMBER_ROWS, rules.n_rows) if r not in (rules.row_index("max"),
                                                                                rules.row_index("min"))]
            totals.append(numbers + rules.spec.bonus + trial[0] * spread + trial[rest].sum())
            chances.append(0.5 ** len(open_rows))
        est = estimate(rules, model, sheet[None, None, None], np.array([[[filled]]], dtype=np.uint32),
                       np.zeros((1, 1), dtype=np.int16))
        want_mean = float(np.dot(chances, totals))
        want_var = float(np.dot(chances, (np.array(totals) - want_mean) ** 2))
        assert est.mean[0, 0] == pytest.approx(want_mean, rel=1e-12)
        assert est.var[0, 0] == pytest.approx(want_var, rel=1e-9, abs=1e-9)
        assert est.open_cells[0, 0] == len(open_rows)
        if not open_rows:
            assert est.mean[0, 0] == rules.column_totals(sheet)["total"]


def test_estimate_counts_the_bonus_by_its_chance():
    """One number row open: the bonus's share of the mean is its chance under the normal sum."""
    rules = yamb.rules("yamb")
    model = _model(np.full((1, rules.n_rows), 10.0), np.full((1, rules.n_rows), 16.0))
    sheet = _yamb_sheet(rules, np.random.default_rng(1))
    sheet[:N_NUMBER_ROWS] = [3, 6, 9, 12, 20, 0]  # 50 and sixes open: the bonus needs 10 or more
    filled = (1 << rules.n_rows) - 1 - (1 << 5)
    est = estimate(rules, model, sheet[None, None, None], np.array([[[filled]]], dtype=np.uint32),
                   np.zeros((1, 1), dtype=np.int16))
    chance = stats.norm.sf(59.5, 60.0, 4.0)
    closed = rules.column_totals(sheet)["total"]  # sixes 0: no bonus
    assert est.mean[0, 0] == pytest.approx(closed + 10.0 + rules.spec.bonus * chance, rel=1e-12)


def _yatzy_player(players: int = 2) -> tuple:
    rules = yamb.rules("yatzy")
    lay = layout(rules, players=players)
    model = _model(np.zeros((1, rules.n_rows)), np.zeros((1, rules.n_rows)))
    return rules, lay, BestWinPlayer(load_bot(lay), model)


def _sheet(rules, written: dict) -> tuple:
    return tuple(written.get(row) for row in rules.rows)


@pytest.mark.parametrize(("mine", "theirs"), [
    ({"yatzy": 0}, {"sixes": 18, "yatzy": 0}),  # 3 points behind before the sixes: the bonus decides
    ({"yatzy": 50}, {"sixes": 24, "yatzy": 50}),
    ({"yatzy": 0, "sixes": 12, "chance": None}, {"sixes": 18, "yatzy": 0}),  # chance open
])
def test_last_turn_wins_as_often_as_possible(mine, theirs):
    """The mover's last turn against a finished sheet: best-win's chance of winning is the largest
    over every way of playing (brute force over every roll), and at least best's."""
    rules, lay, player = _yatzy_player()
    me, other = {**FILLED, **mine}, {**FILLED, "chance": 25, **theirs}
    me = {k: v for k, v in me.items() if v is not None}
    alone = layout(rules)
    cells, their_cells = _sheet(rules, me), _sheet(rules, other)
    their_total = BruteForce(alone, None, most=400).total(their_cells, 0)
    share = np.array([1.0 if t > their_total else 0.5 if t == their_total else 0.0 for t in range(401)])

    def wins(who) -> float:
        return float(BruteForce(lay, who, most=400, others=(their_cells,)).dist(cells, 0) @ share)

    played = wins(player)
    most = BruteForce(lay, None, most=400).best(cells, 0, lambda total: [share[total]])[0]
    assert played == pytest.approx(most, abs=1e-9)
    assert played >= wins(load_bot(lay)) - 1e-12


@pytest.mark.parametrize(("hand", "lead", "risky"), [
    ((6, 6, 6, 6, 4), -29, True),  # behind: 28 now loses, a five ties and a six wins; best stops at 28
    ((6, 6, 6, 6, 3), -25, False),  # ahead: 27 now wins, a one would tie; best rolls for 27.5
])
def test_risk_when_behind_safety_when_ahead(hand, lead, risky):
    """The last turn, chance the only open cell, one roll left, the other's total settled: best-win
    rolls the low die when behind and keeps a sure win when ahead, where best does the opposite."""
    rules, lay, player = _yatzy_player()
    me = {k: v for k, v in FILLED.items() if k != "chance"} | {"sixes": 18, "yatzy": 0}
    cells = _sheet(rules, me)
    mine = int(BruteForce(layout(rules), None, most=400).total(tuple(0 if c is None else c for c in cells), 0))
    other = {**FILLED, "sixes": 18, "yatzy": 0}
    other["chance"] += mine - lead - int(BruteForce(layout(rules), None, most=400).total(_sheet(rules, other), 0))
    batch = start_batch(lay, cells, 1, (_sheet(rules, other),))
    counts = np.bincount(np.array(hand) - 1, minlength=6)
    batch.dice[:] = int(np.flatnonzero((rules.dice.multisets == counts).all(axis=1))[0])
    batch.roll[:] = 2
    n_cells = lay.n_cells
    ours, theirs = int(player.act(batch, np.array([0]))[0]), int(load_bot(lay).act(batch, np.array([0]))[0])
    assert (ours >= n_cells) == risky and (theirs >= n_cells) != risky
    if risky:
        assert np.array_equal(rules.dice.keeps[ours - n_cells], [0, 0, 0, 0, 0, 4])


def test_alone_it_plays_as_best():
    rules = yamb.rules("yatzy")
    lay = layout(rules)
    from robo_players.measure.simulate import simulate

    player = BestWinPlayer(load_bot(lay), lambda: pytest.fail("alone, no model is needed"))
    assert np.array_equal(simulate(lay, player, 30, seed=11), simulate(lay, load_bot(lay), 30, seed=11))


def test_registry(tmp_path, monkeypatch):
    monkeypatch.setenv("YAMB_CACHE", str(tmp_path))
    for preset, columns in (("yatzy", None), ("yamb", ("free", "down")), ("jamb6", None)):
        rules = yamb.rules(preset)
        assert "best-win" in players_for(layout(rules, columns, players=3))
    for preset, columns in (("yatzy", None), ("yamb", ("free", "down"))):
        lay = layout(yamb.rules(preset), columns, players=3)
        assert isinstance(make_player("best-win", lay), BestWinPlayer)
    assert not list(tmp_path.glob("*best-cells*"))  # building it fits nothing


def test_looking_ahead_alone_plays_as_the_look_ahead_and_its_model_is_the_look_ahead_players():
    """``best-win+lookahead`` searches with the look-ahead's values: alone it plays as
    ``best+lookahead`` move for move; in a game of two its cell model is that player's games'."""
    import robo_players.best_win as best_win
    from robo_players.measure.simulate import simulate

    alone = layout(yamb.rules("yatzy"))
    player = make_player("best-win+lookahead", alone)
    assert isinstance(player, BestWinPlayer) and player.name == "best-win+lookahead"
    assert make_player("best-win+lookahead3@5", alone).name == "best-win+lookahead3@5"
    assert np.array_equal(simulate(alone, player, 12, seed=5),
                          simulate(alone, make_player("best+lookahead", alone), 12, seed=5))
    assert not np.array_equal(simulate(alone, player, 12, seed=5), simulate(alone, load_bot(alone), 12, seed=5))
    two = layout(yamb.rules("yatzy"), players=2)
    assert best_win.cells_name(two, "best+lookahead") != best_win.cells_name(two)
    with pytest.raises(yamb.YambError, match="looks ahead already"):
        make_player("best-win+lookahead+lookahead", two)


def test_looking_ahead_fits_the_look_ahead_players_model(tmp_path, monkeypatch):
    import robo_players.best_win as best_win

    monkeypatch.setenv("YAMB_CACHE", str(tmp_path))
    monkeypatch.setattr(best_win, "FIT_GAMES", 20)
    two = layout(yamb.rules("yatzy"), players=2)
    model = make_player("best-win+lookahead", two).model
    assert [p.name for p in tmp_path.glob("*.npz")] == [f"{best_win.cells_name(two, 'best+lookahead')}.npz"]
    fitted = best_win.fit_cells(make_player("best+lookahead", two), two, 20)
    plain = best_win.fit_cells(load_bot(two), two, 20)
    assert np.array_equal(model.ending, fitted.ending) and not np.array_equal(model.ending, plain.ending)


def test_model_fitted_once_and_cached(tmp_path, monkeypatch):
    """The cell model is fitted at the first move of a game of two, by best's own games, and read back."""
    import robo_players.best_win as best_win

    monkeypatch.setenv("YAMB_CACHE", str(tmp_path))
    monkeypatch.setattr(best_win, "FIT_GAMES", 40)
    lay = layout(yamb.rules("yatzy"), players=2)
    model = best_win_player(lay).model
    assert len(list(tmp_path.glob("*best-cells*.npz"))) == 1
    again = best_win_player(lay).model
    assert np.array_equal(model.mean, again.mean) and np.array_equal(model.var, again.var)
    fitted = best_win.fit_cells(load_bot(lay), lay, 40)
    assert np.array_equal(model.mean, fitted.mean) and np.array_equal(model.ending, fitted.ending)


def test_cli(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("YAMB_CACHE", str(tmp_path))
    import robo_players.best_win as best_win

    monkeypatch.setattr(best_win, "FIT_GAMES", 40)
    assert main(["match", "best-win", "best", "--preset", "yatzy", "--games", "6", "--seed", "41", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == 6 and sum(out["players"][n]["win_share"] for n in ("best-win", "best")) == pytest.approx(1)


def test_win_rows_the_mover_first_its_ending_taken_off_and_settled_games_played_for_points():
    """Row by row: the mover's mean less the mean ending at its open cells, its deviation after this
    turn's cell, the other's; a standing SETTLED estimated deviations away flat (points), but never
    the last cell, which is exact."""
    import robo_players.best_win as best_win
    from robo_players.best_win import Estimate, win_rows
    from robo_players.search.cell_values import LEVELS
    from robo_players.search.win_utility import COLLECTION, MEAN, MODE, NUMBER, SD, SHIFT

    rules = yamb.rules("yatzy")
    n_rows = rules.n_rows
    full = (1 << n_rows) - 1
    filled = np.array([[[0], [0]], [[0], [0]], [[full - 1], [full]], [[full ^ (1 << 12)], [full]]], dtype=np.uint32)
    cells = np.zeros((4, 2, 1, n_rows), dtype=np.int16)
    cells[2:, :, 0, 6:] = 10
    mean = np.array([[240.0, 250.0], [240.0, 400.0], [200.0, 230.0], [200.0, 230.0]])
    var = np.array([[900.0, 1600.0], [900.0, 1600.0], [25.0, 0.0], [25.0, 0.0]])
    left = np.array([[15, 15], [15, 15], [1, 0], [1, 0]])
    ending = np.arange(n_rows + 1, dtype=np.float64)
    movers = np.array([1, 0, 0, 0])
    rows = win_rows(rules, Estimate(mean, var, left), movers, cells, filled, np.zeros((4, 2)),
                    np.tile(np.arange(LEVELS, dtype=np.float64), (n_rows, 1)), ending, spread=4.0)
    assert rows[0, MEAN] == 250.0 - 15 and rows[0, OTHERS] == 240.0  # the mover, player 1, first
    assert rows[0, SD] == pytest.approx(math.sqrt(1600.0 * 4 * 14 / 15))
    assert rows[0, OTHERS + 1] == pytest.approx(math.sqrt(900.0 * 4))
    assert rows[0, MODE] == SHIFT
    z = (240.0 - 15 - 400.0) / math.sqrt(900.0 * 14 / 15 + 1600.0)
    assert z < -best_win.SETTLED and rows[1, SD] == best_win.FLAT and rows[1, OTHERS + 1] == best_win.FLAT
    assert rows[2, MODE] == NUMBER and rows[3, MODE] == COLLECTION  # ones, then the full house, the last cell
    assert rows[2, OTHERS + 1] == 0.0 and rows[3, OTHERS + 1] == 0.0  # exact, however far apart
    without = np.where(np.arange(n_rows) == 12, 0, cells[3, 0, 0])
    assert rows[3, A] == rules.column_totals(without)["total"] and rows[3, B] == pytest.approx(1.0)
