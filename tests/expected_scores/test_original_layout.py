"""Expected scores in the original Yamb project's layout (``lab/expected_scores/original/``, lab data: the
program reads none of these files, ``yamb expected-scores --layout original`` writes them)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from expected_scores.original_layout import write_original
from expected_scores.tables import preset_dice, read
from yamb_app.cli import main

# the repository's lab/ folder (the nearest one above this file)
LAB = next(p / "lab" for p in Path(__file__).resolve().parents if (p / "lab" / "expected_scores").is_dir())
ORIGINAL = LAB / "expected_scores" / "original"


def fractions(path: Path, **options: str) -> dict[str, Fraction]:
    df = pd.read_csv(path, **options)
    return {name: Fraction(int(a), int(b)) for name, a, b in zip(df.Slot_Name, df.Numerator, df.Denominator)}


@pytest.mark.slow
def test_the_shipped_files_equal_a_fresh_computation(tmp_path: Path) -> None:
    written = write_original(preset_dice(), tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in ORIGINAL.iterdir())
    for path in written:
        assert path.read_text() == (ORIGINAL / path.name).read_text(), path.name


def test_the_yamb_one_roll_file_is_the_original_table() -> None:
    lines = (ORIGINAL / "yamb-5d-roll.csv").read_text().splitlines()
    assert lines[0] == "Slot_Index;Slot_Name;Value;Fraction;Numerator;Denominator"
    assert lines[1] == "0;TOTAL;28,1840277777777778;8117/288;8117;288"  # the original's column total
    assert lines[2] == "1;ONES;0,8333333333333333;5/6;5;6"
    assert lines[11] == "10;SUMS_DIFFERENCE;0,0000000000000000;0/1;0;1"
    names = [line.split(";")[1] for line in lines[1:]]
    assert names == ["TOTAL", "ONES", "TWOS", "THREES", "FOURS", "FIVES", "SIXES", "NUMBERS_SUM", "MAX", "MIN",
                     "SUMS_DIFFERENCE", "TWO_PAIRS", "STRAIGHT", "FULL_HOUSE", "CARRIAGE", "YAMB", "COLLECTIONS_SUM"]
    values = fractions(ORIGINAL / "yamb-5d-roll.csv", sep=";", decimal=",")
    published = {"TWO_PAIRS": Fraction(175, 27), "STRAIGHT": Fraction(100, 81), "FULL_HOUSE": Fraction(2375, 1296),
                 "CARRIAGE": Fraction(13, 12), "YAMB": Fraction(5, 96), "NUMBERS_SUM": Fraction(35, 2),
                 "COLLECTIONS_SUM": Fraction(3077, 288)}
    assert {k: values[k] for k in published} == published


@pytest.mark.parametrize(("preset", "dice", "policy"), [("yamb", 6, "turn"), ("yatzy", 5, "turn"), ("jamb6", 6, "roll")])
def test_rows_are_the_shipped_fractions_and_sums_add_up(preset: str, dice: int, policy: str) -> None:
    stem = f"{preset}-{dice}d-{policy}"
    comma = pd.read_csv(ORIGINAL / f"{stem}.csv", sep=";", decimal=",")
    point = pd.read_csv(ORIGINAL / f"{stem}_us.csv")
    pd.testing.assert_frame_equal(comma, point)
    assert comma.Slot_Index.tolist() == list(range(len(comma)))
    values = fractions(ORIGINAL / f"{stem}_us.csv")
    table = read("table")
    table = table[(table.preset == preset) & (table.dice == dice) & (table.policy == policy)]
    rows = {row.upper(): Fraction(int(a), int(b)) for row, a, b in zip(table.row, table.numerator, table.denominator)}
    assert {k: values[k] for k in rows} == rows
    assert comma.Value.tolist() == pytest.approx([float(v) for v in values.values()], abs=1e-15)
    numbers = list(rows)[:6]
    assert values["NUMBERS_SUM"] == sum(rows[k] for k in numbers)  # without the bonus, as in the original
    others = [k for k in rows if k not in numbers and k not in ("MAX", "MIN")]
    assert values["COLLECTIONS_SUM"] == sum(rows[k] for k in others)
    assert values["TOTAL"] == values["NUMBERS_SUM"] + values.get("SUMS_DIFFERENCE", 0) + values["COLLECTIONS_SUM"]


def test_the_cli_writes_the_original_layout(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["expected-scores", "--layout", "original", "--preset", "yatzy", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "yatzy-5d-roll.csv", "yatzy-5d-roll_us.csv", "yatzy-5d-turn.csv", "yatzy-5d-turn_us.csv"]
    assert main(["expected-scores", "--layout", "original"]) == 2
    assert "give --out DIR" in capsys.readouterr().err
