"""Rich renderings of the game: score sheets, the dice and the turn's status.

A sheet is drawn like the paper one: fillable rows by columns, with the
computed rows of ``Game.table`` under the rows they add up. Open cells
show ``·``; a cell the player may fill now shows what the dice would score
there (``+12``, highlighted); a cell that may be announced now shows ``◇``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.columns import Columns
from rich.table import Table
from rich.text import Text

from yamb.app.sheet import computed_rows, sheet_rows
from yamb.game import Cell

OPEN = "·"
ANNOUNCEABLE = "◇"


@dataclass(frozen=True)
class Sheet:
    """One player's score sheet, as the renderer needs it."""

    name: str
    table: dict[str, dict[str, int | None]]  # ``Game.table()``: label -> row -> score, None while open
    score: int  # the player's total as the engine counts it
    bonus: int = 0  # extra-Yahtzee bonus points (in ``score``)
    fillable: dict[Cell, int] = field(default_factory=dict)  # cell -> what the dice score there now
    announceable: frozenset[Cell] = frozenset()
    to_move: bool = False


def _cell_text(sheet: Sheet, cell: Cell, score: int | None) -> Text:
    if score is not None:
        return Text(str(score))
    if cell in sheet.fillable:
        return Text(f"+{sheet.fillable[cell]}", style="bold black on green")
    if cell in sheet.announceable:
        return Text(ANNOUNCEABLE, style="bold yellow")
    return Text(OPEN, style="dim")


def sheet_table(rows: tuple[str, ...], sheet: Sheet) -> Table:
    """The score sheet of one player as a rich table; columns are numbered as typed at the prompts."""
    labels = list(sheet.table)
    computed = computed_rows(sheet.table, rows)
    title = f"{sheet.name} ◀" if sheet.to_move else sheet.name
    table = Table(title=title, title_style="bold" if sheet.to_move else "", padding=(0, 1))
    table.add_column("row")
    for c, label in enumerate(labels):
        table.add_column(f"{c + 1} {label}", justify="right")
    table.add_column("Σ", justify="right")
    for name, number in sheet_rows(rows, computed):
        if number is not None:
            values = [_cell_text(sheet, Cell(label, name), sheet.table[label][name]) for label in labels]
            table.add_row(f"{number:>2} {name}", *values, "")
            continue
        if name == "total" and sheet.bonus:
            table.add_row("yahtzee_bonus", *([""] * len(labels)), str(sheet.bonus), end_section=True)
        values = [sheet.table[label][name] for label in labels]
        whole = sheet.score if name == "total" else sum(values)
        table.add_row(Text(name, style="bold"), *(Text(str(v), style="bold") for v in values),
                      Text(str(whole), style="bold"), end_section=True)
    return table


def board(rows: tuple[str, ...], sheets: list[Sheet]) -> Columns:
    """Every player's sheet, side by side where the terminal is wide enough."""
    return Columns([sheet_table(rows, s) for s in sheets], padding=(0, 3))


def dice_table(shown: tuple[int, ...]) -> Table:
    """The dice with their positions above them."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim")
    for _ in shown:
        table.add_column(justify="center")
    table.add_row("position", *(str(i + 1) for i in range(len(shown))))
    table.add_row(Text("dice", style="dim"), *(Text(f"[{d}]", style="bold") for d in shown))
    return table
