"""The turn optimizer against a plain exhaustive search over every keep and every ordered roll."""

from __future__ import annotations

from functools import cache
from itertools import combinations, product

import numpy as np
import pytest

import yamb
from expected_scores.turn import STOP, announce_values, keep_values, plan_turn, row_plan
from yamb.errors import YambError


def brute_force(options, pure, rolls: int, n_dice: int, index):
    """Expectimax over dice tuples: returns (held, kept) value functions.

    ``held(dice, t, fresh)``: value right after roll t + 1 holding sorted ``dice``,
    ``fresh`` when every die was just thrown; ``kept(keep, t)``: value of keeping
    ``keep`` after roll t + 1 and rolling the others.
    """

    @cache
    def held(dice: tuple[int, ...], t: int, fresh: bool) -> float:
        m = index(dice)
        value = options[t][m]
        if fresh and pure is not None:
            value = max(value, pure[t][m])
        if t + 1 < rolls:
            subs = {tuple(sorted(c)) for size in range(n_dice) for c in combinations(dice, size)}
            value = max([value] + [kept(keep, t) for keep in subs])
        return value

    @cache
    def kept(keep: tuple[int, ...], t: int) -> float:
        rest = n_dice - len(keep)
        outcomes = product(range(1, 7), repeat=rest)
        total = sum(held(tuple(sorted(keep + roll)), t + 1, rest == n_dice) for roll in outcomes)
        return total / 6**rest

    return held, kept


def _start(held, n_dice: int) -> float:
    rolls = product(range(1, 7), repeat=n_dice)
    return sum(held(tuple(sorted(r)), 0, True) for r in rolls) / 6**n_dice


def _check_plan(plan, b, options, pure, rules, rolls):
    dice = rules.dice
    index = {tuple(int(x) for x in f): m for m, f in enumerate(dice.faces)}
    held, kept = brute_force(options, pure, rolls, rules.n_dice, index.__getitem__)
    assert plan.start[b] == pytest.approx(_start(held, rules.n_dice), rel=1e-12)
    for t in range(rolls):
        for m, faces in enumerate(dice.faces):
            d = tuple(int(x) for x in faces)
            expected = held(d, t, t == 0)
            assert plan.value[t, b, m] == pytest.approx(expected, rel=1e-12, abs=1e-12)
            k = plan.keep[t, b, m]
            if k == STOP:
                option = options[t][m] if pure is None or t else max(options[t][m], pure[t][m])
                assert option == pytest.approx(expected, rel=1e-12)
            else:
                counts = dice.keeps[k]
                assert (counts <= dice.multisets[m]).all() and counts.sum() < rules.n_dice
                keep = tuple(f + 1 for f in range(6) for _ in range(counts[f]))
                assert kept(keep, t) == pytest.approx(expected, rel=1e-12)


def test_random_options_per_roll_match_exhaustive_search():
    rules = yamb.rules("yamb")
    rng = np.random.default_rng(1)
    options = rng.normal(size=(3, 2, rules.dice.n_multisets))
    options[1:, 1] = -np.inf  # item 1: only the first roll may end the turn (a hand cell)
    plan = plan_turn(options, rules.dice, rolls=3)
    for b in range(2):
        _check_plan(plan, b, options[:, b], None, rules, 3)


def test_one_row_plans_match_exhaustive_search():
    rules = yamb.rules("yatzy")
    plan = row_plan(rules)
    for row in ("small_straight", "full_house", "yatzy"):
        r = rules.row_index(row)
        opts = [rules.scores[:, r].astype(float)] * 3
        _check_plan(plan, r, opts, None, rules, 3)


def test_pure_hand_options_match_exhaustive_search():
    rules = yamb.rules("yamb")
    rng = np.random.default_rng(2)
    options = rng.normal(size=(1, rules.dice.n_multisets))
    pure = options + rng.exponential(size=(3, 1, rules.dice.n_multisets))
    plan = plan_turn(options, rules.dice, rolls=3, pure=pure)
    _check_plan(plan, 0, [options[0]] * 3, pure[:, 0], rules, 3)


