"""Exact per-row expected scores: published values, closed forms, brute force and the shipped files."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import yamb
from expected_scores.column import column_total
from expected_scores.exact import row_result
from expected_scores.tables import FILES, compute, load_distribution, load_table, preset_dice, read, write
from expected_scores.turn import row_plan
from yamb.errors import UnknownPresetError, UnknownRowError, YambError
from yamb_app.cli import main

# The tables the program reads ship in the package; their other layouts (one_roll*.csv) are lab data
LAB_TABLES = next(p / "lab" / "expected_scores" for p in Path(__file__).resolve().parents
                  if (p / "lab" / "expected_scores").is_dir())

# The original project's published single-roll values for the yamb preset.
PUBLISHED_ONE_ROLL = {
    "two_pairs": Fraction(175, 27),
    "straight": Fraction(100, 81),
    "full_house": Fraction(2375, 1296),
    "carriage": Fraction(13, 12),
    "yamb": Fraction(5, 96),
    "ones": Fraction(5, 6),
}
PUBLISHED_COLUMN_TOTAL = Fraction(8117, 288)


@pytest.fixture(scope="module")
def fresh() -> dict[str, pd.DataFrame]:
    return compute()


def test_single_roll_values_equal_the_published_ones():
    rules = yamb.rules("yamb")
    shipped = read("table")
    shipped = shipped[(shipped.preset == "yamb") & (shipped.dice == 5) & (shipped.policy == "roll")]
    for row, value in PUBLISHED_ONE_ROLL.items():
        assert row_result(rules, row, 1).value == value
        line = shipped[shipped.row == row].iloc[0]
        assert Fraction(int(line.numerator), int(line.denominator)) == value


@pytest.mark.parametrize("preset,dice", [("yamb", 5), ("yatzy", 5), ("jamb6", 6)])
def test_single_roll_is_the_mean_over_all_ordered_rolls(preset, dice):
    rules = yamb.rules(preset, dice)
    codes = np.array(list(product(range(1, 7), repeat=dice)))
    counts = (codes[:, :, None] == np.arange(1, 7)).sum(axis=1)
    m = rules.dice.multiset_index(counts)
    for r, row in enumerate(rules.rows):
        expected = Fraction(int(rules.scores[m, r].astype(np.int64).sum()), len(codes))
        assert row_result(rules, row, 1).value == expected


def test_whole_column_total_is_the_published_bonus_free_sum():
    # 8117/288 = sum of the single-roll values of the number and collection rows; the
    # difference contributes E[ones] (E[max] - E[min]) = 0. The exact expectation adds
    # 30 x P(six independent number rolls sum to 60 or more), brute-forced here.
    totals = column_total(yamb.rules("yamb"), rolls=1)
    assert totals["total"] - totals["bonus"] == PUBLISHED_COLUMN_TOTAL
    assert totals["difference"] == 0
    table = load_table("yamb", 5, "roll")
    no_max_min = table.drop(["max", "min"]).sum()
    assert no_max_min == pytest.approx(float(PUBLISHED_COLUMN_TOTAL), rel=1e-12)
    binomial = [Fraction(comb(5, k) * 5 ** (5 - k), 6**5) for k in range(6)]
    reach = Fraction(0)
    for ks in product(range(6), repeat=6):
        if sum(f * k for f, k in zip(range(1, 7), ks)) >= 60:
            p = Fraction(1)
            for k in ks:
                p *= binomial[k]
            reach += p
    assert totals["bonus"] == 30 * reach


def test_number_row_turn_distribution_is_binomial():
    # Each die ends on face f with probability q = 1 - (5/6)^3 when chasing f.
    q = 1 - Fraction(5, 6) ** 3
    for preset, dice in (("yamb", 5), ("yahtzee", 5)):
        dist = row_result(yamb.rules(preset, dice), yamb.rules(preset).rows[2], 3).distribution
        expected = {3 * k: comb(5, k) * q**k * (1 - q) ** (5 - k) for k in range(6)}
        assert dist == expected


def test_turn_values_match_the_float_turn_optimizer(fresh):
    table = fresh["table"]
    for preset, dice in preset_dice():
        rules = yamb.rules(preset, dice)
        high, low = row_plan(rules).start, -row_plan(rules, lowest=True).start
        got = table[(table.preset == preset) & (table.dice == dice) & (table.policy == "turn")]
        for r, row in enumerate(rules.rows):
            line = got[got.row == row].iloc[0]
            exact = Fraction(int(line.numerator), int(line.denominator))
            assert float(exact) == pytest.approx(low[r] if row == "min" else high[r], rel=1e-12)


def test_distributions_sum_to_one_and_average_to_the_value(fresh):
    table, dists = fresh["table"], fresh["distributions"]
    key = ["preset", "dice", "row", "policy"]
    for k, group in dists.groupby(key):
        probs = [Fraction(int(a), int(b)) for a, b in zip(group.numerator, group.denominator)]
        assert sum(probs) == 1
        mean = sum((s * p for s, p in zip(group.score, probs)), Fraction(0))
        line = table.set_index(key).loc[k]
        assert mean == Fraction(int(line.numerator), int(line.denominator))


def test_shipped_files_equal_a_fresh_computation(fresh, tmp_path):
    from expected_scores.tables import DATA_DIR

    write(fresh, tmp_path)
    for filename, _ in FILES.values():
        shipped = DATA_DIR / filename if (DATA_DIR / filename).is_file() else LAB_TABLES / filename
        assert (tmp_path / filename).read_text() == shipped.read_text(), filename


def test_both_one_roll_flavours_hold_the_same_numbers():
    pd.testing.assert_frame_equal(read("one_roll", LAB_TABLES), read("one_roll_semicolon", LAB_TABLES))


def test_loaders():
    turn = load_table("yahtzee")
    assert list(turn.index) == list(yamb.rules("yahtzee").rows)
    assert turn["chance"] == pytest.approx(70 / 3, rel=1e-12)  # 5 dice, each worth 14/3 over 3 rolls
    dist = load_distribution("yamb", "yamb", 5, "roll")
    assert dist.sum() == pytest.approx(1)
    assert dist[0] == pytest.approx(1 - 6 / 6**5)  # only five alike score
    with pytest.raises(YambError, match="unknown policy"):
        load_table("yamb", policy="best")
    with pytest.raises(UnknownPresetError):
        load_table("yamb", dice=7)
    with pytest.raises(UnknownRowError):
        load_distribution("chance", "yamb")


def test_cli_writes_the_tables(tmp_path, capsys):
    assert main(["expected-scores", "--preset", "yatzy", "--out", str(tmp_path)]) == 0
    assert "yatzy" in capsys.readouterr().out
    written = pd.read_csv(tmp_path / "expected_scores.csv")
    assert set(written.preset) == {"yatzy"} and len(written) == 2 * 15
    assert main(["expected-scores", "--preset", "nope"]) == 2
