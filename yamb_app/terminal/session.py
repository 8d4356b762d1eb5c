"""The game loop of ``yamb play``: people and bots take turns at one ``Game``.

A person is asked only when there is a real choice: the announce prompt when
a cell may be announced, the keep prompt while another roll is possible, the
fill prompt when more than one cell may be filled (a single legal cell is
filled at once). Bots' moves are printed one step at a time. Ctrl-C (or
Ctrl-D) at a prompt offers to save the game. With the coach on and a model of the
final totals, every player's chance to win (or a player's chance of the target) is
printed at the start of each turn and shown after each name on the sheets at the
person's prompts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from robo_players.base import Player
from robo_players.coach.review import prejudge, review_game
from robo_players.coach.values import Coach
from robo_players.coach.win_chances import Finals, position_chances
from robo_players.registry import PLAYERS, plays
from yamb.engine import single_thread
from yamb.game import Cell, Game
from yamb_app.coach import (
    chances_text,
    keep_chances,
    note_lines,
    percent,
    review_text,
    standing_text,
    values_kind,
)
from yamb_app.moves import Move, cell_text, decode, faces_text, fill_scores
from yamb_app.seats import load_bot
from yamb_app.terminal.hand import arrange, positions_of
from yamb_app.terminal.prompts import (
    KEEP_HELP,
    NO_WORDS,
    OTHERS_KEY,
    InputError,
    ask,
    cell_help,
    parse_cell,
    parse_keep,
)
from yamb_app.terminal.render import Panel, Sheet, every_sheet, screen
from yamb_app.terminal.savefile import SaveFileError, write_save

T = TypeVar("T")
BACK_WORDS = ("back", "b")
YES_WORDS = ("", "y", "yes")
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Seat:
    """A place at the table: a person (``bot`` None) or a bot given as ``--bot`` would give it."""

    name: str
    bot: str | None = None


class Session:
    """One game at the terminal, from its current state to its end (or a save)."""

    def __init__(self, game: Game, seats: list[Seat], console: Console, hint_bot: str,
                 save_path: Path | None = None, hints: bool = False, coach: Coach | None = None,
                 finals: Finals | None = None, target: int | None = None) -> None:
        """``coach``: values each of a person's moves right after it (none: no coaching); ``finals``: the
        model of the final totals that gives the chances (to win, or of ``target``), none: no chances."""
        self.game = game
        self.coach = coach
        self.finals = finals if coach is not None else None
        self.target = target
        self._chances: list[str] = []  # every player's chance at the person's decision, beside their names
        self._coach_note: Text | None = None  # the coach's word on the person's last move
        self.seats = seats
        self.console = console
        self.save_path = save_path
        self.hints = hints
        self.bots: list[Player | None] = [
            load_bot(seat.bot, game.layout) if seat.bot else None for seat in seats
        ]
        seated = [bot for bot, seat in zip(self.bots, seats) if seat.bot == hint_bot]
        self._hint_name = hint_bot
        self._hint_player = seated[0] if seated else None
        if hints or not (hint_bot in PLAYERS and plays(hint_bot, game.layout)):
            self.hint_bot  # shown at every decision, or to be refused now (a file, a table it does not play)
        self.shown = game.dice
        self._header_turn = -1
        self._notes: tuple[Text, ...] = ()  # the hint shown in the panel during a person's step
        self._others_shown = False  # the ``=`` key showed the other sheets last
        self._help = Text("")  # how to answer the prompt being asked
        self._message: Text | None = None  # a hint asked for, or why an answer was refused, until the next prompt

    @property
    def hint_bot(self) -> Player:
        """The bot whose moves the hints give: a seat's, else built at the first hint (a network's library
        and tables take seconds to load, for a hint that may never be asked for)."""
        if self._hint_player is None:
            self._hint_player = load_bot(self._hint_name, self.game.layout)
        return self._hint_player

    # ----------------------------------------------------------------- the loop
    def run(self) -> int:
        """Play to the end; return the exit code (130 when quit without saving)."""
        try:
            while not self.game.is_over():
                self._header()
                turn = self.game.turns_played
                if self.bots[self.game.player] is None:
                    self._coached_step()
                else:
                    self._play(self._bot_move(self.bots[self.game.player]))
                if self.game.turns_played != turn:
                    self.shown = self.game.dice
                    self._autosave()
        except (KeyboardInterrupt, EOFError):
            return self._interrupted()
        self._finish()
        return 0

    def _header(self) -> None:
        game = self.game
        if self._header_turn == game.turns_played:
            return
        self._header_turn = game.turns_played
        seat = self.seats[game.player]
        turn = game.turns_played // game.players + 1
        self.console.print(Rule(f"{seat.name}: turn {turn} of {game.layout.turns_per_player}"))
        if game.must_answer is not None:
            self._say(f"must answer the counter-announcement {cell_text(game.must_answer)}")
        if game.roll_number == 1:
            self._say(f"rolls {faces_text(self.shown)}")
        else:
            self._say(f"has {faces_text(self.shown)} after roll {game.roll_number}")
        if self.finals is not None:
            chances = self._position_chances()
            text = standing_text([seat.name for seat in self.seats], chances, self.finals.exact, self.target)
            self.console.print(Text(f"  {text}", style="magenta"))

    def _position_chances(self) -> list[float]:
        """Every player's chance now (to win, or of the target)."""
        with single_thread():
            return [float(c) for c in position_chances(self.finals, self.game.batch, 0, self.target)]

    def _say(self, text: str) -> None:
        self.console.print(Text(f"  {self.seats[self.game.player].name} ▸ {text}"))

    # ----------------------------------------------------------------- moves
    def _roll(self, kept: tuple[int, ...]) -> None:
        """Keep the dice at screen positions ``kept`` and roll the others."""
        faces = [self.shown[i] for i in kept]
        self.game.roll(keep=faces)
        self.shown = arrange(self.shown, kept, self.game.dice)
        self._say(f"keeps {faces_text(faces)}, rolls {faces_text(self.shown)}")

    def _announce(self, cell: Cell) -> None:
        self.game.announce(*cell)
        self._say(f"announces {cell_text(cell)}")

    def _fill(self, cell: Cell) -> None:
        name = self.seats[self.game.player].name
        score = self.game.fill(*cell)
        self.console.print(Text(f"  {name} ▸ fills {cell_text(cell)} with {score}"))

    def _play(self, move: Move) -> None:
        """Play a bot's move through the same steps as a person's."""
        if move.kind == "fill":
            self._fill(move.cell)
        elif move.kind == "keep":
            self._roll(positions_of(self.shown, move.faces))
        else:
            self._announce(move.cell)

    def _bot_move(self, bot: Player) -> Move:
        """What ``bot`` would do now in the place of the player to move."""
        with single_thread():
            action = int(bot.act(self.game.batch, np.array([0]))[0])
        return decode(self.game, action)

    # ----------------------------------------------------------------- a person's turn
    def _coached_step(self) -> None:
        """A person's step, and the coach's word on the move (shown at once and in the next panel)."""
        game = self.game
        with single_thread():
            verdict = prejudge(game, self.coach, self.finals, self.target) if self.coach is not None else None
        self._chances = [percent(c) for c in self._position_chances()] if self.finals is not None else []
        before = len(game.history)
        self._person_step()
        if verdict is None or len(game.history) == before:
            return
        decision = verdict(game.history[before])
        style = {"good": "green", "inaccuracy": "yellow"}.get(decision.label, "red")
        lines = note_lines(decision, values_kind(self.coach), self.target,
                           None if self.finals is None else self.finals.exact,
                           [seat.name for seat in self.seats], width=self.console.width - 4)
        self._coach_note = Text("\n    ".join(lines), style=style)  # clauses under the first line
        self.console.print(Text("  ") + self._coach_note)

    def _person_step(self) -> None:
        """Ask for one move (or none, after ``back``) and play it."""
        game = self.game
        announceable = game.legal_announcements()
        hint = (Text(self._hint(), style="cyan"),) if self.hints else ()
        self._notes = hint + ((self._coach_note,) if self._coach_note is not None else ())
        if announceable:
            if game.must_announce and len(announceable) == 1:
                self._say("must announce; one cell can be announced")
                self._announce(announceable[0])
                return
            optional = "" if game.must_announce else ", Enter for no announcement"
            if self._ask("announce", self._cell_help(announceable) + optional, self._parse_announce):
                return
        if game.can_roll:
            kept = self._ask("keep", KEEP_HELP, lambda text: parse_keep(text, self.shown))
            if kept is not None:
                self._roll(kept)
                return
        cells = game.legal_cells()
        if len(cells) == 1:
            self._say("one cell can be filled")
            self._fill(cells[0])
        elif not cells:
            self.console.print(Text("no cell can be filled after this roll; roll again", style="red"))
        else:
            back = ", back to roll again" if game.can_roll else ""
            self._ask("fill", self._cell_help(cells) + back, lambda text: self._parse_fill(text, cells))

    def _ask(self, name: str, how: str, parse: Callable[[str], T]) -> T:
        """Show the board and how to answer, then prompt ``name> `` until ``parse`` accepts."""
        self._help = Text(f"{name}: {how}", style="dim")
        self._message = None
        self._show_screen()
        return ask(self.console, f"{name}> ", parse, self._hint, others=self._toggle_others, say=self._tell)

    def _tell(self, message: Text) -> None:
        """Show the screen again with ``message`` (a hint asked for, an answer refused) in the panel."""
        self._message = None if message in self._notes else message
        self._show_screen()

    def _sheets(self, live: bool) -> list[Sheet]:
        """Every player's sheet; with ``live`` the mover's shows the cells open to them now."""
        game = self.game
        sheets = []
        for p, seat in enumerate(self.seats):
            mover = live and p == game.player
            sheets.append(Sheet(
                seat.name, game.table(p), game.scores()[p], game.yahtzee_bonus(p),
                fillable=fill_scores(game) if mover else {},
                announceable=frozenset(game.legal_announcements()) if mover else frozenset(),
                to_move=mover, chance=self._chances[p] if live and self._chances else "",
            ))
        return sheets

    def _show_screen(self) -> None:
        """The mover's screen: the sheets and the panel, fitted above the help line and the prompt."""
        game = self.game
        status = f"{self.seats[game.player].name} to move · roll {game.roll_number} of " \
                 f"{game.roll_number + game.rolls_left}"
        if game.announced is not None:
            status += f" · announced {cell_text(game.announced)}"
        if game.must_answer is not None:
            status += f" · must answer {cell_text(game.must_answer)}"
        notes = self._notes if self._message is None else (*self._notes, self._message)
        panel = Panel(status, self.shown, notes=notes)
        below = len(self.console.render_lines(self._help, pad=False)) + 1
        self.console.print(screen(self.console, game.rows, self._sheets(live=True), panel, below))
        self.console.print(self._help)
        self._others_shown = False

    def _toggle_others(self) -> None:
        """The ``=`` key: the other players' sheets in full, or back to the mover's screen."""
        if self._others_shown:
            self._show_screen()
            return
        others = [sheet for p, sheet in enumerate(self._sheets(live=False)) if p != self.game.player]
        self.console.print(every_sheet(self.console, self.game.rows, others, below=2))
        self.console.print(Text(f"{OTHERS_KEY} again shows your sheet", style="dim"))
        self._others_shown = True

    def _only_column(self, cells: list[Cell]) -> int | None:
        """The column all ``cells`` are in, if one: then a row alone names a cell."""
        labels = {cell.column for cell in cells}
        return self.game.columns.index(labels.pop()) if len(labels) == 1 else None

    def _cell_help(self, cells: list[Cell]) -> str:
        return cell_help(self.game.columns, self.game.rows, self._only_column(cells))

    def _typed_cell(self, text: str, cells: list[Cell]) -> Cell:
        c, r = parse_cell(text, self.game.columns, self.game.rows, self._only_column(cells))
        return Cell(self.game.columns[c], self.game.rows[r])

    def _parse_announce(self, text: str) -> bool:
        """Announce the typed cell (True), or nothing (False) where that is allowed."""
        if text.lower() in NO_WORDS:
            if self.game.must_announce:
                raise InputError("only announce cells are left, so a cell must be announced")
            return False
        self._announce(self._typed_cell(text, self.game.legal_announcements()))
        return True

    def _parse_fill(self, text: str, cells: list[Cell]) -> None:
        if text.lower() in BACK_WORDS and self.game.can_roll:
            return
        self._fill(self._typed_cell(text, cells))

    def _hint(self) -> str:
        """What the hint bot would do in the mover's place."""
        move = self._bot_move(self.hint_bot)
        if move.kind == "fill":
            advice = f"fill {cell_text(move.cell)} ({fill_scores(self.game)[move.cell]} points)"
        elif move.kind == "keep":
            positions = " ".join(str(i + 1) for i in positions_of(self.shown, move.faces))
            advice = f"keep {faces_text(move.faces)} (type {positions or 'none'}) and roll"
            chances = keep_chances(self.game, move.faces)
            if chances.by_end:
                advice += f"\n    chances by the last roll: {chances_text(chances)}"
        else:
            advice = f"announce {cell_text(move.cell)}"
        return f"hint: {self.hint_bot.name} would {advice}"

    # ----------------------------------------------------------------- saving and the end
    def save(self, path: Path) -> None:
        write_save(path, self.game.to_dict(), [asdict(seat) for seat in self.seats])

    def _autosave(self) -> None:
        if self.save_path is not None:
            self.save(self.save_path)

    def _interrupted(self) -> int:
        """Offer to save; return 0 when saved, 130 when quit without saving."""
        console = self.console
        console.print()
        while True:
            try:
                if self.save_path is not None:
                    answer = console.input(f"save the game to {self.save_path}? [Y/n] ").strip().lower()
                    path = self.save_path if answer in YES_WORDS else None
                else:
                    answer = console.input("save the game to file (Enter to quit without saving): ").strip()
                    path = Path(answer) if answer else None
            except (KeyboardInterrupt, EOFError):
                path = None
            if path is None:
                console.print("quit without saving")
                return EXIT_INTERRUPTED
            try:
                self.save(path)
            except SaveFileError as error:
                console.print(Text(str(error), style="red"))
                continue
            console.print(f"saved; resume with: yamb play --load {path}")
            return 0

    def _finish(self) -> None:
        self.console.print(Rule("game over"))
        self.console.print(every_sheet(self.console, self.game.rows, self._sheets(live=False),
                                       below=len(self.seats) + 2))
        scores = self.game.scores()
        for p in sorted(range(len(scores)), key=lambda p: -scores[p]):
            self.console.print(f"{self.seats[p].name}: {scores[p]}")
        best = max(scores)
        winners = [self.seats[p].name for p, s in enumerate(scores) if s == best]
        if len(scores) > 1:
            verdict = f"{winners[0]} {'win' if winners[0] == 'You' else 'wins'}" if len(winners) == 1 \
                else f"tie between {' and '.join(winners)}"
            self.console.print(Text(verdict, style="bold"))
        if self.coach is not None:
            self.console.print(Rule("review"))
            self.console.print("the coach values every decision...")
            names = [seat.name + (f" ({seat.bot})" if seat.bot else "") for seat in self.seats]
            review = review_game(self.game, self.coach, self.finals, self.target)
            self.console.print(Text(review_text(review, names)))