@pytest.mark.parametrize("rolls", [1, 2, 5])
def test_other_roll_counts(rolls):
    rules = yamb.rules("yahtzee")
    scores = rules.scores[:, rules.row_index("large_straight")].astype(float)
    plan = plan_turn(scores[None], rules.dice, rolls=rolls)
    _check_plan(plan, 0, [scores] * rolls, None, rules, rolls)


def test_six_dice_two_rolls():
    rules = yamb.rules("jamb6")
    scores = rules.scores[:, rules.row_index("poker")].astype(float)
    plan = plan_turn(scores[None], rules.dice, rolls=2)
    _check_plan(plan, 0, [scores] * 2, None, rules, 2)


@pytest.mark.slow
def test_keep_values_are_means_over_ordered_rolls():
    rules = yamb.rules("yamb")
    dice = rules.dice
    rng = np.random.default_rng(3)
    nxt = rng.normal(size=(2, dice.n_multisets))
    got = keep_values(nxt, dice)
    assert np.allclose(got, nxt @ dice.outcome_prob.T, rtol=1e-12)
    index = {tuple(int(x) for x in f): m for m, f in enumerate(dice.faces)}
    for k in (0, 3, 40, 300):
        keep = tuple(f + 1 for f in range(6) for _ in range(dice.keeps[k][f]))
        rest = 5 - len(keep)
        rolls = list(product(range(1, 7), repeat=rest))
        direct = sum(nxt[1, index[tuple(sorted(keep + r))]] for r in rolls) / len(rolls)
        assert got[1, k] == pytest.approx(direct, rel=1e-12)


def test_a_number_row_alone_matches_its_closed_form():
    # Chasing face f for three rolls: each die shows f by the end with probability 1 - (5/6)^3.
    plan = row_plan(yamb.rules("yamb"))
    faces = np.arange(1, 7)
    assert np.allclose(plan.start[:6], 5 * faces * (1 - (5 / 6) ** 3), rtol=1e-12)


def test_lowest_plan_mirrors_the_highest():
    # Aiming for the lowest sum is aiming for the highest sum of 7 - d.
    rules = yamb.rules("yamb")
    hi, lo = rules.row_index("max"), rules.row_index("min")
    assert -row_plan(rules, lowest=True).start[lo] == pytest.approx(35 - row_plan(rules).start[hi], rel=1e-12)


def test_best_keep_reads_the_plan():
    rules = yamb.rules("yamb")
    plan = row_plan(rules)
    m = rules.dice.index_of_dice([6, 6, 6, 1, 2])
    keep = plan.best_keep(np.array([1]), np.array([m]), np.array([rules.row_index("carriage")]))[0]
    assert tuple(rules.dice.keeps[keep]) == (0, 0, 0, 0, 0, 3)
    assert plan.value_after(np.array([3]), np.array([m]))[rules.row_index("ones")] == 1


@pytest.mark.parametrize("roll", [1, 2])
def test_announcement_values_are_single_row_plans(roll):
    rules = yamb.rules("yamb")
    rows = [rules.row_index(r) for r in ("straight", "yamb", "min")]
    signs = np.array([1.0, 1.0, -1.0])
    options = (signs[:, None] * rules.scores[:, rows].T)[None].repeat(2, axis=0)  # (2 games, 3 rows, M)
    held = np.array([rules.dice.index_of_dice([1, 2, 3, 4, 6]), rules.dice.index_of_dice([5, 5, 5, 2, 1])])
    got = announce_values(options, rules.dice, 3, roll, held)
    high, low = row_plan(rules), row_plan(rules, lowest=True)
    for g in range(2):
        expected = [high.value[roll - 1, rows[0], held[g]], high.value[roll - 1, rows[1], held[g]],
                    low.value[roll - 1, rows[2], held[g]]]
        assert np.allclose(got[g], expected, rtol=1e-12)


def test_bad_shapes_raise_a_yamb_error():
    rules = yamb.rules("yamb")
    with pytest.raises(YambError, match="options must have shape"):
        plan_turn(np.zeros((2, 3, 252)), rules.dice, rolls=3)
    with pytest.raises(YambError, match="at least one roll"):
        plan_turn(np.zeros((1, 252)), rules.dice, rolls=0)
