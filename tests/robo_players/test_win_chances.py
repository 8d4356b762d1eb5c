"""Each player's chance to win: exact against brute force over every roll of small endgames, estimated
against a Monte Carlo of real games, and the review's chances."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import yamb
from expected_scores.distributions import endgame_tables
from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import solve_solitaire
from robo_players.base import play
from robo_players.coach import spread as spread_module
from robo_players.coach.review import review_game
from robo_players.coach.values import ExactCoach, make_coach
from robo_players.coach.win_chances import (
    EstimatedFinals,
    ExactFinals,
    chances_of,
    decision_chances,
    position_chances,
    reach_chances,
    win_shares,
)
from robo_players.registry import make_player
from tests.endgames import BruteForce, start_batch
from yamb.engine import GameBatch
from yamb.game import Game
from yamb.layout import layout

FILLED = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "one_pair": 8, "two_pairs": 14,
          "three_of_a_kind": 9, "four_of_a_kind": 0, "small_straight": 15, "large_straight": 0,
          "full_house": 18, "chance": 22}  # yatzy: sixes and yatzy open, the bonus needs 18 sixes


pytestmark = pytest.mark.usefixtures("private_cache")  # one private solution cache for this module


# ----------------------------------------------------------------------------- shares
def _shares_by_enumeration(finals: np.ndarray) -> np.ndarray:
    """Every joint outcome of independent totals: the winners share 1."""
    n_players, length = finals.shape
    out = np.zeros(n_players)
    for totals in itertools.product(range(length), repeat=n_players):
        p = np.prod([finals[i, f] for i, f in enumerate(totals)])
        if p == 0:
            continue
        best = max(totals)
        winners = [i for i, f in enumerate(totals) if f == best]
        for i in winners:
            out[i] += p / len(winners)
    return out


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_win_shares_against_every_joint_outcome(players):
    rng = np.random.default_rng(players)
    finals = rng.random((players, 6)) * (rng.random((players, 6)) < 0.7)  # zeros too: ties and gaps
    finals[:, 0] += 1e-3
    finals /= finals.sum(axis=1, keepdims=True)
    assert np.abs(win_shares(finals) - _shares_by_enumeration(finals)).max() < 1e-12
    assert win_shares(finals).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(win_shares(np.stack([finals, finals[::-1]])), [win_shares(finals), win_shares(finals[::-1])])


def test_shares_of_distributions_rounded_to_float32_sum_to_one():
    """The stored score tables keep float32 probabilities (sums 1 to about 1e-8): each distribution is
    taken to sum to 1, so the shares are those of the normalized distributions and sum to 1; a row of
    zeros (an illegal action) stays zeros."""
    rng = np.random.default_rng(7)
    exact = rng.random((3, 40))
    exact /= exact.sum(axis=1, keepdims=True)
    rounded = exact.astype(np.float32).astype(np.float64) * (1 + 1e-7 * np.arange(3))[:, None]
    assert abs(rounded.sum(axis=1) - 1).max() > 1e-9
    normalized = rounded / rounded.sum(axis=1, keepdims=True)
    assert win_shares(rounded).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(win_shares(rounded) - win_shares(normalized)).max() < 1e-15
    assert np.abs(reach_chances(rounded, 0) - 1).max() < 1e-15
    assert np.array_equal(reach_chances(np.zeros((2, 5)), 2), [0.0, 0.0])


def test_reach_chances_count_the_target_itself():
    finals = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    assert reach_chances(finals, 2).tolist() == [0.5, 0.0]
    assert reach_chances(finals, 0).tolist() == [1.0, 1.0]
    assert chances_of(finals, None).tolist() == pytest.approx([0.2 / 2 + 0.8, 0.2 / 2])


# ----------------------------------------------------------------------------- exact
def _sheet(rules, written: dict) -> tuple:
    return tuple(written.get(row) for row in rules.rows)


def _filled(rules, written: dict) -> int:
    return sum(1 << rules.row_index(row) for row in written)


def _endgame(mine: dict, theirs: dict):
    rules = yamb.rules("yatzy")
    me, other = {**FILLED, **mine}, {**FILLED, "chance": 25, **theirs}
    filled = _filled(rules, me) & _filled(rules, other)
    solution = solve_solitaire(rules, filled)
    lay = layout(rules, None, 2)
    batch = start_batch(lay, _sheet(rules, me), rules.dice.n_multisets, (_sheet(rules, other),))
    batch.dice[:] = np.arange(rules.dice.n_multisets)  # game m holds hand m after the first roll
    return rules, lay, solution, ExactFinals(solution, endgame_tables(rules, filled)), batch, me, other


ENDGAMES = [
    ({"yatzy": 0}, {"sixes": 18, "yatzy": 0}),  # my last turn, the other done: 3 points behind, the bonus decides
    ({"yatzy": 50}, {"sixes": 12}),  # my last turn, the other's to come
    ({}, {"sixes": 18, "yatzy": 0}),  # two turns to go, the other done
    ({}, {"yatzy": 0}),  # two turns to go, the other's last to come
]


@pytest.mark.parametrize(("mine", "theirs"), ENDGAMES)
def test_exact_chances_against_brute_force(mine, theirs):
    """Over the first roll's hands, the mover's chance at the position averages to the chance the brute
    force gives for the turn's start (each player's distribution of final totals under optimal play,
    every roll enumerated, and the players' totals compared)."""
    rules, lay, solution, finals, batch, me, other = _endgame(mine, theirs)
    solo = layout(rules)
    most = 500
    mover = BruteForce(solo, SolvedPlayer(solution), most=most).dist(_sheet(rules, me), 0)
    them = BruteForce(solo, SolvedPlayer(solution), most=most).dist(_sheet(rules, other), 0)
    want = sum(mover[a] * them[b] * (1.0 if a > b else 0.5 if a == b else 0.0)
               for a in np.flatnonzero(mover) for b in np.flatnonzero(them))
    first = rules.dice.outcome_prob[0]
    got = sum(first[m] * position_chances(finals, batch, m)[0] for m in range(rules.dice.n_multisets))
    assert got == pytest.approx(want, abs=1e-12)
    chances = position_chances(finals, batch, 7)
    assert chances.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("mine", "theirs"), ENDGAMES)
