"""Whole-game solvers against a brute-force expectimax over the full game tree, and published optima."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

import yamb
from expected_scores.column import column_total
from expected_scores.ordered_column import row_order
from expected_scores.solitaire import solve_solitaire
from expected_scores.solve import solve
from expected_scores.turn import plan_turn
from yamb.engine import GameBatch
from yamb.errors import UnknownColumnError, YambError
from yamb.layout import layout
from yamb_app.cli import main

pytestmark = pytest.mark.usefixtures("private_cache")  # one private solution cache for this module


def turn_expectimax(leaf: np.ndarray, dice, rolls: int) -> float:
    """Expected value of a turn whose final multiset m is worth leaf[m]: exhaustive keep search."""
    first_full = dice.n_keeps - dice.n_multisets
    subs = dice.sub_keeps
    proper = (subs >= 0) & (subs < first_full)
    value = leaf
    for _ in range(rolls - 1):
        kept = dice.outcome_prob @ value
        value = np.maximum(leaf, np.where(proper, kept[subs], -np.inf).max(axis=1))
    return float(dice.outcome_prob[0] @ value)


def brute_force(rules, allowed_rows, rolls_of):
    """Expected final score of the game from ``cells`` (None: open) and the extra Yahtzees so far.

    ``allowed_rows(cells, m)`` lists the rows that may take multiset m; ``rolls_of(cells)``
    the rolls of the turn. Final scores come from ``Rules.column_totals`` plus the extra
    Yahtzee bonuses, so no intermediate bookkeeping is shared with the solvers.
    """
    yz = rules.row_index("yahtzee") if rules.has_jokers else None
    five = rules.dice.multisets.max(axis=1) == 5
    face = rules.dice.multisets.argmax(axis=1)  # face - 1

    @cache
    def value(cells: tuple, extra: int) -> float:
        if None not in cells:
            total = int(rules.column_totals(np.array(cells))["total"])
            return total + rules.spec.extra_yahtzee_bonus * extra
        leaf = np.full(rules.dice.n_multisets, -np.inf)
        for m in range(rules.dice.n_multisets):
            bonus = int(yz is not None and five[m] and cells[yz] == 50)
            joker = yz is not None and five[m] and cells[yz] is not None and cells[face[m]] is not None
            for r in allowed_rows(cells, m):
                score = int((rules.joker_scores if joker else rules.scores)[m, r])
                nxt = cells[:r] + (score,) + cells[r + 1:]
                leaf[m] = max(leaf[m], value(nxt, extra + bonus))
        return turn_expectimax(leaf, rules.dice, rolls_of(cells))

    return value


def free_rows(rules):
    """Open rows, with the forced joker of docs/rules.md when the rules have it."""
    five = rules.dice.multisets.max(axis=1) == 5
    face = rules.dice.multisets.argmax(axis=1)

    def allowed(cells, m):
        open_rows = [r for r, c in enumerate(cells) if c is None]
        yz = rules.row_index("yahtzee") if rules.has_jokers else None
        if rules.joker != "forced" or not five[m] or cells[yz] is None:
            return open_rows
        if cells[face[m]] is None:
            return [face[m]]
        lower = [r for r in open_rows if r >= 6]
        return lower or open_rows

    return allowed


def ordered_rows(order):
    def allowed(cells, m):
        return [next(r for r in order if cells[r] is None)]

    return allowed


def solver_total(solution, lay, cells: dict[str, int]) -> float:
    """Points already earned plus the solver's value of the state, read through a GameBatch."""
    rules = lay.rules
    batch = GameBatch(lay, 1)
    for row, score in cells.items():
        r = rules.row_index(row)
        batch.filled[0, 0, 0] |= np.uint32(1 << r)
        batch.cells[0, 0, 0, r] = score
    earned = float(batch.scores()[0, 0])
    state = solution.state_of(batch, np.array([0]))
    value = float(solution.value(*state)[0])
    # the stored value is the turn optimizer run on the solver's own turn options
    replanned = plan_turn(solution.turn_options(*state), rules.dice, int(batch.rolls_allowed[0])).start[0]
    assert replanned == pytest.approx(value, rel=1e-12)
    dice = np.arange(rules.dice.n_multisets)
    n = len(dice)
    best_fill = solution.fill_values(*(np.repeat(s, n, axis=0) for s in state), dice).max(axis=1)
    assert np.allclose(best_fill, solution.turn_options(*state)[0], rtol=1e-12)
    return earned + value


def _cells_tuple(rules, cells: dict[str, int]) -> tuple:
    return tuple(cells.get(row) for row in rules.rows)


def _endgame(rules, cells: dict[str, int]):
    """The solitaire solution of the states below ``cells``' filled rows only."""
    return solve_solitaire(rules, filled=sum(1 << rules.row_index(row) for row in cells))


YAHTZEE_CASES = [
    # yahtzee holds 50: jokers, extra bonuses and the numbers bonus (48 + fives) at stake
    {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "sixes": 18, "three_of_a_kind": 20,
     "four_of_a_kind": 0, "small_straight": 30, "yahtzee": 50, "chance": 22},
    # yahtzee open: the first one scores 50, so a second in this game earns the bonus
    {"twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "three_of_a_kind": 20,
     "four_of_a_kind": 0, "full_house": 25, "small_straight": 30, "large_straight": 40},
    # yahtzee scratched: jokers without extra bonuses
    {"aces": 2, "twos": 6, "threes": 9, "fours": 12, "fives": 20, "three_of_a_kind": 20,
     "four_of_a_kind": 0, "small_straight": 30, "yahtzee": 0, "chance": 22},
]


