"""The JSON the API takes and gives, as typed models (they make ``/openapi.json``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Name = Field(min_length=1, max_length=40)
MAX_PLAYERS = 6
MovesSeen = Field(ge=0, le=100_000, strict=True)  # the game's number of moves a request was meant for


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatIn(Strict):
    """A place at the table: a person (no ``bot``) or a bot (a registered name or ``run:NAME``)."""

    name: str = Name
    bot: str | None = Field(default=None, max_length=120)


class NewGame(Strict):
    """A new game: the rules, the table and who sits at it (people first is the usual order)."""

    preset: str = Field(default="yamb", max_length=20)
    dice: int | None = Field(default=None, ge=1, le=10)
    joker: str | None = Field(default=None, max_length=20)
    columns: list[str] | None = Field(default=None, min_length=1, max_length=12)
    seats: list[SeatIn] = Field(min_length=1, max_length=MAX_PLAYERS)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)


class MoveIn(Strict):
    """A person's move: keep ``keep`` (faces) and roll the other dice, or fill or announce a cell.
    ``moves`` is the game's number of moves the move was meant for (the ``moves`` of the state the
    client saw): a move for another state is refused (409), so a repeated or stale request is never
    played on dice its sender did not see."""

    moves: int = MovesSeen
    kind: Literal["roll", "fill", "announce"]
    keep: list[int] = Field(default_factory=list, max_length=6)
    column: str | None = Field(default=None, max_length=40)
    row: str | None = Field(default=None, max_length=40)


class BotStep(Strict):
    """Which state a bot's step is asked for: the game's number of moves the client saw."""

    moves: int = MovesSeen


class CellOut(BaseModel):
    column: str
    row: str


class CellScore(CellOut):
    score: int


class CellValue(CellOut):
    value: float


class CoachNote(BaseModel):
    """The coach's word on a person's move: the expected final score it leaves against the best
    move's, the points lost and their class; ``exact`` values are the solver's, else the bot ``coach``'s."""

    coach: str
    exact: bool
    value: float
    best: str
    best_value: float
    loss: float
    label: Literal["good", "inaccuracy", "mistake", "blunder"]
    # at a table of two or more: the mover's chance to win before the move and after it, the chance lost
    # against the move best for winning (``win_best``), ``win_exact`` as ``ChancesOut.exact``
    win_before: float | None = None
    win_after: float | None = None
    win_loss: float | None = None
    win_best: str | None = None
    win_exact: bool | None = None


class Step(BaseModel):
    """One move as the log shows it: who, what (``roll`` with the faces kept, ``fill``, ``announce``)
    and the dice after it (a roll) or before it (a fill, an announcement)."""

    n: int
    player: int
    turn: int
    kind: Literal["roll", "fill", "announce"]
    kept: list[int] = []
    dice: list[int]
    column: str | None = None
    row: str | None = None
    score: int | None = None
    coach: CoachNote | None = None  # a person's move, valued


class Seat(BaseModel):
    """A player's place and sheet: ``table`` maps column labels to rows (computed rows included) to
    scores, ``None`` while open."""

    name: str
    bot: str | None
    table: dict[str, dict[str, int | None]]
    score: int
    yahtzee_bonus: int


class SheetRow(BaseModel):
    name: str
    number: int | None  # fillable rows are numbered from 1; computed rows have none


class Standing(BaseModel):
    player: int
    name: str
    score: int
    place: int


class Summary(BaseModel):
    """The end of a game: players by score, the winners and a sentence that says it."""

    standings: list[Standing]
    winners: list[str]
    text: str


class GameOut(BaseModel):
    """A game as the page draws it. ``fillable`` (what the dice score in each cell the mover may
    fill) and ``announceable`` are given while a person is to move."""

    id: str
    preset: str
    dice_count: int
    joker: str | None
    kinds: list[str]
    columns: list[str]
    rows: list[str]
    sheet_rows: list[SheetRow]
    seed: int | None  # kept secret (None) until the game is over: it fixes every roll
    seats: list[Seat]
    over: bool
    moves: int
    to_move: int | None
    turn: int
    turns_per_player: int
    roll: int
    rolls_allowed: int
    dice: list[int]
    can_roll: bool
    must_announce: bool
    announced: CellOut | None
    must_answer: CellOut | None
    fillable: list[CellScore]
    announceable: list[CellOut]
    log: list[Step]
    summary: Summary | None


