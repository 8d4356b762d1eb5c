"""``yamb play`` on terminals of common sizes: what the person to move can see without scrolling.

The program runs on a pseudo-terminal of the given size with colours on, and
a terminal emulator (pyte) keeps the screen as a person would see it. At each
prompt the whole of the mover's sheet must be on screen with the cells they
may fill (``+N``, checked against the reference scorer), the dice and the
prompt itself. The arrangement itself is checked on every preset without a
terminal, on a console of a given size.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pyte
import pytest
from rich.console import Console

import yamb
from tests.programs import spawn_play
from tests.reference_game import ROWS, reference_score
from yamb.game import Game
from yamb_app.moves import fill_scores
from yamb_app.terminal.prompts import match_name
from yamb_app.terminal.render import Panel, Sheet, screen, short_labels

ROOT = Path(__file__).resolve().parents[2]
DICE = re.compile(r"dice((?: \[\d\])+)")
COLUMNS = {"yamb": ("down", "up", "free", "announce"), "yatzy": ("free",)}


class Terminal:
    """``yamb play`` on a pseudo-terminal of ``lines`` x ``columns``, and the screen it shows."""

    def __init__(self, lines: int, columns: int, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # the terminal's own size
        env["TERM"] = "xterm-256color"
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.Stream(self.screen)
        self.child = spawn_play(*args, env=env, lines=lines, columns=columns)

    def expect(self, text: str) -> None:
        """Read up to ``text`` (and through it) into the screen."""
        self.child.expect_exact(text)
        self.stream.feed(self.child.before + self.child.after)

    def send(self, line: str, prompt: str) -> list[str]:
        """Type ``line``, wait for the next ``prompt`` and return the screen's lines."""
        self.child.sendline(line)
        self.expect(prompt)
        return self.lines()

    def lines(self) -> list[str]:
        """The screen's lines down to the cursor's (the lines under it are empty)."""
        return [line.rstrip() for line in self.screen.display[:self.screen.cursor.y + 1]]

    def close(self) -> None:
        self.child.close(force=True)


def cells_of_row(lines: list[str], number: int, row: str, n_columns: int) -> list[str]:
    """The cells of row ``row`` in the leftmost sheet last drawn on screen."""
    label = re.compile(rf"(?:^|│)\s*{number} {row}\b")
    found = [line[m.end():] for line in lines if (m := label.search(line))]
    assert found, f"row {number} {row} is not on screen"
    return found[-1].replace("│", " ").split()[:n_columns]


def expected_cells(preset: str, row: str, dice: tuple[int, ...], filled: dict[tuple[str, str], int]) -> list[str]:
    """What a prompt at the first roll of a turn shows in each column of a row: the score of a cell in
    ``filled``; ``+N`` where the dice may be filled (the free column everywhere, down only its first row
    and up only its last while nothing else is filled in them), ``◇`` where the row may be announced (the
    announce column after the first roll)."""
    rows = ROWS[preset]
    fill = f"+{reference_score(preset, row, dice)}"
    open_cell = {"down": fill if row == rows[0] else "·", "up": fill if row == rows[-1] else "·",
                 "free": fill, "announce": "◇"}
    return [str(filled[kind, row]) if (kind, row) in filled else open_cell[kind] for kind in COLUMNS[preset]]


def check_mover_screen(lines: list[str], preset: str, prompt: str,
                       filled: dict[tuple[str, str], int] | None = None) -> tuple[int, ...]:
    """The sheet of ``You`` (``filled``: its filled cells), its fill options, the dice and the prompt are
    all on screen; the dice."""
    text = "\n".join(lines)
    assert lines[-1] == prompt.strip(), text
    assert "You ◀" in text, text
    found = DICE.findall(text)  # the last drawn, under an earlier screen where the terminal is tall
    assert found, text
    dice = tuple(int(d) for d in re.findall(r"\d", found[-1]))
    for number, row in enumerate(ROWS[preset], start=1):
        cells = cells_of_row(lines, number, row, len(COLUMNS[preset]))
        assert cells == expected_cells(preset, row, dice, filled or {}), text
    assert re.search(r"\btotal\b", text), text
    return dice


@pytest.mark.slow
@pytest.mark.parametrize(("lines", "columns"), [(24, 80), (40, 120)])
@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_the_mover_sees_their_sheet_dice_and_prompt(lines: int, columns: int, preset: str) -> None:
    term = Terminal(lines, columns, "--preset", preset, "--bot", "random", "--seed", "11")
    first = "announce> " if preset == "yamb" else "keep> "
    term.expect(first)
    dice = check_mover_screen(term.lines(), preset, first)
    if preset == "yamb":  # no announcement: the keep prompt, on the same dice
        assert check_mover_screen(term.send("", "keep> "), preset, "keep> ") == dice
    for _ in range(3):  # refused answers: the reason, and the whole screen again
        screen = term.send("9", "keep> ")
        assert check_mover_screen(screen, preset, "keep> ") == dice
        assert "is not a position" in "\n".join(screen)
    screen = term.send("fill", "fill> ")
    assert check_mover_screen(screen, preset, "fill> ") == dice
    term.close()


