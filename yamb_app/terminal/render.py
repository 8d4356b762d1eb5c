"""Rich renderings of the game: score sheets, the dice and the turn's status, fitted to the terminal.

A sheet is drawn like the paper one: fillable rows by columns, with the
computed rows of ``Game.table`` under the rows they add up. Open cells
show ``·``; a cell the player may fill now shows what the dice would score
there (``+12``, highlighted); a cell that may be announced now shows ``◇``.

``screen`` picks the richest arrangement that fits the terminal: boxed
sheets side by side, then compact ones (no borders, short column names),
then the mover's sheet alone with a line per other player; the panel (whose
move, the roll, the dice, hint and coach notes) goes right of the sheets
where it fits, under them otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from yamb.game import Cell
from yamb_app.sheet import computed_rows, sheet_rows
from yamb_app.terminal.prompts import OTHERS_KEY

OPEN = "·"
ANNOUNCEABLE = "◇"
SHORT_LABEL = 4  # a compact sheet's column names are cut to a unique start of at least this many letters
UNBOUNDED = 10_000  # a width no terminal has, to measure what a renderable needs
GAP = 3  # columns between sheets, and between the sheets and the panel


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
    chance: str = ""  # the player's chance to win (or of the target), shown after the name


def _cell_text(sheet: Sheet, cell: Cell, score: int | None) -> Text:
    if score is not None:
        return Text(str(score))
    if cell in sheet.fillable:
        return Text(f"+{sheet.fillable[cell]}", style="bold black on green")
    if cell in sheet.announceable:
        return Text(ANNOUNCEABLE, style="bold yellow")
    return Text(OPEN, style="dim")


@dataclass(frozen=True)
class Panel:
    """What is shown beside the sheets: the turn's status, the dice, the other players, notes."""

    status: str  # who moves, the roll, an announcement
    dice: tuple[int, ...]  # as on screen
    others: tuple[str, ...] = ()  # a line for each player whose sheet is not drawn
    notes: tuple[Text, ...] = ()  # a hint, a coach's word: wrapped to the panel's width


def short_labels(labels: list[str]) -> list[str]:
    """Each column name cut to its shortest unique start (at least ``SHORT_LABEL`` letters).

    A unique start is what the prompts accept for the name, so the short name can be typed.
    """
    def cut(label: str) -> str:
        for n in range(SHORT_LABEL, len(label)):
            if sum(other.startswith(label[:n]) for other in labels) == 1:
                return label[:n]
        return label
    return [cut(label) for label in labels]


class Style(Enum):
    """How much room a sheet takes, from the most to the least."""

    BOXED = "boxed"  # borders and a title, as on paper
    COMPACT = "compact"  # no borders; the name heads the row names; short column names
    TIGHT = "tight"  # compact, and of the computed rows only the total


def sheet_table(rows: tuple[str, ...], sheet: Sheet, style: Style = Style.BOXED) -> Table:
    """The score sheet of one player as a rich table; columns are numbered as typed at the prompts."""
    labels = list(sheet.table)
    computed = computed_rows(sheet.table, rows)
    title = (f"{sheet.name} ◀" if sheet.to_move else sheet.name) + (f" {sheet.chance}" if sheet.chance else "")
    if style is not Style.BOXED:
        table = Table(box=None, padding=(0, 1), pad_edge=False,
                      header_style="bold underline" if sheet.to_move else "underline")
        table.add_column(title)
        headers = short_labels(labels)
    else:
        table = Table(title=title, title_style="bold" if sheet.to_move else "", padding=(0, 1))
        table.add_column("row")
        headers = labels
    for c, label in enumerate(headers):
        table.add_column(f"{c + 1} {label}", justify="right")
    table.add_column("Σ", justify="right")
    for name, number in sheet_rows(rows, computed):
        if style is Style.TIGHT and number is None and name != "total":
            continue
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


def every_sheet(console: Console, rows: tuple[str, ...], sheets: list[Sheet], below: int) -> RenderableType:
    """Every sheet in ``sheets``: side by side, boxed where that fits with ``below`` lines under them,
    else compact."""
    for style in (Style.BOXED, Style.COMPACT):
        row = _sheets_row(rows, sheets, style)
        width = _width(console, row)
        if width <= console.width and (style is Style.COMPACT or _height(console, row, width) + below <= console.height):
            return row
    return Columns([sheet_table(rows, s, Style.COMPACT) for s in sheets], padding=(0, GAP))


