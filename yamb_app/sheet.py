"""The rows of a score sheet top to bottom, as the terminal and the web page draw it."""

from __future__ import annotations

from yamb.rules import N_NUMBER_ROWS

DIFFERENCE_ROWS = ("max", "min")


def computed_rows(table: dict[str, dict[str, int | None]], rows: tuple[str, ...]) -> tuple[str, ...]:
    """The computed rows of a ``Game.table()`` (every column has the same ones), in its order."""
    first_column = next(iter(table.values()))
    return tuple(name for name in first_column if name not in rows)


def sheet_rows(rows: tuple[str, ...], computed: tuple[str, ...]) -> list[tuple[str, int | None]]:
    """Sheet rows top to bottom: (name, number from 1) for fillable rows, (name, None) for computed ones.

    ``computed`` names the computed rows the table has: the numbers' sum, the
    difference (after max and min) where the preset has one, the collections'
    sum and the total.
    """
    numbered = [(name, r + 1) for r, name in enumerate(rows)]
    numbers, rest = numbered[:N_NUMBER_ROWS], numbered[N_NUMBER_ROWS:]
    out: list[tuple[str, int | None]] = [*numbers, ("numbers_sum", None)]
    if "difference" in computed:
        out += [row for row in rest if row[0] in DIFFERENCE_ROWS] + [("difference", None)]
        rest = [row for row in rest if row[0] not in DIFFERENCE_ROWS]
    return out + rest + [("collections_sum", None), ("total", None)]
