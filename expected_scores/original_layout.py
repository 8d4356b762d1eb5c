"""Expected scores in the original Yamb project's file layout, so code written for it reads ours.

One file per preset, dice count and policy, in two flavours:

- ``<preset>-<dice>d-<policy>.csv``: ``;`` between fields, decimal comma;
- ``<preset>-<dice>d-<policy>_us.csv``: ``,`` between fields, decimal point.

Header ``Slot_Index;Slot_Name;Value;Fraction;Numerator;Denominator``; one line
per slot of the score sheet, ``TOTAL`` first (index 0), then the rows in sheet
order with the computed rows where the sheet has them: the number rows,
``NUMBERS_SUM``, ``MAX`` and ``MIN`` and ``SUMS_DIFFERENCE`` (presets with a
difference row), the other rows, ``COLLECTIONS_SUM``. Slot names are the row
names in upper case. ``Value`` has 16 decimals, rounded from the exact
fraction; ``Fraction`` is ``Numerator/Denominator`` in lowest terms.

A row's value is its expected score played alone (``expected_scores.exact``,
the same fractions as ``expected_scores.csv``); a computed row's is the
exact expectation of that computed row over independently played rows
(``expected_scores.column.column_total``), and, as in the original (whose
yamb one-roll ``TOTAL`` is 8117/288), ``NUMBERS_SUM`` and ``TOTAL`` leave the
numbers bonus out.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from pathlib import Path

from expected_scores.column import column_total
from expected_scores.exact import row_result
from expected_scores.tables import POLICIES, policy_rolls
from yamb.atomic import write_atomically
from yamb.rules import N_NUMBER_ROWS, Rules, rules

HEADER = ("Slot_Index", "Slot_Name", "Value", "Fraction", "Numerator", "Denominator")
DECIMALS = 16
FLAVOURS = {"": (";", ","), "_us": (",", ".")}  # file suffix: (field separator, decimal mark)
COMPUTED = {"numbers_sum": "NUMBERS_SUM", "difference": "SUMS_DIFFERENCE", "collections_sum": "COLLECTIONS_SUM"}


def sheet_slots(r: Rules) -> list[str]:
    """The score sheet's slots in order: ``total``, rows and computed rows (lower case)."""
    rows = list(r.rows)
    numbers, rest = rows[:N_NUMBER_ROWS], rows[N_NUMBER_ROWS:]
    slots = ["total", *numbers, "numbers_sum"]
    if r.spec.difference is not None:
        slots += ["max", "min", "difference"]
        rest = [row for row in rest if row not in ("max", "min")]
    return [*slots, *rest, "collections_sum"]


def slot_values(r: Rules, rolls: int) -> dict[str, Fraction]:
    """The exact value of every slot (see the module docstring)."""
    computed = column_total(r, rolls)
    values = {row: row_result(r, row, rolls).value for row in r.rows}
    values.update({key: computed[key] for key in COMPUTED if key in computed})
    values["numbers_sum"] -= computed["bonus"]
    values["total"] = computed["total"] - computed["bonus"]
    return values


def decimal_text(value: Fraction, mark: str) -> str:
    """``value`` with ``DECIMALS`` decimals (rounded half to even from the exact fraction)."""
    with localcontext() as context:
        context.prec = 60
        text = format((Decimal(value.numerator) / Decimal(value.denominator)).quantize(
            Decimal(1).scaleb(-DECIMALS), rounding=ROUND_HALF_EVEN), "f")
    return text.replace(".", mark)


def file_text(r: Rules, rolls: int, separator: str, mark: str) -> str:
    """The text of one file."""
    values = slot_values(r, rolls)
    lines = [separator.join(HEADER)]
    for index, slot in enumerate(sheet_slots(r)):
        value = values[slot]
        fields = (str(index), COMPUTED.get(slot, slot.upper()), decimal_text(value, mark),
                  f"{value.numerator}/{value.denominator}", str(value.numerator), str(value.denominator))
        lines.append(separator.join(fields))
    return "\n".join(lines) + "\n"


def write_original(pairs: list[tuple[str, int]], out_dir: Path) -> list[Path]:
    """Write both flavours for every (preset, dice) of ``pairs`` and every policy (atomically);
    return the paths."""
    paths = []
    for preset, n_dice in pairs:
        r = rules(preset, n_dice)
        for policy in POLICIES:
            for suffix, (separator, mark) in FLAVOURS.items():
                path = out_dir / f"{preset}-{n_dice}d-{policy}{suffix}.csv"
                text = file_text(r, policy_rolls(r, policy), separator, mark)
                write_atomically(path, lambda tmp, text=text: tmp.write_text(text))
                paths.append(path)
    return paths
