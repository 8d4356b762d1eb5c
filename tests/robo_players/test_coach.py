"""The coach (``robo_players.coach``): losses against independent computations.

- Yatzy and Yahtzee games where every move is the optimal player's lose 0 on every decision;
- on small end positions of Yatzy (one or two open cells) every legal action's value is the
  expected final total found by brute force over every roll left, scored by ``Rules.score`` and
  ``Rules.column_totals`` (the bonus included), and so is every loss;
- a yamb game played by the coach bot loses 0 by the bot's own values;
- a keep's pattern chances are those of enumerating every ordered roll, and its classes add up to 1.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from functools import cache
from pathlib import Path

import numpy as np
import pexpect
import pytest

from robo_players.coach.outcomes import NONE, keep_outcomes, pattern_rows
from robo_players.coach.review import classify, judge, review_game
from robo_players.coach.search_values import estimates
from robo_players.coach.values import ExactCoach, make_coach
from robo_players.registry import make_player
from robo_players.search.explain import fill_values
from tests.programs import spawn_play
from yamb.dice import counts_of
from yamb.engine import GameBatch
from yamb.game import Game
from yamb.rules import rules as make_rules
from yamb_app.cli import main
from yamb_app.terminal.savefile import write_save

ROOT = Path(__file__).resolve().parents[2]


def _play(game: Game, player) -> Game:
    while not game.is_over():
        game.apply(int(player.act(game.batch, np.array([0]))[0]))
    return game


@pytest.mark.parametrize("preset,players,seed", [("yatzy", 1, 4), ("yahtzee", 1, 8), ("yatzy", 2, 5)])
def test_following_the_optimal_player_loses_nothing(preset, players, seed):
    game = Game(preset, players=players, seed=seed)
    solo = Game(preset, seed=seed)  # the optimal player plays solitaire; each sheet of a yatzy game is one
    optimal = make_player("optimal", solo.layout)
    while not game.is_over():
        game.apply(int(optimal.act(game.batch, np.array([0]))[0]))
    review = review_game(game)
    assert review.exact and review.coach == "optimal"
    assert len(review.decisions) == len(game.history)
    assert max(d.loss for d in review.decisions) <= 1e-9
    assert all(d.label == "good" and d.best == d.played for d in review.decisions)
    for p in review.players:
        assert p.loss <= 1e-9 and p.curve[-1] == (game.layout.turns_per_player + 1, game.scores()[p.player])
    # the first decision's expected final score is the solver's value of the empty sheet, the roll taken
    first = review.decisions[0]
    assert first.turn == 1 and first.roll == 1


def _enumerate(n: int):
    """Every ordered roll of ``n`` dice, each with chance 6**-n."""
    return list(itertools.product(range(1, 7), repeat=n))


YATZY = make_rules("yatzy")


def _total(cells: tuple) -> float:
    """A full Yatzy sheet's total, the bonus included (``Rules.column_totals``)."""
    return float(YATZY.column_totals(np.array(cells))["total"])


def _fill(cells: tuple, row: int, hand: tuple) -> tuple:
    return cells[:row] + (YATZY.score(YATZY.rows[row], hand),) + cells[row + 1:]


@cache
def _final(cells: tuple) -> float:
    """Expected final total of a one-column Yatzy sheet (None: open) from the start of a turn,
    by enumerating every roll left."""
    if None not in cells:
        return _total(cells)
    return float(np.mean([_hand_value(cells, tuple(sorted(r)), YATZY.rolls - 1) for r in _enumerate(5)]))


@cache
def _hand_value(cells: tuple, hand: tuple, left: int) -> float:
    return max(_action_values(cells, hand, left).values())


def _action_values(cells: tuple, hand: tuple, left: int) -> dict:
    """Each legal action's expected final total: ``("fill", row)`` or ``("keep", kept dice)``."""
    out = {("fill", r): _final(_fill(cells, r, hand)) for r, c in enumerate(cells) if c is None}
    if left:
        for size in range(len(hand)):
            for kept in set(itertools.combinations(hand, size)):
                out[("keep", kept)] = _keep_value(cells, kept, left - 1)
    return out


@cache
def _keep_value(cells: tuple, kept: tuple, left: int) -> float:
    return float(np.mean([_hand_value(cells, tuple(sorted(kept + r)), left) for r in _enumerate(5 - len(kept))]))


