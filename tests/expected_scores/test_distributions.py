"""Score distributions and reach chances against brute force over every roll of small endgames."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import yamb
from expected_scores.distributions import (
    build_tables,
    endgame_tables,
    load_tables,
    save_tables,
    score_tables,
    stored,
)
from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import solve_solitaire
from scripts.check_score_tables import goodness_of_fit
from tests.endgames import BruteForce, start_batch
from yamb.layout import layout

pytestmark = pytest.mark.usefixtures("private_cache")  # one private solution cache for this module


CASES = [
    # yatzy: ones, sixes and yatzy open; 42 in the numbers, so the bonus (63) needs 21 more
    ("yatzy", {"twos": 6, "threes": 9, "fours": 12, "fives": 15, "one_pair": 8, "two_pairs": 14,
               "three_of_a_kind": 9, "four_of_a_kind": 0, "small_straight": 15, "large_straight": 0,
               "full_house": 18, "chance": 22}),
    # yahtzee holding 50 with fives, full house and large straight open: jokers, extra bonuses, the bonus
    ("yahtzee", {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "sixes": 18, "three_of_a_kind": 20,
                 "four_of_a_kind": 0, "small_straight": 30, "yahtzee": 50, "chance": 22}),
    # yahtzee open: a first Yahtzee scores 50, a second earns the extra bonus
    ("yahtzee", {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
                 "three_of_a_kind": 20, "four_of_a_kind": 0, "full_house": 25, "small_straight": 30,
                 "chance": 22}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_brute_force(case):
    preset, written = CASES[case]
    rules = yamb.rules(preset)
    if rules.joker is not None:
        assert rules.joker == "free"
    cells = tuple(written.get(row) for row in rules.rows)
    filled = sum(1 << rules.row_index(row) for row in written)
    solution = solve_solitaire(rules, filled)
    tables = endgame_tables(rules, filled)
    lay = layout(rules)
    batch = start_batch(lay, cells, 1)
    earned = int(batch.scores()[0, 0])
    mask, upper, y = (int(v[0]) for v in solution.state_of(batch, np.array([0])))
    s = tables.state(mask, upper, y)
    brute = BruteForce(lay, SolvedPlayer(solution), most=earned + 500)
    want = brute.dist(cells, 0)
    got = np.zeros_like(want)
    mine = tables.distribution(s)
    got[earned: earned + len(mine)] = mine
    assert np.abs(got - want).max() < 1e-12
    assert abs(tables.mean(s) - solution.values[mask, upper, y]) < 1e-9
    chance = tables.chances(np.full(401, s), np.arange(401))
    reach = brute.best(cells, 0, lambda total: np.arange(earned, earned + 401) <= total)
    assert np.abs(chance - reach).max() < 1e-12
    assert (chance >= np.cumsum(got[earned:][::-1])[::-1][:401] - 1e-12).all()  # no policy reaches more often


@pytest.mark.parametrize("case", range(len(CASES)))
def test_every_mean_is_the_solver_value(case):
    preset, written = CASES[case]
    rules = yamb.rules(preset)
    filled = sum(1 << rules.row_index(row) for row in list(written)[:-3])  # six open rows: every state below
    tables = endgame_tables(rules, filled)
    values = solve_solitaire(rules, filled).values
    for mask, upper, y in zip(*np.nonzero(tables.index >= 0), strict=True):
        s = tables.index[mask, upper, y]
        assert abs(tables.mean(s) - values[mask, upper, y]) < 1e-9
        assert abs(tables.distribution(s).sum() - 1) < 1e-9
        chance = tables.chances(np.full(20, s), np.arange(0, 400, 20))
        assert chance[0] == 1.0 and (np.diff(chance) <= 0).all()


def _open_rows(rules, rows: list[str]) -> int:
    """The filled mask of a sheet whose only open rows are ``rows``."""
    return sum(1 << r for r in range(rules.n_rows) if rules.rows[r] not in rows)


@pytest.mark.parametrize("preset", ["yatzy", "yahtzee"])
def test_blocks_and_threads_leave_every_bit(preset):
    """The reach chances are planned in blocks of thresholds, the masks of a level on every thread: neither
    the block size nor the thread count changes a bit."""
    rules = yamb.rules(preset)
    filled = _open_rows(rules, ["sixes", "chance", "full_house", "yahtzee" if preset == "yahtzee" else "yatzy"])
    solution = solve_solitaire(rules, filled)
    first = build_tables(solution, filled, lanes=7)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        again = build_tables(solution, filled, lanes=128)
    finally:
        numba.set_num_threads(threads)
    for a, b in [(first.dist, again.dist), (first.reach, again.reach)]:
        assert np.array_equal(a.start, b.start) and np.array_equal(a.lo, b.lo) and np.array_equal(a.flat, b.flat)
    assert np.array_equal(first.tail, again.tail) and np.array_equal(first.means, again.means)


def test_stored_tables_round_trip(tmp_path):
    """The cache file keeps the probabilities and chances in float32 (each within a relative 2**-24 of the
    float64 value) and every mean in float64; it is read back mapped, and a file of another digest is
    not read."""
    rules = yamb.rules("yahtzee")
    filled = _open_rows(rules, ["fives", "full_house", "large_straight", "yahtzee"])
    tables = endgame_tables(rules, filled)
    path = tmp_path / "tables.npz"
    save_tables(tables, path, "d1")
    assert load_tables(rules, path, "d2") is None
    back = load_tables(rules, path, "d1")
    assert back is not None and back.dist.flat.dtype == np.float32 and back.reach.flat.dtype == np.float32
    for a, b in [(tables.dist, back.dist), (tables.reach, back.reach)]:
        assert np.array_equal(a.start, b.start) and np.array_equal(a.lo, b.lo)
        assert (np.abs(b.flat.astype(np.float64) - a.flat) <= a.flat * 2.0**-24).all()
    assert np.array_equal(back.means, tables.means) and np.array_equal(back.tail, tables.tail)
    again = stored(tables)
    assert np.array_equal(again.dist.flat, back.dist.flat) and np.array_equal(again.reach.flat, back.reach.flat)
    states = np.arange(tables.states)
    assert np.array_equal(again.chances(states, np.full(tables.states, 60)), back.chances(states, np.full(tables.states, 60)))
    for s in states:  # the float32 distribution's mean within its rounding of the float64 mean
        p = back.distribution(s)
        assert abs(np.arange(len(p)) @ p + back.tail[s] - back.mean(s)) <= back.mean(s) * 2.0**-24 + 1e-12


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("preset", ["yatzy", "yahtzee"])
def test_full_tables_and_simulated_play(preset, private_cache, monkeypatch):
    """The whole game: every mean, and 100,000 games of ``optimal`` against the start distribution."""
    from scipy.stats import chi2

    from expected_scores.solve import solve
    from robo_players.measure.simulate import simulate

    tables = score_tables(preset)
    values = solve(preset).values
    states = np.nonzero(tables.index >= 0)
    assert np.abs(tables.means[tables.index[states]] - values[states]).max() < 1e-9
    rules = tables.rules
    scores = simulate(layout(rules), SolvedPlayer(solve(preset)), 100_000, seed=4040)
    stat, degrees = goodness_of_fit(tables.distribution(tables.state(0, 0)), scores)
    assert chi2.sf(stat, degrees) > 1e-3
