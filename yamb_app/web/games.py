"""The games the server holds: made, moved and read through the engine, kept in the store.

The server holds the truth. A person's move is played by ``yamb.Game``, which
refuses an illegal one with the rule it breaks (a ``YambError``); a bot's move
is its player's action. Each move is written to the store (one transaction)
before it is answered; a game in memory is a cache of the stored one, thrown
away whenever a move fails, so a refused move leaves the game as it was.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from expected_scores.solve import solve
from robo_players.coach.review import Decision, prejudge, review_game
from robo_players.coach.values import EXACT, Coach, exact_table
from robo_players.registry import PLAYERS
from robo_players.search.explain import open_cell_values
from yamb.columns import COLUMN_KINDS
from yamb.engine import single_thread
from yamb.errors import YambError
from yamb.game import Cell, Game
from yamb.layout import layout
from yamb.presets import PRESETS
from yamb.rules import JOKER_OPTIONS, rules
from yamb_app.coach import coach_for, keep_chances, review_data
from yamb_app.moves import Move, cell_text, decode, faces_text, fill_scores
from yamb_app.seats import Bots, bot_names, default_bot
from yamb_app.sheet import computed_rows, sheet_rows
from yamb_app.web.models import (
    MAX_PLAYERS,
    BotsOut,
    CellOut,
    CellScore,
    CellValue,
    GameOut,
    HintOut,
    MoveIn,
    NewGame,
    Options,
    PatternOut,
    PresetOut,
    ReviewOut,
    Seat,
    SheetRow,
    Standing,
    Step,
    Summary,
)
from yamb_app.web.runs import RunInfo
from yamb_app.web.store import GameStore, StaleGameError

GAME_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
LOG_SHOWN = 60  # log entries sent with a game
GAMES_KEPT = 512  # games kept in memory
REVIEWS_KEPT = 32  # reviews kept in memory, by game, moves and coach


class NotFoundError(YambError):
    """No game with this id."""


class ConflictError(YambError):
    """A move that is not this caller's to make now (a bot's turn, a game over, a raced move)."""


class TooManyGamesError(YambError):
    """The open-games limit (the server's, or the client's share) is reached."""


@dataclass
class Live:
    """A game in memory: the engine's game, its seats and how many moves are stored."""

    game: Game
    seats: list[dict]
    moves: int


def _cell(cell: Cell | None) -> CellOut | None:
    return None if cell is None else CellOut(column=cell.column, row=cell.row)


def summary(game: Game, seats: list[dict]) -> Summary:
    """Players by final score (ties share a place), the winners and one sentence."""
    scores = game.scores()
    order = sorted(range(len(scores)), key=lambda p: -scores[p])
    standings = [Standing(player=p, name=seats[p]["name"], score=scores[p],
                          place=1 + sum(s > scores[p] for s in scores)) for p in order]
    winners = [s.name for s in standings if s.place == 1]
    if len(scores) == 1:
        text = f"{standings[0].name} scored {standings[0].score}."
    elif len(winners) > 1:
        text = f"A tie at {standings[0].score} between {' and '.join(winners)}."
    else:
        runner = standings[1]
        text = (f"{winners[0]} wins with {standings[0].score}, "
                f"{standings[0].score - runner.score} ahead of {runner.name}.")
    return Summary(standings=standings, winners=winners, text=text)


def move_text(move: Move, game: Game) -> str:
    """A bot's move in words, as the terminal's hints put it."""
    if move.kind == "fill":
        return f"fill {cell_text(move.cell)} ({fill_scores(game)[move.cell]} points)"
    if move.kind == "keep":
        return f"keep {faces_text(move.faces)} and roll"
    return f"announce {cell_text(move.cell)}"