def dice_table(shown: tuple[int, ...]) -> Table:
    """The dice with their positions above them."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="dim")
    for _ in shown:
        table.add_column(justify="center")
    table.add_row("", *(str(i + 1) for i in range(len(shown))))
    table.add_row(Text("dice", style="dim"), *(Text(f"[{d}]", style="bold") for d in shown))
    return table


def _panel_parts(panel: Panel) -> tuple[list[RenderableType], list[RenderableType]]:
    """The panel as two stacks: the turn (status and dice), and the others' lines; neither may wrap."""
    return [Text(panel.status, style="bold"), dice_table(panel.dice)], [Text(line) for line in panel.others]


def _sheets_row(rows: tuple[str, ...], sheets: list[Sheet], style: Style) -> Table:
    """Sheets side by side."""
    grid = Table.grid(padding=(0, GAP))
    for sheet in sheets:
        grid.add_column(no_wrap=True)
    grid.add_row(*(sheet_table(rows, sheet, style) for sheet in sheets))
    return grid


def _side_by_side(*parts: RenderableType, last_width: int | None = None) -> Table:
    """``parts`` in a row, ``GAP`` apart; the last one wraps to ``last_width``."""
    grid = Table.grid(padding=(0, GAP))
    for _ in parts[:-1]:
        grid.add_column(no_wrap=True)
    grid.add_column(width=last_width)
    grid.add_row(*parts)
    return grid


def _width(console: Console, renderable: RenderableType) -> int:
    """The width ``renderable`` takes unconstrained (the console's own width would cap it)."""
    return console.measure(renderable, options=console.options.update_width(UNBOUNDED)).maximum


def _height(console: Console, renderable: RenderableType, width: int) -> int:
    return len(console.render_lines(renderable, console.options.update_width(width), pad=False))


def _arrangements(console: Console, sheet_row: Table, panel: Panel) -> list[RenderableType]:
    """The sheets with the panel right of them where it fits, and with the panel under them: the turn
    and the others' lines side by side where they fit, the notes under all."""
    width = console.width
    turn, others = _panel_parts(panel)
    fixed = max(_width(console, part) for part in turn + others)
    room = width - _width(console, sheet_row) - GAP
    out: list[RenderableType] = []
    if room >= fixed:
        out.append(_side_by_side(sheet_row, Group(*turn, *others, *panel.notes), last_width=room))
    turn_width = max(_width(console, part) for part in turn)
    if others and turn_width + GAP + max(_width(console, part) for part in others) <= width:
        under: list[RenderableType] = [_side_by_side(Group(*turn), Group(*others))]
    else:
        under = [*turn, *others]
    out.append(Group(sheet_row, *under, *panel.notes))
    return out


def screen(console: Console, rows: tuple[str, ...], sheets: list[Sheet], panel: Panel,
           below: int) -> RenderableType:
    """The sheets and the panel, arranged to fit the console with ``below`` lines to spare under them.

    Tried in order, the first that fits wins: every sheet boxed, then every sheet compact,
    then only the sheet of the player to move (the others' lines join the panel), compact and
    then tight; each with the panel right of the sheets, then under them. The last is used
    when none fits.
    """
    mover = [s for s in sheets if s.to_move] or sheets[:1]
    summary = tuple(f"{s.name}: {s.score}" for s in sheets if s not in mover)
    summary += (f"({OTHERS_KEY} shows their sheets)",) if summary else ()
    summarised = Panel(panel.status, panel.dice, panel.others + summary, panel.notes)
    choices = [(sheets, Style.BOXED, panel), (sheets, Style.COMPACT, panel),
               (mover, Style.COMPACT, summarised), (mover, Style.TIGHT, summarised)]
    for shown, style, part in choices:
        sheet_row = _sheets_row(rows, shown, style)
        if _width(console, sheet_row) > console.width and style is not Style.TIGHT:
            continue
        for arrangement in _arrangements(console, sheet_row, part):
            if _height(console, arrangement, console.width) + below <= console.height:
                return arrangement
    return arrangement