@pytest.mark.parametrize("open_rows,upper,hand,roll", [
    (("chance", "yatzy"), 70, (2, 6, 6, 6, 6), 1),
    (("sixes", "full_house"), 50, (3, 3, 6, 6, 6), 2),
    (("four_of_a_kind",), 40, (1, 5, 5, 5, 6), 1),
])
def test_each_action_is_worth_the_brute_force_expectation(open_rows, upper, hand, roll):
    """``upper``: the filled number rows' sum (Yatzy's bonus needs 63); the other rows are filled
    with fixed scores."""
    rules = make_rules("yatzy")
    cells = [None if row in open_rows else 5 for row in rules.rows]
    numbers = [r for r in range(6) if cells[r] is not None]
    for r in numbers:  # split ``upper`` over the filled number rows, each a multiple of its face
        cells[r] = 0
    left = upper
    for r in sorted(numbers, reverse=True):
        take = min(left // (r + 1), 5) * (r + 1)
        cells[r], left = take, left - take
    assert left == 0
    game = Game("yatzy", seed=1)
    batch = game.batch
    mask = sum(1 << r for r, c in enumerate(cells) if c is not None)
    batch.filled[0, 0, 0] = mask
    batch.cells[0, 0, 0] = [0 if c is None else c for c in cells]
    batch.turn[0] = mask.bit_count()
    batch.dice[0] = rules.dice.index_of_dice(hand)
    batch.roll[0] = roll
    values = ExactCoach(game.layout).values(batch, np.array([0]))[0]
    expected = _action_values(tuple(cells), hand, rules.rolls - roll)
    lay = game.layout
    legal = np.flatnonzero(np.isfinite(values))
    assert len(legal) == len(expected)
    for (kind, what), value in expected.items():
        if kind == "fill":
            action = what
        else:
            action = lay.n_cells + int(rules.dice.keep_index(np.array(counts_of(what))))
        assert values[action] == pytest.approx(value, abs=1e-9), (kind, what)
    best = max(expected.values())
    for (kind, what), value in expected.items():  # a loss is the brute force's difference, classed by it
        action = what if kind == "fill" else lay.n_cells + int(rules.dice.keep_index(np.array(counts_of(what))))
        assert values.max() - values[action] == pytest.approx(best - value, abs=1e-9)
        assert classify(values.max() - values[action]) == classify(best - value) or abs(best - value - 0.5) < 1e-6


def test_classes_by_points_lost():
    assert [classify(x) for x in (0.0, 0.49, 0.5, 1.99, 2.0, 4.99, 5.0, 80.0)] == [
        "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


@pytest.mark.parametrize("name", ["expectimax", "best"])
def test_a_yamb_game_played_by_the_coach_bot_loses_nothing_by_its_values(name):
    game = Game("yamb", seed=9)
    coach = make_coach(game.layout, name)
    _play(game, make_player(name, game.layout))
    review = review_game(game, coach)
    assert not review.exact and review.coach == name
    assert max(d.loss for d in review.decisions) <= 1e-9
    assert {d.kind for d in review.decisions} >= {"keep", "fill", "announce"}


def test_a_blunder_is_found_with_the_better_decision():
    """Writing a Yatzy into chance on the first turn is a blunder the exact coach names."""
    rules = make_rules("yatzy")
    batch = GameBatch(Game("yatzy").layout, 20_000, seed=0)  # game stream s rolls the dice of Game(stream=s)
    stream = int(np.flatnonzero(rules.five_alike_face[batch.dice] > 0)[0])
    game = Game("yatzy", seed=0, stream=stream)
    assert max(counts_of(game.dice)) == 5
    game.fill("free", "chance")
    review = review_game(game)
    (decision,) = review.decisions
    assert decision.label == "blunder" and decision.best == "fill free:yatzy"
    assert decision.loss == pytest.approx(decision.best_value - decision.value)


@pytest.mark.parametrize("preset,kept,left", [("yatzy", (6, 6, 6), 1), ("yatzy", (2, 3), 2), ("yamb", (5, 5), 1),
                                              ("yamb", (), 1), ("yahtzee", (1, 2, 3, 4), 2)])
def test_keep_outcomes_are_the_enumerated_chances(preset, kept, left):
    rules = make_rules(preset)
    out = keep_outcomes(rules, kept, left)
    assert sum(out.classes.values()) == pytest.approx(1.0, abs=1e-12)
    rows = [rules.rows[r] for r in pattern_rows(rules)]
    assert list(out.next_roll) == rows and list(out.classes) == [*rows, NONE]
    rolls = _enumerate(rules.n_dice - len(kept))

    def made(row, hand):
        return rules.score(row, hand) > 0

    @cache
    def chase(row, hand, rolls_left):  # the chance of making ``row`` by the last roll, keeping the best dice
        if made(row, hand) or rolls_left == 0:
            return float(made(row, hand))
        return max(np.mean([chase(row, tuple(sorted(k + r)), rolls_left - 1) for r in _enumerate(5 - len(k))])
                   for size in range(5) for k in set(itertools.combinations(hand, size)))

    for row in rows:
        hands = [tuple(sorted(kept + r)) for r in rolls]
        assert out.next_roll[row] == pytest.approx(np.mean([made(row, h) for h in hands]), abs=1e-12)
        assert out.by_end[row] == pytest.approx(np.mean([chase(row, h, left - 1) for h in hands]), abs=1e-12)
    rarest = [next((row for row in rows if made(row, tuple(sorted(kept + r)))), NONE) for r in rolls]
    for name, chance in out.classes.items():
        assert chance == pytest.approx(rarest.count(name) / len(rolls), abs=1e-12)


def test_judging_each_move_before_it_is_played_agrees_with_the_review():
    game = Game("yatzy", seed=2)
    rng = np.random.default_rng(2)
    coach = make_coach(game.layout)
    judged = []
    while not game.is_over():
        action = int(rng.choice(game.legal_actions()))
        judged.append(judge(game, action, coach))
        game.apply(action)
    review = review_game(game, coach)
    assert [d.loss for d in judged] == pytest.approx([d.loss for d in review.decisions], abs=1e-9)
    assert [d.best for d in judged] == [d.best for d in review.decisions]


def test_yamb_review_prints_a_saved_games_review(tmp_path, capsys):
    game = Game("yatzy", players=2, seed=6)
    rng = np.random.default_rng(6)
    while not game.is_over():
        game.apply(int(rng.choice(game.legal_actions())))
    path = tmp_path / "game.json"
    write_save(path, game.to_dict(), [{"name": "Ana", "bot": None}, {"name": "bot", "bot": "random"}])
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    review = review_game(game)
    assert [p["loss"] for p in data["players"]] == pytest.approx([p.loss for p in review.players])
    assert [p["name"] for p in data["players"]] == ["Ana", "bot (random)"]
    assert data["exact"] and len(data["decisions"]) == len(game.history)
    assert main(["review", str(path), "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "exact values" in text and text.count(", turn ") == 3 and "Expected final score by turn" in text
    path.write_text("{")
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a saved game" in err


def _spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "120", "LINES": "40", "PYTHONPATH": str(ROOT)}
    return spawn_play(*args, env=env, lines=40, columns=120)


@pytest.mark.slow
@pytest.mark.parametrize("coached", [True, False])
def test_yamb_play_says_what_each_move_cost_unless_told_not_to(coached):
    """After a person's keep the coach names its class and loss (exact on Yatzy) at once and in
    the next panel; ``--no-coach`` says nothing."""
    child = _spawn("--preset", "yatzy", "--bots", "0", "--seed", "4", *([] if coached else ["--no-coach"]))
    child.expect_exact("keep> ")
    child.sendline("none")
    child.expect_exact("keep> ")
    said = re.findall(r"coach \(exact values\): keep nothing: (best|good|inaccuracy|mistake|blunder)", child.before)
    assert len(said) >= (2 if coached else 0) and (coached or not said)
    child.sendcontrol("c")
    child.expect_exact("(Enter to quit without saving)")
    child.sendline("")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_a_finished_game_is_reviewed_for_every_seat():
    child = _spawn("--preset", "yatzy", "--humans", "0", "--bots", "2", "--bot", "expectimax", "--seed", "3")
    child.expect(pexpect.EOF)
    text = child.before
    assert "Review by the coach optimal (exact values), game finished" in text
    assert "expectimax 1 (expectimax)" in text and "expectimax 2 (expectimax)" in text
    assert "Expected final score by turn:" in text


@pytest.mark.parametrize("preset,seed", [("yamb", 2), ("yatzy", 3), ("yahtzee", 4)])
def test_a_fills_search_value_is_the_change_of_the_estimated_total(preset, seed):
    """``column_estimate`` is the total whose changes ``column_values`` gives: for every open
    number or collection row (rows whose weight does not hang on the spread's sign) and every hand
    of the game's turns, filling the row moves the estimate by expectimax's value of the fill."""
    game = Game(preset, seed=seed)
    player = make_player("expectimax", game.layout)
    coach = make_coach(game.layout, "expectimax")
    rules, lay = game.rules, game.layout
    skip = {rules.row_index("max"), rules.row_index("min")} if rules.spec.difference else set()
    checked = 0
    while not game.is_over():
        if game.turns_played % 3 == 1 and game.roll_number == 1:
            values = fill_values(player, game.batch, np.zeros(lay.n_cells, dtype=np.int64), np.arange(lay.n_cells))
            before = _estimate(coach, game.batch)
            for cell in range(lay.n_cells):
                c, r = divmod(cell, lay.n_rows)
                if r in skip or game.batch.filled[0, 0, c] >> r & 1 or rules.five_alike_face[game.batch.dice[0]]:
                    continue
                trial = game.batch.fork(np.array([0]))
                trial.filled[0, 0, c] |= np.uint32(1 << r)
                trial.cells[0, 0, c, r] = rules.scores[game.batch.dice[0], r]
                assert _estimate(coach, trial) - before == pytest.approx(values[cell], abs=1e-9)
                checked += 1
        game.apply(int(player.act(game.batch, np.zeros(1, dtype=np.int64))[0]))
    assert checked > 20


def _estimate(coach, batch) -> float:
    out = np.empty(1)
    estimates(np.zeros(1, dtype=np.int64), batch.state, coach.player.tables, batch.rules.spec.extra_yahtzee_bonus, out)
    return float(out[0])
