"""Row scores and column totals against the plain reading of docs/rules.md in tests/reference_game.py."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations_with_replacement, permutations

import numpy as np
import pytest

from tests.reference_game import BONUS, JOKER_VALUES, ROWS, reference_column_total, reference_score
from yamb import InvalidDiceError, UnknownPresetError, UnknownRowError, rules

PRESETS = [("yamb", 5), ("yamb", 6), ("jamb6", 6), ("yatzy", 5), ("yahtzee", 5)]


@pytest.mark.parametrize(("preset", "dice"), PRESETS)
def test_every_row_of_every_multiset_matches_the_reference(preset: str, dice: int) -> None:
    r = rules(preset, dice=dice)
    assert r.rows == ROWS[preset]
    every_hand = set(combinations_with_replacement(range(1, 7), dice))
    assert {tuple(f) for f in r.dice.faces.tolist()} == every_hand
    for m, faces in enumerate(r.dice.faces.tolist()):
        expected = [reference_score(preset, row, tuple(faces)) for row in r.rows]
        assert r.scores[m].tolist() == expected, (preset, faces)


@pytest.mark.parametrize(("preset", "dice"), [("yamb", 6), ("jamb6", 6)])
def test_six_dice_face_rows_max_and_min_use_the_rule_book_formulas(preset: str, dice: int) -> None:
    r = rules(preset, dice=dice)
    for faces in r.dice.faces.tolist():
        m = r.dice.index_of_dice(faces)
        for f in range(1, 7):
            assert r.scores[m, f - 1] == f * min(faces.count(f), 5)
        assert r.scores[m, r.row_index("max")] == sum(sorted(faces)[1:])
        assert r.scores[m, r.row_index("min")] == sum(sorted(faces)[:5])


def test_joker_table_changes_only_five_alike_in_the_joker_rows() -> None:
    r = rules("yahtzee")
    for m, faces in enumerate(r.dice.faces.tolist()):
        for j, row in enumerate(r.rows):
            alike = len(set(faces)) == 1
            expected = JOKER_VALUES[row] if alike and row in JOKER_VALUES else r.scores[m, j]
            assert r.joker_scores[m, j] == expected


@pytest.mark.parametrize(
    ("preset", "dice", "row", "hand", "expected"),
    [
        ("yamb", 5, "full_house", [2, 2, 3, 3, 3], 13 + 30),
        ("yamb", 5, "two_pairs", [6, 6, 1, 1, 5], 2 * 6 + 2 * 1 + 10),
        ("yamb", 5, "straight", [5, 4, 3, 2, 1], 35),
        ("yamb", 5, "straight", [6, 4, 3, 2, 1], 0),
        # five alike: a carriage (four of them count), not a full house, not two pairs
        ("yamb", 5, "carriage", [4, 4, 4, 4, 4], 4 * 4 + 40),
        ("yamb", 5, "full_house", [4, 4, 4, 4, 4], 0),
        ("yamb", 5, "two_pairs", [4, 4, 4, 4, 4], 0),
        ("yamb", 5, "yamb", [4, 4, 4, 4, 4], 5 * 4 + 50),
        ("yamb", 5, "two_pairs", [3, 3, 3, 3, 5], 0),
        ("yamb", 6, "two_pairs", [2, 2, 5, 5, 6, 6], 2 * 6 + 2 * 5 + 10),
        ("yamb", 6, "ones", [1, 1, 1, 1, 1, 1], 5),
        ("yamb", 6, "full_house", [6, 6, 6, 5, 5, 5], 6 + 6 + 6 + 5 + 5 + 30),
        # jamb6: best five of six
        ("jamb6", 6, "straight", [1, 2, 3, 4, 5, 6], 50),
        ("jamb6", 6, "straight", [1, 2, 3, 4, 5, 5], 45),
        ("jamb6", 6, "full_house", [6, 6, 6, 5, 5, 5], 3 * 6 + 2 * 5 + 40),
        ("jamb6", 6, "full_house", [2, 2, 2, 6, 6, 1], 3 * 2 + 2 * 6 + 40),
        ("jamb6", 6, "full_house", [2, 2, 6, 6, 6, 6], 3 * 6 + 2 * 2 + 40),
        ("jamb6", 6, "min", [1, 6, 6, 5, 5, 4], 1 + 4 + 5 + 5 + 6),
        ("jamb6", 6, "max", [1, 6, 6, 5, 5, 4], 6 + 6 + 5 + 5 + 4),
        ("jamb6", 6, "trips", [2, 2, 2, 5, 5, 5], 3 * 5 + 20),
        ("jamb6", 6, "poker", [3, 3, 3, 3, 3, 3], 4 * 3 + 50),
        ("jamb6", 6, "yamb", [3, 3, 3, 3, 3, 1], 5 * 3 + 60),
        ("yatzy", 5, "one_pair", [3, 3, 5, 5, 1], 10),
        ("yatzy", 5, "two_pairs", [3, 3, 3, 3, 1], 0),
        ("yatzy", 5, "full_house", [6, 6, 6, 6, 6], 0),
        ("yatzy", 5, "three_of_a_kind", [6, 6, 6, 6, 6], 18),
        ("yahtzee", 5, "small_straight", [1, 2, 3, 4, 6], 30),
        ("yahtzee", 5, "small_straight", [1, 2, 3, 5, 6], 0),
        ("yahtzee", 5, "large_straight", [1, 2, 3, 4, 6], 0),
        ("yahtzee", 5, "full_house", [2, 2, 2, 2, 2], 0),
        ("yahtzee", 5, "four_of_a_kind", [2, 2, 2, 2, 5], 13),
    ],
)
def test_hand_worked_scores(preset: str, dice: int, row: str, hand: list[int], expected: int) -> None:
    r = rules(preset, dice=dice)
    for order in set(permutations(hand)):
        assert r.score(row, list(order)) == expected


def test_negative_difference_is_not_clamped_in_yamb_but_is_in_jamb6() -> None:
    for preset, expected_difference in (("yamb", 3 * (20 - 25)), ("jamb6", 0)):
        r = rules(preset)
        column = {"ones": 3, "twos": 6, "max": 20, "min": 25, "straight": 45}
        cells = np.zeros(r.n_rows, dtype=np.int16)
        for row, value in column.items():
            cells[r.row_index(row)] = value
        totals = r.column_totals(cells)
        assert totals["difference"] == expected_difference
        assert totals["numbers_sum"] == 9
        assert totals["collections_sum"] == 45
        assert totals["total"] == 9 + expected_difference + 45
        assert totals["total"] == reference_column_total(preset, column)


@pytest.mark.parametrize("preset", ["yamb", "jamb6", "yatzy", "yahtzee"])
def test_number_bonus_starts_exactly_at_its_threshold(preset: str) -> None:
    r = rules(preset)
    threshold, bonus = BONUS[preset]
    for numbers in (threshold - 1, threshold):
        cells = np.zeros(r.n_rows, dtype=np.int16)
        cells[5] = numbers  # any split of the sum over the number rows counts the same
        expected = numbers + (bonus if numbers >= threshold else 0)
        assert r.column_totals(cells)["numbers_sum"] == expected


@pytest.mark.parametrize("preset", ["yamb", "jamb6", "yatzy", "yahtzee"])
def test_column_totals_of_random_columns_match_the_reference(preset: str) -> None:
    r = rules(preset)
    rng = np.random.default_rng(7)
    cells = rng.integers(0, 80, size=(50, 3, r.n_rows)).astype(np.int16)
    totals = r.column_totals(cells)["total"]
    for n in range(50):
        for c in range(3):
            column = dict(zip(r.rows, cells[n, c].tolist()))
            assert totals[n, c] == reference_column_total(preset, column)


@pytest.mark.parametrize(
    ("call", "error", "needle"),
    [
        (lambda: rules("yamn"), UnknownPresetError, "unknown preset 'yamn'"),
        (lambda: rules("yatzy", dice=6), UnknownPresetError, "5 dice, not 6"),
        (lambda: rules("yamb", joker="forced"), UnknownPresetError, "no joker option"),
        (lambda: rules("yahtzee", joker="always"), UnknownPresetError, "joker option 'always'"),
        (lambda: rules().score("full_houze", [1, 1, 1, 1, 1]), UnknownRowError, "full_houze"),
        (lambda: rules().score("yamb", [1, 1, 1, 1]), InvalidDiceError, "expected 5 dice, got 4"),
        (lambda: rules().score("yamb", [1, 1, 1, 1, 0]), InvalidDiceError, "die value 0"),
        (lambda: rules().score("yamb", [1, 1, 1, 1, True]), InvalidDiceError, "die value True"),
    ],
)
def test_bad_input_raises_a_precise_error(call: Callable[[], object], error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        call()