@pytest.mark.slow
def test_other_sheets_are_summarised_at_80x24_and_shown_on_a_key() -> None:
    term = Terminal(24, 80, "--preset", "yamb", "--bot", "random", "--seed", "3")
    term.expect("announce> ")
    term.send("", "keep> ")
    dice = check_mover_screen(term.send("fill", "fill> "), "yamb", "fill> ")
    filled = {("free", "yamb"): reference_score("yamb", "yamb", dice)}
    term.child.sendline("free yamb")
    term.child.expect(r"random ▸ fills (\w+):(\w+) with (\d+)")
    term.stream.feed(term.child.before + term.child.after)
    bot_cell, bot_score = (term.child.match.group(1), term.child.match.group(2)), int(term.child.match.group(3))
    term.expect("announce> ")
    screen = term.lines()
    check_mover_screen(screen, "yamb", "announce> ", filled)
    assert any(re.search(rf"random: {bot_score}\b", line) for line in screen), "\n".join(screen)
    header = [line for line in screen if "You ◀" in line]
    assert "random" not in header[-1].split("You to move")[0], "\n".join(screen)  # its sheet is not drawn
    others = term.send("=", "announce> ")  # the bot's sheet in full, its one filled cell with its score
    for number, row in enumerate(ROWS["yamb"], start=1):
        expected = [str(bot_score) if (kind, row) == bot_cell else "·" for kind in COLUMNS["yamb"]]
        assert cells_of_row(others, number, row, 4) == expected, "\n".join(others)
    assert "You ◀" not in "\n".join(others)
    check_mover_screen(term.send("=", "announce> "), "yamb", "announce> ", filled)  # and back
    term.close()


@pytest.mark.slow
@pytest.mark.parametrize(("lines", "columns", "preset"), [(40, 120, "yamb"), (24, 80, "yatzy")])
def test_sheets_side_by_side_where_they_fit(lines: int, columns: int, preset: str) -> None:
    term = Terminal(lines, columns, "--preset", preset, "--bot", "random", "--seed", "5")
    term.expect("announce> " if preset == "yamb" else "keep> ")
    screen = term.lines()
    header = [line for line in screen if "You ◀" in line]
    assert header and "random" in header[-1], "\n".join(screen)  # the bot's sheet beside the mover's
    term.close()


# ----------------------------------------------------------------------------- without a terminal
@pytest.mark.parametrize("columns", [("down", "up", "free", "announce"), ("free", "free", "announce"),
                                     ("down", "up", "free", "announce", "late_announce", "counter_announce")])
def test_short_column_names_are_what_the_prompts_accept(columns: tuple[str, ...]) -> None:
    labels = list(Game("yamb", columns=columns, players=2).columns)
    short = short_labels(labels)
    assert all(len(cut) <= len(label) and label.startswith(cut) for cut, label in zip(short, labels))
    assert [match_name(cut, tuple(labels), "column") for cut in short] == list(range(len(labels)))


@pytest.mark.parametrize(("lines", "width"), [(24, 80), (40, 120)])
@pytest.mark.parametrize(("preset", "dice", "players"), [("yamb", 5, 2), ("jamb6", 6, 2), ("yatzy", 5, 2),
                                                         ("yahtzee", 5, 2), ("yamb", 5, 4)])
def test_the_movers_sheet_fits_above_the_prompt(lines: int, width: int, preset: str, dice: int,
                                                players: int) -> None:
    """Every fillable row of the mover's sheet once, with a ``+N`` in each cell that may be filled,
    and the dice, within the console's size with two lines left for the help and the prompt."""
    game = Game(yamb.rules(preset, dice=dice), players=players, seed=1)
    fillable = fill_scores(game)
    sheets = [Sheet(f"player {p}", game.table(p), game.scores()[p], fillable=fillable if p == 0 else {},
                    to_move=p == 0) for p in range(players)]
    console = Console(file=io.StringIO(), width=width, height=lines)
    drawn = console.render_lines(screen(console, game.rows, sheets, Panel("status", game.dice), below=2), pad=False)
    text = ["".join(segment.text for segment in line).rstrip() for line in drawn]
    assert len(text) + 2 <= lines and all(len(line) <= width for line in text), "\n".join(text)
    for r, row in enumerate(game.rows):
        found = [line for line in text if re.search(rf"(?:^|│)\s*{r + 1} {row}\b", line)]
        assert found, "\n".join(text)
        mover_cells = found[0].replace("│", " ").split()[2:2 + len(game.columns)]
        assert sum(cell.startswith("+") for cell in mover_cells) == sum(cell.row == row for cell in fillable)
    assert any(re.search(rf"dice(?: \[\d\]){{{dice}}}", line) for line in text), "\n".join(text)