class PatternOut(BaseModel):
    """A pattern (a row that scores some hands only) after a keep: its chance right after the roll,
    and by the turn's last roll when the later keeps chase it; exact, by enumeration."""

    row: str
    next_roll: float
    by_end: float


class HintOut(BaseModel):
    """What a bot would do in the mover's place, and its value of every open cell (None for a bot
    that keeps no values)."""

    bot: str
    kind: Literal["roll", "fill", "announce"]
    keep: list[int] = []
    column: str | None = None
    row: str | None = None
    text: str
    values: list[CellValue] | None
    outcomes: list[PatternOut] | None = None  # of the hinted keep, for the open rows


class DecisionOut(BaseModel):
    """One decision of a game, valued: the expected final score after the move played and after the
    best one, the points lost and their class."""

    index: int
    player: int
    turn: int
    roll: int
    dice: list[int]
    kind: Literal["keep", "fill", "announce"]
    played: str
    value: float
    best: str
    best_value: float
    loss: float
    label: Literal["good", "inaccuracy", "mistake", "blunder"]
    forced: bool
    # with chances (``ReviewOut.win``): every player's before and after it, the action best for the mover's
    win_before: list[float] | None = None
    win_after: list[float] | None = None
    win_best: str | None = None
    win_best_value: float | None = None
    win_loss: float | None = None


class PlayerReviewOut(BaseModel):
    """A player's expected points lost in all, the decisions by class, the expected final score at
    the first decision of each turn (``[turn, score]``; the final score last, once over)."""

    player: int
    name: str
    loss: float
    decisions: int
    classes: dict[str, int]
    curve: list[tuple[int, float]]
    score: int
    win_curve: list[tuple[int, float]] = []  # the chance at the first decision of each turn (then the end's)


class ReviewOut(BaseModel):
    """A game's review: ``coach`` values every decision (``exact``: the optimal solver's values;
    else the search bot's); ``thresholds``: a class's lower bound in points lost; ``biggest``: the
    indices of the decisions that lost most."""

    coach: str
    exact: bool
    values: str
    over: bool
    thresholds: dict[str, float]
    players: list[PlayerReviewOut]
    decisions: list[DecisionOut]
    biggest: list[int]
    win: str | None = None  # how the chances are had (exact, or estimated and how); None: no chances
    win_exact: bool | None = None
    target: int | None = None  # the chances are of reaching this final score, not of winning


class PlayerChance(BaseModel):
    player: int
    name: str
    chance: float


class ChancesOut(BaseModel):
    """Every player's chance now: to win (a tie shared), or with ``target`` of a final score of at least
    it; ``exact``: every player playing ``optimal`` from here on (the score tables), else estimated as
    ``method`` says."""

    exact: bool
    method: str
    target: int | None
    players: list[PlayerChance]


class PresetOut(BaseModel):
    name: str
    rows: list[str]
    columns: list[str]
    dice: list[int]
    jokers: list[str]


class RunOut(BaseModel):
    """A run directory: ``problem`` says what is damaged in it (a file that is not text or does not parse)."""

    name: str
    generations: int
    has_best: bool
    bot: str
    updated: float
    settings: dict
    problem: str | None = None


class Options(BaseModel):
    """What a new game may be made of (the bots a table takes: ``BotsOut``)."""

    presets: list[PresetOut]
    column_kinds: list[str]
    runs: list[RunOut]
    max_players: int


class BotsOut(BaseModel):
    """The registered bots a table takes, ``default_bot`` (the strongest of them) first."""

    bots: list[str]
    default_bot: str


class CurvePoint(BaseModel):
    gen: float
    avg: float | None = None
    std: float | None = None
    min: float | None = None
    max: float | None = None
    expectimax: float | None = None


class RunDetail(RunOut):
    curve: list[CurvePoint]
    table: dict | None


class ErrorOut(BaseModel):
    detail: str
