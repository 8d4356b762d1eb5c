"""``yamb play`` on terminals of common sizes: what the person to move can see without scrolling.

The program runs on a pseudo-terminal of the given size with colours on, and
a terminal emulator (pyte) keeps the screen as a person would see it. At each
prompt the whole of the mover's sheet must be on screen with the cells they
may fill (``+N``, checked against the reference scorer), the dice and the
prompt itself.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.reference_game import ROWS, reference_score

ROOT = Path(__file__).resolve().parents[1]
DICE = re.compile(r"dice((?: \[\d\])+)")
COLUMNS = {"yamb": ("down", "up", "free", "announce"), "yatzy": ("free",)}

pytestmark = pytest.mark.slow


class Terminal:
    """``yamb play`` on a pseudo-terminal of ``lines`` x ``columns``, and the screen it shows."""

    def __init__(self, lines: int, columns: int, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # the terminal's own size
        env["TERM"] = "xterm-256color"
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.Stream(self.screen)
        self.child = pexpect.spawn(sys.executable, ["-m", "yamb", "play", *args], cwd=ROOT, env=env,
                                   encoding="utf-8", timeout=120, dimensions=(lines, columns),
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

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


def expected_cells(preset: str, row: str, dice: tuple[int, ...], filled: dict[str, int]) -> list[str]:
    """What a prompt of the player's first turn shows in each column of a row: ``+N`` where the dice
    may be filled (the free column everywhere; down only its first row, up only its last), ``◇``
    where the row may be announced (the announce column after the first roll). In later turns of
    one-column tables, ``filled`` gives the rows filled and their scores."""
    rows = ROWS[preset]
    if row in filled:
        return [str(filled[row])]
    fill = f"+{reference_score(preset, row, dice)}"
    return [{"down": fill if row == rows[0] else "·", "up": fill if row == rows[-1] else "·",
             "free": fill, "announce": "◇"}[kind] for kind in COLUMNS[preset]]


def check_mover_screen(lines: list[str], preset: str, prompt: str,
                       filled: dict[str, int] | None = None) -> tuple[int, ...]:
    """The sheet of ``You``, its fill options, the dice and the prompt are all on screen; the dice."""
    text = "\n".join(lines)
    assert lines[-1] == prompt.strip(), text
    assert "You ◀" in text, text
    found = DICE.findall(text)  # the last drawn, under an earlier screen where the terminal is tall
    assert found, text
    dice = tuple(int(d) for d in re.findall(r"\d", found[-1]))
    for number, row in enumerate(ROWS[preset], start=1):
        assert cells_of_row(lines, number, row, len(COLUMNS[preset])) == expected_cells(preset, row, dice, filled or {}), text
    assert re.search(r"\btotal\b", text), text
    return dice


@pytest.mark.parametrize(("lines", "columns"), [(24, 80), (40, 120)])
@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_the_mover_sees_their_sheet_dice_and_prompt(lines: int, columns: int, preset: str) -> None:
    term = Terminal(lines, columns, "--preset", preset, "--bot", "random", "--seed", "11")
    first = "announce> " if preset == "yamb" else "keep> "
    term.expect(first)
    dice = check_mover_screen(term.lines(), preset, first)
    if preset == "yamb":  # no announcement: the keep prompt, on the same dice
        assert check_mover_screen(term.send("", "keep> "), preset, "keep> ") == dice
    screen = term.send("fill", "fill> ")
    assert check_mover_screen(screen, preset, "fill> ") == dice
    term.close()


def test_other_sheets_are_summarised_at_80x24_and_shown_on_a_key() -> None:
    term = Terminal(24, 80, "--preset", "yatzy", "--bot", "random", "--seed", "3")
    term.expect("keep> ")
    dice = check_mover_screen(term.send("fill", "fill> "), "yatzy", "fill> ")
    filled = {"chance": reference_score("yatzy", "chance", dice)}
    term.child.sendline("chance")
    term.child.expect(r"random ▸ fills free:(\w+) with (\d+)")
    term.stream.feed(term.child.before + term.child.after)
    bot_row, bot_score = term.child.match.group(1), int(term.child.match.group(2))
    term.expect("keep> ")
    screen = term.lines()
    check_mover_screen(screen, "yatzy", "keep> ", filled)
    assert any(re.search(rf"random: {bot_score}\b", line) for line in screen), "\n".join(screen)
    assert "random ◀" not in "\n".join(screen)
    others = term.send("=", "keep> ")  # the bot's sheet in full, its one filled cell with its score
    bot_rows = ROWS["yatzy"]
    for number, row in enumerate(bot_rows, start=1):
        assert cells_of_row(others, number, row, 1) == [str(bot_score) if row == bot_row else "·"]
    assert "You ◀" not in "\n".join(others)
    check_mover_screen(term.send("=", "keep> "), "yatzy", "keep> ", filled)  # and back
    term.close()


def test_sheets_side_by_side_at_120x40() -> None:
    term = Terminal(40, 120, "--preset", "yamb", "--bot", "random", "--seed", "5")
    term.expect("announce> ")
    screen = term.lines()
    header = [line for line in screen if "You ◀" in line]
    assert header and "random" in header[0], "\n".join(screen)  # the bot's sheet beside the mover's
    term.close()
