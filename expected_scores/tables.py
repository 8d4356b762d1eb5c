"""The shipped expected-score tables: every preset and dice count, every row, two policies.

Policies: ``roll``, one roll of all dice; ``turn``, one whole turn (the preset's
rolls) played optimally for that row alone (lowest sum for ``min``). Files, each
read by one ``pandas.read_csv`` call (see ``FILES``):

- ``expected_scores.csv``: preset, dice, row, policy, value, numerator, denominator;
- ``score_distributions.csv``: preset, dice, row, policy, score, probability,
  numerator, denominator;
- ``one_roll.csv`` and ``one_roll_semicolon.csv`` (``sep=";", decimal=","``):
  the single-roll values alone, preset, dice, row, expected, fraction (this
  project's layout; ``original/`` holds the original project's layout, see
  ``expected_scores.original_layout``).

``yamb expected-scores --out DIR`` regenerates them; ``load_table`` reads them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from expected_scores.exact import row_result
from yamb.atomic import write_atomically
from yamb.errors import YambError
from yamb.presets import PRESETS
from yamb.rules import Rules, rules

POLICIES = ("roll", "turn")
DATA_DIR = Path(__file__).parent
FILES = {
    "table": ("expected_scores.csv", {}),
    "distributions": ("score_distributions.csv", {}),
    "one_roll": ("one_roll.csv", {}),
    "one_roll_semicolon": ("one_roll_semicolon.csv", {"sep": ";", "decimal": ","}),
}


def preset_dice(presets: list[str] | None = None) -> list[tuple[str, int]]:
    """(preset, dice) pairs of the given presets (default all), in preset order."""
    names = list(PRESETS) if presets is None else presets
    for name in names:
        rules(name)  # a precise error for an unknown preset
    return [(name, d) for name in names for d in PRESETS[name].dice_options]


def policy_rolls(r: Rules, policy: str) -> int:
    """Rolls of a turn under ``policy``: 1 for ``roll``, the preset's rolls for ``turn``."""
    return 1 if policy == "roll" else r.rolls


def compute(presets: list[str] | None = None) -> dict[str, pd.DataFrame]:
    """Every table of ``FILES``, computed exactly, for ``presets`` (default all)."""
    table, dists = [], []
    for name, n_dice in preset_dice(presets):
        r = rules(name, n_dice)
        for policy in POLICIES:
            rolls = policy_rolls(r, policy)
            for row in r.rows:
                result = row_result(r, row, rolls)
                key = {"preset": name, "dice": n_dice, "row": row, "policy": policy}
                table.append({**key, "value": float(result.value), "numerator": result.value.numerator,
                              "denominator": result.value.denominator})
                dists += [{**key, "score": s, "probability": float(p), "numerator": p.numerator,
                           "denominator": p.denominator} for s, p in result.distribution.items()]
    table_df = pd.DataFrame(table)
    one = table_df[table_df.policy == "roll"]
    one_roll = pd.DataFrame({
        "preset": one.preset, "dice": one.dice, "row": one.row, "expected": one.value,
        "fraction": [f"{a}/{b}" for a, b in zip(one.numerator, one.denominator)],
    })
    return {"table": table_df, "distributions": pd.DataFrame(dists), "one_roll": one_roll,
            "one_roll_semicolon": one_roll}


def write(tables: dict[str, pd.DataFrame], out_dir: Path) -> list[Path]:
    """Write ``tables`` (from ``compute``) as the CSV files of ``FILES``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for key, (filename, options) in FILES.items():
        path = out_dir / filename
        write_atomically(path, lambda tmp, key=key, options=options: tables[key].to_csv(tmp, index=False, **options))
        paths.append(path)
    return paths


def read(key: str, data_dir: Path = DATA_DIR) -> pd.DataFrame:
    """One shipped table by its ``FILES`` key."""
    filename, options = FILES[key]
    return pd.read_csv(data_dir / filename, **options)


def _select(df: pd.DataFrame, preset: str, dice: int | None, policy: str) -> tuple[pd.DataFrame, tuple]:
    if policy not in POLICIES:
        raise YambError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    r = rules(preset, dice)
    return df[(df.preset == preset) & (df.dice == r.n_dice) & (df.policy == policy)], r.rows


def load_table(preset: str = "yamb", dice: int | None = None, policy: str = "turn") -> pd.Series:
    """Expected score of every row (float, indexed by row name in the preset's order)."""
    df, rows = _select(read("table"), preset, dice, policy)
    return df.set_index("row")["value"].reindex(list(rows))


def load_distribution(row: str, preset: str = "yamb", dice: int | None = None, policy: str = "turn") -> pd.Series:
    """Probability of each score of ``row`` (float, indexed by score)."""
    df, _ = _select(read("distributions"), preset, dice, policy)
    rules(preset, dice).row_index(row)  # a precise error for an unknown row
    return df[df.row == row].set_index("score")["probability"]