class Games:
    """Every game of one store; each method is one request's work, one at a time (a lock)."""

    def __init__(self, store: GameStore, bots: Bots, max_open: int, idle_seconds: float,
                 max_per_client: int | None = None, unplayed_seconds: float | None = None) -> None:
        self.store = store
        self.bots = bots
        self.max_open = max_open
        self.idle_seconds = idle_seconds
        self.max_per_client = max_open if max_per_client is None else max_per_client
        self.unplayed_seconds = unplayed_seconds
        self._live: OrderedDict[str, Live] = OrderedDict()
        self._reviews: OrderedDict[tuple, ReviewOut] = OrderedDict()
        self._lock = threading.Lock()
        self._solving = threading.Lock()
        self._solved: set[tuple] = set()  # the exact tables solved (or found in the cache) by ``prepare``

    # ----------------------------------------------------------------- reading
    def options(self, runs: list[RunInfo]) -> Options:
        presets = []
        for name, spec in PRESETS.items():
            presets.append(PresetOut(name=name, rows=list(spec.scorers), columns=list(spec.columns),
                                     dice=list(spec.dice_options),
                                     jokers=list(JOKER_OPTIONS) if spec.joker_rows else []))
        return Options(presets=presets, column_kinds=list(COLUMN_KINDS), runs=[run_out(run) for run in runs],
                       max_players=MAX_PLAYERS)

    def table_bots(self, preset: str, dice: int | None, joker: str | None, columns: list[str] | None,
                   players: int) -> BotsOut:
        """The registered bots the table takes, the strongest first; a ``YambError`` for a bad table."""
        names = bot_names(layout(rules(preset, dice=dice, joker=joker), columns, players))
        return BotsOut(bots=names, default_bot=names[0])

    def _load(self, game_id: str) -> Live:
        """The game, as kept while the store holds it as kept, else read again (another server on the same
        database moved it on, or dropped it)."""
        if game_id in self._live:
            if self.store.moves(game_id) == self._live[game_id].moves:
                self._live.move_to_end(game_id)
                return self._live[game_id]
            del self._live[game_id]
        stored = self.store.get(game_id) if GAME_ID.fullmatch(game_id) else None
        if stored is None:
            raise NotFoundError(f"no game {game_id!r}")
        live = Live(Game.from_dict(stored.snapshot), stored.seats, stored.moves)
        self._keep(game_id, live)
        return live

    def _keep(self, game_id: str, live: Live) -> None:
        self._live[game_id] = live
        if len(self._live) > GAMES_KEPT:
            self._live.popitem(last=False)

    def get(self, game_id: str) -> GameOut:
        with self._lock:
            return self._view(game_id, self._load(game_id))

    def log(self, game_id: str) -> list[Step]:
        """Every move of a game, first to last."""
        with self._lock:
            live = self._load(game_id)
            return [Step(**entry) for entry in self.store.log(game_id, live.moves, live.moves)]

    def _view(self, game_id: str, live: Live) -> GameOut:
        game, seats = live.game, live.seats
        over = game.is_over()
        person = not over and seats[game.player]["bot"] is None
        lay = game.layout
        tables = [game.table(p) for p in range(game.players)]
        scores = game.scores()
        computed = computed_rows(game.table(), game.rows)
        return GameOut(
            id=game_id, preset=game.rules.name, dice_count=game.rules.n_dice, joker=game.rules.joker,
            kinds=list(lay.columns), columns=list(game.columns), rows=list(game.rows),
            sheet_rows=[SheetRow(name=n, number=k) for n, k in sheet_rows(game.rows, computed)],
            seed=game.seed if over else None,
            seats=[Seat(name=s["name"], bot=s["bot"], table=tables[p], score=scores[p],
                        yahtzee_bonus=game.yahtzee_bonus(p)) for p, s in enumerate(seats)],
            over=over, moves=live.moves, to_move=None if over else game.player,
            turn=min(game.turns_played // game.players + 1, lay.turns_per_player),
            turns_per_player=lay.turns_per_player,
            roll=game.roll_number, rolls_allowed=game.roll_number + game.rolls_left,
            dice=list(game.dice), can_roll=not over and game.can_roll,
            must_announce=not over and game.must_announce,
            announced=_cell(game.announced), must_answer=_cell(game.must_answer),
            fillable=[CellScore(column=c.column, row=c.row, score=s) for c, s in fill_scores(game).items()]
            if person else [],
            announceable=[_cell(c) for c in game.legal_announcements()] if person else [],
            log=[Step(**entry) for entry in self.store.log(game_id, live.moves, LOG_SHOWN)],
            summary=summary(game, seats) if over else None,
        )

    # ----------------------------------------------------------------- making a game
    def prepare(self, new: NewGame) -> None:
        """What ``new``'s table needs before its first move, made without the games' lock (another thread
        may play other games meanwhile): its seats' bots built, its exact solution solved (the first game
        of a table can take a minute). A bot that cannot play the table is refused here."""
        lay = layout(rules(new.preset, dice=new.dice, joker=new.joker), new.columns, len(new.seats))
        for seat in new.seats:
            if seat.bot is not None:
                self.bots.player(seat.bot, lay)
        key = (lay.rules.name, lay.columns, lay.rules.joker, lay.rules.n_dice)
        if exact_table(lay) and key not in self._solved:  # the coach's values: solved once, then in the cache
            with self._solving:
                solve(lay.rules.name, lay.columns, joker=lay.rules.joker, dice=lay.rules.n_dice)
                self._solved.add(key)

    def create(self, new: NewGame, client: str | None = None) -> GameOut:
        """A new game made by ``client`` (``client_key``): refused (429) when the server holds
        ``max_open`` unfinished games or the client ``max_per_client``."""
        with self._lock:
            the_rules = rules(new.preset, dice=new.dice, joker=new.joker)
            lay = layout(the_rules, new.columns, len(new.seats))
            seats = [{"name": s.name, "bot": s.bot} for s in new.seats]
            for seat in seats:  # built now, so a bot that cannot play this table is refused now
                if seat["bot"] is not None:
                    self.bots.player(seat["bot"], lay)
            self.store.drop_idle(self.idle_seconds, self.unplayed_seconds)
            if self.store.count_open() >= self.max_open:
                raise TooManyGamesError(
                    f"{self.max_open} games are open, the server's limit; finish one or try later")
            if client is not None and self.store.count_open(client) >= self.max_per_client:
                raise TooManyGamesError(
                    f"you have {self.max_per_client} unfinished games open, the limit of one client; finish one, "
                    f"or wait: a game without a move is dropped {self._unplayed_text()} after it was made")
            seed = secrets.randbelow(2**63) if new.seed is None else new.seed
            game = Game(the_rules, lay.columns, lay.players, seed=seed)
            game_id = secrets.token_urlsafe(16)
            self.store.create(game_id, game.to_dict(), seats, game.is_over(), client)
            live = Live(game, seats, 0)
            self._keep(game_id, live)
            return self._view(game_id, live)

    def _unplayed_text(self) -> str:
        seconds = self.idle_seconds if self.unplayed_seconds is None else self.unplayed_seconds
        return f"{seconds / 3600:g} hours" if seconds >= 7200 else f"{seconds / 60:g} minutes"

    # ----------------------------------------------------------------- moves
    def _play(self, game_id: str, live: Live, move: MoveIn, coached: bool = False) -> None:
        """Play ``move`` for the player to move, then store it (``coached``: with the coach's word on
        it); on any failure forget the live game."""
        game = live.game
        try:
            coach = coach_for(game.layout) if coached else None
            with single_thread():
                verdict = prejudge(game, coach) if coach is not None else None
            entry = {"n": live.moves + 1, "player": game.player,
                     "turn": game.turns_played // game.players + 1, "kind": move.kind}
            if move.kind == "roll":
                game.roll(keep=move.keep)
                entry.update(kept=sorted(move.keep), dice=list(game.dice))
            else:
                if move.column is None or move.row is None:
                    raise YambError(f"a {move.kind} names a column and a row")
                entry.update(dice=list(game.dice), column=move.column, row=move.row)
                if move.kind == "fill":
                    entry["score"] = game.fill(move.column, move.row)
                else:
                    game.announce(move.column, move.row)
            if verdict is not None:
                entry["coach"] = coach_note(verdict(game.history[-1]), coach)
            self.store.add_move(game_id, live.moves, game.to_dict(), game.is_over(), entry, live.seats)
            live.moves += 1
        except StaleGameError:
            self._live.pop(game_id, None)
            raise ConflictError(f"game {game_id} moved on meanwhile; read it again") from None
        except BaseException:
            self._live.pop(game_id, None)
            raise

    def _mover(self, game_id: str, moves: int | None = None) -> Live:
        """The game, to be moved from the state after ``moves`` moves (any state when None)."""
        live = self._load(game_id)
        if live.game.is_over():
            raise ConflictError("the game is over")
        if moves is not None and moves != live.moves:
            raise ConflictError(f"this move was meant for the game after {moves} moves; it has {live.moves} "
                                "now: read it again")
        return live

    def move(self, game_id: str, move: MoveIn) -> GameOut:
        """A person's move; refused while a bot is to move."""
        with self._lock:
            live = self._mover(game_id, move.moves)
            seat = live.seats[live.game.player]
            if seat["bot"] is not None:
                raise ConflictError(f"it is {seat['name']}'s move (a bot): ask for its step instead")
            self._play(game_id, live, move, coached=True)
            return self._view(game_id, live)

    def bot_step(self, game_id: str, moves: int | None = None) -> GameOut:
        """One action of the bot to move (a keep and roll, an announcement or a fill), from the state
        after ``moves`` moves when given."""
        with self._lock:
            live = self._mover(game_id, moves)
            game = live.game
            seat = live.seats[game.player]
            if seat["bot"] is None:
                raise ConflictError(f"it is {seat['name']}'s move (a person)")
            player = self.bots.player(seat["bot"], game.layout)
            with single_thread():
                action = int(player.act(game.batch, np.zeros(1, dtype=np.int64))[0])
            self._play(game_id, live, _move_in(decode(game, action), live.moves))
            return self._view(game_id, live)

    def hint(self, game_id: str) -> HintOut:
        """What the game's bot (its first bot seat's, else the default bot) would do now."""
        with self._lock:
            live = self._mover(game_id)
            game = live.game
            bot = next((s["bot"] for s in live.seats if s["bot"] is not None), default_bot(game.layout))
            player = self.bots.player(bot, game.layout)
            with single_thread():
                move = decode(game, int(player.act(game.batch, np.zeros(1, dtype=np.int64))[0]))
            values = open_cell_values(player, game)
            taken = _move_in(move, live.moves)
            outcomes = None
            if move.kind == "keep":
                chances = keep_chances(game, move.faces)
                outcomes = [PatternOut(row=row, next_roll=chances.next_roll[row], by_end=chances.by_end[row])
                            for row in chances.next_roll]
            return HintOut(
                bot=bot, kind=taken.kind, keep=taken.keep, column=taken.column, row=taken.row,
                text=f"{getattr(player, 'name', bot)} would {move_text(move, game)}",
                values=None if values is None else [CellValue(column=c.column, row=c.row, value=round(v, 2))
                                                    for c, v in values.items()],
                outcomes=outcomes,
            )

    def review(self, game_id: str, coach: str | None = None) -> ReviewOut:
        """Every decision of a game so far valued by ``coach`` (default: exact where it can be, else
        the best bot); kept until the game moves on."""
        if coach is not None and coach != EXACT and coach not in PLAYERS:
            raise YambError(f"unknown coach {coach!r}: {EXACT} or a search bot of the registry "
                            "(best, expectimax, ...); no file paths or look-ahead from the client")
        with self._lock:
            live = self._load(game_id)
            key = (game_id, live.moves, coach)
            if key not in self._reviews:
                game = live.game
                with single_thread():
                    review = review_game(game, coach_for(game.layout, coach))
                self._reviews[key] = ReviewOut(**review_data(review, [s["name"] for s in live.seats]))
                while len(self._reviews) > REVIEWS_KEPT:
                    self._reviews.popitem(last=False)
            self._reviews.move_to_end(key)
            return self._reviews[key]


def _move_in(move: Move, moves: int) -> MoveIn:
    """``move`` as a request would give it, meant for the game after ``moves`` moves."""
    if move.kind == "keep":
        return MoveIn(moves=moves, kind="roll", keep=list(move.faces))
    return MoveIn(moves=moves, kind=move.kind, column=move.cell.column, row=move.cell.row)


def coach_note(decision: Decision, coach: Coach) -> dict:
    """A decision as the log keeps the coach's word on it (``CoachNote``)."""
    return {"coach": coach.name, "exact": coach.exact, "value": round(decision.value, 3),
            "best": decision.best, "best_value": round(decision.best_value, 3), "loss": round(decision.loss, 3),
            "label": decision.label}


def run_out(run: RunInfo) -> dict:
    return {"name": run.name, "generations": run.generations, "has_best": run.has_best, "bot": run.bot,
            "updated": run.updated, "settings": run.settings, "problem": run.problem}