@pytest.mark.parametrize("joker", ["free", "forced"])
@pytest.mark.parametrize("case", range(len(YAHTZEE_CASES)))
def test_yahtzee_matches_brute_force(joker, case):
    rules = yamb.rules("yahtzee", joker=joker)
    cells = YAHTZEE_CASES[case]
    solution = _endgame(rules, cells)
    brute = brute_force(rules, free_rows(rules), lambda c: rules.rolls)
    expected = brute(_cells_tuple(rules, cells), 0)
    assert solver_total(solution, layout(rules), cells) == pytest.approx(expected, rel=1e-10)


@pytest.mark.slow
def test_yahtzee_optimum_is_verhoeffs():
    assert solve("yahtzee").expected_score == pytest.approx(254.5896, abs=1e-3)  # free-choice joker


def test_yatzy_matches_brute_force():
    rules = yamb.rules("yatzy")
    cells = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "two_pairs": 14,
             "three_of_a_kind": 12, "four_of_a_kind": 0, "small_straight": 15,
             "large_straight": 0, "full_house": 18, "chance": 22}
    brute = brute_force(rules, free_rows(rules), lambda c: rules.rolls)
    expected = brute(_cells_tuple(rules, cells), 0)
    assert solver_total(_endgame(rules, cells), layout(rules), cells) == pytest.approx(expected, rel=1e-10)


UP_CASES = [
    ("yamb", 5, {"yamb": 0, "carriage": 52, "full_house": 0, "straight": 45, "two_pairs": 24,
                 "min": 25, "max": 10, "sixes": 18, "fives": 15, "fours": 12}),  # max < min
    ("yamb", 5, {"yamb": 0, "carriage": 52, "full_house": 0, "straight": 45, "two_pairs": 24,
                 "min": 8, "max": 27, "sixes": 18, "fives": 15, "fours": 12}),
    ("jamb6", 6, {"yamb": 0, "poker": 66, "full_house": 0, "straight": 50, "trips": 35,
                  "min": 12, "max": 27, "sixes": 24, "fives": 15, "fours": 12, "threes": 6}),
]


@pytest.mark.parametrize("case", range(len(UP_CASES)))
def test_up_column_matches_brute_force(case):
    preset, dice, cells = UP_CASES[case]
    rules = yamb.rules(preset, dice)
    order = row_order(rules, "up")
    brute = brute_force(rules, ordered_rows(order),
                        lambda c: rules.spec.last_turn_rolls if c.count(None) == 1 else rules.rolls)
    expected = brute(_cells_tuple(rules, cells), 0)
    solution = solve(preset, ["up"], dice=dice)
    assert solver_total(solution, layout(rules, ["up"]), cells) == pytest.approx(expected, rel=1e-10)


def test_down_column_equals_independent_rows():
    # Going down, every row's own best policy is also best for the bonus and the
    # difference (ones, max and min are filled in that order), so the optimum is the
    # expected column total of rows played alone, computed exactly elsewhere.
    rules = yamb.rules("yamb")
    assert solve("yamb", ["down"]).expected_score == pytest.approx(float(column_total(rules, 3)["total"]), rel=1e-12)


def test_solutions_are_cached(private_cache):
    first = solve("yamb", ["up"])
    assert list(private_cache.glob("yamb-5dice-up-*.npz"))
    again = solve("yamb", ["up"])
    assert again.seconds == first.seconds and np.array_equal(again.values, first.values)


def test_unsupported_tables_raise_precise_errors():
    with pytest.raises(UnknownColumnError, match="one free column"):
        solve("yamb")
    with pytest.raises(YambError, match="jokers"):
        solve("yahtzee", ["down"])
    with pytest.raises(UnknownColumnError, match="unknown column kind"):
        solve("yatzy", ["sideways"])


def test_cli_json(capsys):
    assert main(["solve", "--preset", "yatzy", "--columns", "up", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["expected_score"] == pytest.approx(float(column_total(yamb.rules("yatzy"), 3)["total"]), rel=1e-12)
    assert out["seconds"] > 0 and out["states"] > 0
    assert main(["solve", "--preset", "yamb"]) == 2


def test_cli_says_a_cached_solution_was_loaded_not_solved(capsys):
    """``--cached`` printed "178 states solved in 19.4 s" for a load of a moment: the time of the solve it loaded."""
    assert main(["solve", "--preset", "yatzy", "--columns", "down", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["loaded"] is False  # solved (and cached)
    assert main(["solve", "--preset", "yatzy", "--columns", "down", "--cached", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["loaded"] is True
    assert main(["solve", "--preset", "yatzy", "--columns", "down", "--cached"]) == 0
    assert "once, loaded from the cache now" in capsys.readouterr().out


@pytest.mark.parametrize("damage", ["cut short", "flipped byte", "member missing"])
def test_a_damaged_cached_solution_is_solved_again_with_one_line(private_cache, capsys, damage):
    """A cached solution cut short (a full disk, a killed copy), with a flipped bit, or without a member
    is said in one line naming the file and solved again (it is a cache), never a traceback."""
    first = solve("yatzy", ["down"])
    path = next(private_cache.glob("yatzy-5dice-down-*.npz"))
    data = path.read_bytes()
    if damage == "cut short":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped byte":
        path.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
    else:
        with np.load(path) as f:
            kept = {name: f[name] for name in f.files if name != "values"}
        np.savez_compressed(path.with_suffix(""), **kept)  # numpy adds the .npz back
    capsys.readouterr()
    again = solve("yatzy", ["down"])
    err = capsys.readouterr().err
    assert f"the cached solution {path} is damaged" in err and "solving it again" in err and "Traceback" not in err
    assert np.array_equal(again.values, first.values)
    assert np.array_equal(solve("yatzy", ["down"]).values, first.values)  # the cache written whole again
    assert capsys.readouterr().err == ""