def test_exact_action_distributions_are_the_coach_values_and_the_brute_force(mine, theirs):
    """After each action the mover's expected final total is the exact coach's value of it; after a fill,
    the distribution is the brute force's from the sheet it leaves; the position is the coach's best action."""
    rules, lay, solution, finals, batch, me, other = _endgame(mine, theirs)
    coach = ExactCoach(lay, solution)
    brute = BruteForce(layout(rules), SolvedPlayer(solution), most=500)
    for m in (0, 17, 100, 251):
        values = coach.values(batch, np.array([m]))[0]
        after = finals.actions(batch, m)
        legal = np.isfinite(values)
        means = after @ np.arange(after.shape[1])
        assert np.abs(means[legal] - values[legal]).max() < 1e-9
        assert (after[~legal] == 0).all()
        for r in np.flatnonzero(legal[: lay.n_rows]):
            cells, extra = brute._fill(_sheet(rules, me), 0, m, int(r))
            want = brute.dist(cells, extra)
            got = np.zeros(len(want))
            got[: after.shape[1]] = after[r, : len(want)]
            assert np.abs(got - want).max() < 1e-12
        position = finals.position(batch, m)[0]
        best = after[int(np.argmax(values))]
        n = max(len(position), len(best))
        assert np.abs(np.pad(position, (0, n - len(position))) - np.pad(best, (0, n - len(best)))).max() < 1e-12


def test_the_turn_kept_between_reads_is_always_the_position_s_own():
    """The model keeps the last turn it valued (a decision reads it twice): positions asked in any order,
    and the same hand with another roll left or another score, give what a fresh model gives."""
    rules, lay, solution, finals, batch, me, other = _endgame({}, {"yatzy": 0})
    again = batch.fork(np.arange(batch.n_games))
    again.roll[:] += 1  # the same hands with one roll less to come
    for b, m in [(batch, 0), (batch, 17), (batch, 0), (again, 0), (batch, 0), (batch, 251), (again, 17)]:
        fresh = ExactFinals(solution, finals.tables)
        assert np.array_equal(finals.actions(b, m), fresh.actions(b, m))
        assert np.array_equal(finals.position(b, m), fresh.position(b, m))


def test_a_decision_loses_the_chance_of_the_action_best_for_winning():
    rules, lay, solution, finals, batch, me, other = _endgame({}, {"yatzy": 0})
    chances = decision_chances(finals, batch, 40)
    legal = np.flatnonzero(np.isfinite(chances.actions[:, 0]))
    assert len(legal) > 1
    best = chances.best_action()
    assert chances.actions[best, 0] == np.nanmax(chances.actions[:, 0])
    for a in legal:
        assert chances.loss(int(a)) == pytest.approx(chances.actions[best, 0] - chances.actions[a, 0], abs=1e-15)
        assert chances.actions[a].sum() == pytest.approx(1.0, abs=1e-12)
    assert chances.before[0] <= chances.actions[best, 0] + 1e-12


# ----------------------------------------------------------------------------- estimated
def test_estimated_chances_against_a_monte_carlo_of_real_games(monkeypatch):
    """A two-player game of Yatzy written top to bottom (one ``down`` column, no solver) halfway: the
    estimate of each player's chance to win, against the share of wins of 2,000 continuations played by the
    coach's own bot on other dice (seed 5). Tolerance: 0.06 (about four standard errors of the Monte
    Carlo, and the estimate's normal shape)."""
    monkeypatch.setattr(spread_module, "FIT_GAMES", 1000)
    lay = layout(yamb.rules("yatzy"), ["down"], 2)
    coach = make_coach(lay, "expectimax")
    finals = EstimatedFinals(coach, lay, spread_module.spread_for(coach, lay))
    assert not finals.exact and finals.method.startswith("estimated")
    bot = coach.player
    batch = GameBatch(lay, 1, seed=3)
    while batch.turn[0] < 14:  # seven turns each
        batch.step(bot.act(batch, np.array([0])), np.array([0]))
    estimate = position_chances(finals, batch, 0)
    runs = 2000
    copies = batch.fork(np.zeros(runs, dtype=np.int64), seed=5, streams=np.arange(runs, dtype=np.uint64))
    scores = play(copies, [bot, bot])
    wins = np.where(scores[:, 0] > scores[:, 1], 1.0, np.where(scores[:, 0] == scores[:, 1], 0.5, 0.0)).mean()
    assert estimate.sum() == pytest.approx(1.0, abs=1e-9)
    assert estimate[0] == pytest.approx(wins, abs=0.06)


def test_the_spread_is_fitted_once_and_read_back(monkeypatch):
    monkeypatch.setattr(spread_module, "FIT_GAMES", 200)
    lay = layout(yamb.rules("yatzy"), ["down"], 1)
    coach = make_coach(lay, "expectimax")
    fitted = spread_module.spread_for(coach, lay)
    assert fitted.spread[0] == 0 and (fitted.spread[1:] > 0).all()
    assert fitted.spread[-1] > fitted.spread[1]  # more open cells, more spread
    monkeypatch.setattr(spread_module, "fit_spread", lambda *args, **kwargs: pytest.fail("fitted again"))
    again = spread_module.spread_for(coach, lay)
    assert np.array_equal(again.spread, fitted.spread) and again.games == 200


# ----------------------------------------------------------------------------- the review
def test_the_review_carries_every_players_chances(monkeypatch):
    monkeypatch.setattr(spread_module, "FIT_GAMES", 200)
    lay = layout(yamb.rules("yatzy"), ["down"], 2)
    coach = make_coach(lay, "expectimax")
    finals = EstimatedFinals(coach, lay, spread_module.spread_for(coach, lay))
    game = Game(lay.rules, lay.columns, 2, seed=9)
    bot = make_player("greedy", lay)
    while not game.is_over():
        game.apply(int(bot.act(game.batch, np.array([0]))[0]))
    review = review_game(game, coach, finals)
    assert review.win == finals.method and review.win_exact is False
    for d in review.decisions:
        assert sum(d.win_before) == pytest.approx(1.0, abs=1e-9) and sum(d.win_after) == pytest.approx(1.0, abs=1e-9)
        assert d.win_loss >= 0 and d.win_best_value >= d.win_after[d.player] - 1e-12
    scores = game.scores()
    end = [1.0 if s > min(scores) else 0.0 for s in scores] if scores[0] != scores[1] else [0.5, 0.5]
    for p in review.players:
        assert p.win_curve[-1] == (lay.turns_per_player + 1, end[p.player])
        assert [t for t, _ in p.win_curve] == [t for t, _ in p.curve]
    target = review_game(Game(lay.rules, lay.columns, 2, seed=9), coach, finals, target=100)
    assert target.target == 100 and target.decisions == []


@pytest.mark.slow
def test_exact_chances_against_games_of_optimal_on_the_whole_yatzy_tables(monkeypatch):
    """Where the whole Yatzy score tables are built (in ``~/.cache/yamb``; skipped elsewhere): a two-player
    position after seven turns each of ``greedy``, the exact chance to win against the share of wins of
    10,000 continuations by ``optimal`` at both seats (seed 5): within four standard errors."""
    from expected_scores.distributions import cached_tables
    from robo_players.coach.win_chances import finals_for

    monkeypatch.delenv("YAMB_CACHE")
    if cached_tables("yatzy") is None:
        pytest.skip("the Yatzy score tables are not built")
    lay = layout(yamb.rules("yatzy"), None, 2)
    finals = finals_for(make_coach(lay), lay)
    assert finals.exact
    greedy, optimal = make_player("greedy", lay), make_player("optimal", lay)
    batch = GameBatch(lay, 1, seed=3)
    while batch.turn[0] < 14:
        batch.step(greedy.act(batch, np.array([0])), np.array([0]))
    chance = position_chances(finals, batch, 0)[0]
    runs = 10_000
    copies = batch.fork(np.zeros(runs, dtype=np.int64), seed=5, streams=np.arange(runs, dtype=np.uint64))
    scores = play(copies, [optimal, optimal])
    wins = np.where(scores[:, 0] > scores[:, 1], 1.0, np.where(scores[:, 0] == scores[:, 1], 0.5, 0.0))
    assert abs(chance - wins.mean()) < 4 * wins.std() / np.sqrt(runs)
