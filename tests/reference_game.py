"""An independent reference of docs/rules.md, written plainly for the tests.

Nothing here imports the rules from ``yamb``: the scorers, column totals and
turn rules below are a second reading of the rule book, so that the tests
compare the engine with something it could disagree with. Only the action
encoding (``yamb.layout``) and the dice drawn by the engine are shared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from yamb.engine import GameBatch

Policy = Callable[["GameBatch", np.ndarray, np.ndarray, np.random.Generator], np.ndarray]

FACE_ROWS = {
    "yamb": ("ones", "twos", "threes", "fours", "fives", "sixes"),
    "jamb6": ("ones", "twos", "threes", "fours", "fives", "sixes"),
    "yatzy": ("ones", "twos", "threes", "fours", "fives", "sixes"),
    "yahtzee": ("aces", "twos", "threes", "fours", "fives", "sixes"),
}
OTHER_ROWS = {
    "yamb": ("max", "min", "two_pairs", "straight", "full_house", "carriage", "yamb"),
    "jamb6": ("max", "min", "trips", "straight", "full_house", "poker", "yamb"),
    "yatzy": ("one_pair", "two_pairs", "three_of_a_kind", "four_of_a_kind", "small_straight",
              "large_straight", "full_house", "chance", "yatzy"),
    "yahtzee": ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                "large_straight", "yahtzee", "chance"),
}
ROWS = {preset: FACE_ROWS[preset] + OTHER_ROWS[preset] for preset in FACE_ROWS}
BONUS = {"yamb": (60, 30), "jamb6": (60, 30), "yatzy": (63, 50), "yahtzee": (63, 35)}
JOKER_VALUES = {"full_house": 25, "small_straight": 30, "large_straight": 40}


def _five_dice_score(preset: str, row: str, dice: tuple[int, ...]) -> int:
    """Score of exactly five dice, straight from the rule book's tables."""
    counts = Counter(dice)
    total = sum(dice)
    if row in FACE_ROWS[preset]:
        face = FACE_ROWS[preset].index(row) + 1
        return face * counts[face]
    pair_faces = sorted((f for f, c in counts.items() if c >= 2), reverse=True)
    shape = sorted(counts.values())
    faces = set(dice)
    best = {k: max((f for f, c in counts.items() if c >= k), default=0) for k in (3, 4, 5)}
    if preset in ("yamb", "jamb6"):
        long_straight = sorted(dice) == [2, 3, 4, 5, 6]
        short_straight = sorted(dice) == [1, 2, 3, 4, 5]
        table = {
            "max": total,
            "min": total,
            "two_pairs": 2 * (pair_faces[0] + pair_faces[1]) + 10 if len(pair_faces) >= 2 else 0,
            "trips": 3 * best[3] + 20 if best[3] else 0,
            "straight": (50 if preset == "jamb6" else 45) if long_straight else (
                (45 if preset == "jamb6" else 35) if short_straight else 0),
            "full_house": 0,
            "carriage": 4 * best[4] + 40 if best[4] else 0,
            "poker": 4 * best[4] + 50 if best[4] else 0,
            "yamb": 5 * best[5] + (60 if preset == "jamb6" else 50) if best[5] else 0,
        }
        if shape == [2, 3]:
            triple = next(f for f, c in counts.items() if c == 3)
            pair = next(f for f, c in counts.items() if c == 2)
            table["full_house"] = total + 30 if preset == "yamb" else 3 * triple + 2 * pair + 40
        return table[row]
    if preset == "yatzy":
        table = {
            "one_pair": 2 * pair_faces[0] if pair_faces else 0,
            "two_pairs": 2 * (pair_faces[0] + pair_faces[1]) if len(pair_faces) >= 2 else 0,
            "three_of_a_kind": 3 * best[3],
            "four_of_a_kind": 4 * best[4],
            "small_straight": 15 if faces == {1, 2, 3, 4, 5} else 0,
            "large_straight": 20 if faces == {2, 3, 4, 5, 6} else 0,
            "full_house": total if shape == [2, 3] else 0,
            "chance": total,
            "yatzy": 50 if best[5] else 0,
        }
        return table[row]
    runs_of_four = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
    table = {
        "three_of_a_kind": total if best[3] else 0,
        "four_of_a_kind": total if best[4] else 0,
        "full_house": 25 if shape == [2, 3] else 0,
        "small_straight": 30 if any(run <= faces for run in runs_of_four) else 0,
        "large_straight": 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0,
        "yahtzee": 50 if best[5] else 0,
        "chance": total,
    }
    return table[row]


def reference_score(preset: str, row: str, dice: tuple[int, ...]) -> int:
    """Score of five dice, or of the best five of six (the lowest five for ``min``)."""
    values = [_five_dice_score(preset, row, five) for five in combinations(sorted(dice), 5)]
    return min(values) if row == "min" else max(values)


def reference_column_total(preset: str, column: dict[str, int]) -> int:
    """Total of one column from its filled rows (open rows count 0), per docs/rules.md."""
    cell = {row: column.get(row, 0) for row in ROWS[preset]}
    threshold, bonus = BONUS[preset]
    numbers = sum(cell[row] for row in FACE_ROWS[preset])
    numbers += bonus if numbers >= threshold else 0
    if preset in ("yamb", "jamb6"):
        spread = cell["max"] - cell["min"]
        if preset == "jamb6":
            spread = max(spread, 0)
        rest = [row for row in OTHER_ROWS[preset] if row not in ("max", "min")]
        return numbers + cell[FACE_ROWS[preset][0]] * spread + sum(cell[row] for row in rest)
    return numbers + sum(cell[row] for row in OTHER_ROWS[preset])


def order_allowed(kind: str, filled: set[int], n_rows: int, start: tuple[int, int]) -> set[int]:
    """Open rows a column kind's order rule allows next (turn rules aside)."""
    open_rows = set(range(n_rows)) - filled
    if not open_rows:
        return set()
    if kind == "down":
        return {min(open_rows)}
    if kind == "up":
        return {max(open_rows)}
    if kind == "updown":
        return {min(open_rows), max(open_rows)}
    if kind == "middle":
        if not filled:
            return set(start)
        return {min(filled) - 1, max(filled) + 1} & open_rows
    return open_rows


@dataclass
class Moves:
    """What a player may do at one decision point."""

    fills: set[tuple[int, int]]
    announces: set[tuple[int, int]]
    may_roll: bool


@dataclass
class ReferenceGame:
    """One game of the rule book, kept by hand beside the engine.

    Dice come from outside (the engine's dice); everything else is tracked
    from the actions taken.
    """

    preset: str
    columns: tuple[str, ...]
    players: int = 1
    dice_count: int = 5
    joker: str | None = None
    filled: list[list[dict[int, int]]] = field(init=False)
    turn: int = 0
    roll: int = 1
    pure: bool = True
    announced: tuple[int, int] | None = None
    last_announced: list[int | None] = field(init=False)
    bonuses: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.filled = [[{} for _ in self.columns] for _ in range(self.players)]
        self.last_announced = [None] * self.players
        self.bonuses = [0] * self.players
        self.answer = self._answer()

    @property
    def rows(self) -> tuple[str, ...]:
        return ROWS[self.preset]

    @property
    def player(self) -> int:
        return self.turn % self.players

    @property
    def done(self) -> bool:
        return self.turn == self.players * len(self.columns) * len(self.rows)

    @property
    def rolls_allowed(self) -> int:
        own = self.filled[self.player]
        open_cells = sum(len(self.rows) - len(col) for col in own)
        return 5 if self.preset == "jamb6" and open_cells == 1 else 3

    def _start(self) -> tuple[int, int]:
        if "max" in self.rows:
            return self.rows.index("max"), self.rows.index("min")
        n = len(self.rows)
        return (n - 1) // 2, n // 2

    def _allowed(self, c: int) -> set[int]:
        own = self.filled[self.player][c]
        return order_allowed(self.columns[c], set(own), len(self.rows), self._start())

    def _answer(self) -> tuple[int, int] | None:
        """The counter-announce cell this player must fill this turn, if any."""
        row = self.last_announced[(self.player - 1) % self.players]
        if self.players == 1 or row is None:
            return None
        for c, kind in enumerate(self.columns):
            if kind == "counter_announce" and row not in self.filled[self.player][c]:
                return (c, row)
        return None

    def moves(self, dice: tuple[int, ...]) -> Moves:
        """Legal fills, announcements and whether another roll is allowed."""
        rolls_left = self.roll < self.rolls_allowed
        committed = self.announced or self.answer
        if committed:
            return Moves({committed}, set(), rolls_left)
        allowed = {c: self._allowed(c) for c in range(len(self.columns))}
        open_kinds = {self.columns[c] for c in allowed if allowed[c]}
        ordinary = {"down", "up", "free", "updown", "middle"}
        announcing = set()
        if self.roll == 1:
            announcing.add("announce")
            if open_kinds == {"counter_announce"}:
                announcing.add("counter_announce")
        if self.roll == 2:
            announcing.add("late_announce")
        announces = {(c, r) for c in allowed for r in allowed[c] if self.columns[c] in announcing}
        other_way = bool(open_kinds & ordinary) or (
            self.roll == 1 and bool(open_kinds & {"hand", "late_announce"}))
        if announces and not other_way:
            return Moves(set(), announces, False)
        fillable = set(ordinary)
        if self.roll == 1:
            fillable.add("hand")
        if self.preset == "jamb6" and self.pure and open_kinds - {"announce"}:
            fillable.add("announce")
        fills = set()
        for c in allowed:
            rows = allowed[c] if self.columns[c] in fillable else set()
            fills |= {(c, r) for r in self._joker_rows(c, rows, dice)}
        may_roll = rolls_left and bool(
            open_kinds & ordinary or ("late_announce" in open_kinds and self.roll == 1))
        return Moves(fills, announces, may_roll)

    def _joker_rows(self, c: int, rows: set[int], dice: tuple[int, ...]) -> set[int]:
        """The forced joker rule: where a further Yahtzee must go in column ``c``."""
        own = self.filled[self.player][c]
        if self.joker != "forced" or len(set(dice)) != 1 or self.rows.index("yahtzee") not in own:
            return rows
        face_row = dice[0] - 1
        lower = {r for r in rows if r >= 6}
        return {face_row} & rows or lower or rows

    def fill_score(self, c: int, r: int, dice: tuple[int, ...]) -> int:
        """Points for filling (c, r) with ``dice``, jokers included."""
        row = self.rows[r]
        score = reference_score(self.preset, row, dice)
        own = self.filled[self.player][c]
        five_alike = len(set(dice)) == 1
        if self.preset == "yahtzee" and five_alike:
            if self.rows.index("yahtzee") in own and dice[0] - 1 in own:
                score = JOKER_VALUES.get(row, score)
        return score

    def fill(self, c: int, r: int, dice: tuple[int, ...]) -> int:
        """Fill a cell, end the turn and start the next; returns the cell's score."""
        score = self.fill_score(c, r, dice)
        own = self.filled[self.player][c]
        if self.preset == "yahtzee" and len(set(dice)) == 1 and own.get(self.rows.index("yahtzee")) == 50:
            self.bonuses[self.player] += 1
        own[r] = score
        self.last_announced[self.player] = None if self.announced is None else self.announced[1]
        self.turn += 1
        self.roll, self.pure, self.announced = 1, True, None
        self.answer = None if self.done else self._answer()
        return score

    def reroll(self, kept: int) -> None:
        self.roll += 1
        self.pure = kept == 0

    def announce(self, c: int, r: int) -> None:
        self.announced = (c, r)

    def total(self, player: int) -> int:
        """Final score: column totals plus the Yahtzee bonuses."""
        rows = self.rows
        columns = [{rows[r]: s for r, s in col.items()} for col in self.filled[player]]
        return sum(reference_column_total(self.preset, col) for col in columns) + 100 * self.bonuses[player]


def moves_mask(moves: Moves, n_rows: int, n_cells: int, keeps: np.ndarray, dice: tuple[int, ...]) -> np.ndarray:
    """The engine's action mask (see ``yamb.layout``) of a set of moves."""
    held = Counter(dice)
    mask = np.zeros(2 * n_cells + len(keeps), dtype=bool)
    for c, r in moves.fills:
        mask[c * n_rows + r] = True
    for c, r in moves.announces:
        mask[n_cells + len(keeps) + c * n_rows + r] = True
    if moves.may_roll:
        for k, counts in enumerate(keeps):
            inside = all(counts[f - 1] <= held[f] for f in range(1, 7))
            mask[n_cells + k] = inside and counts.sum() < len(dice)
    return mask


def play_randomly(batch: GameBatch, rng: np.random.Generator, check: bool = True) -> None:
    """Play every game of ``batch`` to its end with uniformly random legal actions."""
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        mask = batch.legal_actions(games)
        assert mask.any(axis=1).all(), "a game that is not over has no legal action"
        batch.step(random_policy(batch, games, mask, rng), games, check=check)


def reference_games(batch: GameBatch) -> list[ReferenceGame]:
    """A fresh ReferenceGame beside each game of a new ``batch``."""
    r, lay = batch.rules, batch.layout
    return [ReferenceGame(r.name, lay.columns, lay.players, r.n_dice, r.joker) for _ in range(batch.n_games)]


def random_policy(batch: GameBatch, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for each game."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def play_against_reference(batch: GameBatch, rng: np.random.Generator, policy: Policy = random_policy) -> list[ReferenceGame]:
    """Play ``batch`` to its end with ``policy``, checking every step against the reference.

    Checks at each decision that the engine's legal actions are the reference's,
    that a fill scores what the reference scores and touches no other cell,
    and at the end that every cell is filled and the scores are the reference totals.
    """
    refs = reference_games(batch)
    lay, dice_table = batch.layout, batch.rules.dice
    n_cells, n_keeps = lay.n_cells, lay.n_keeps
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        mask = batch.legal_actions(games)
        assert mask.any(axis=1).all(), "a game that is not over has no legal action"
        dice = {g: tuple(dice_table.faces[batch.dice[g]].tolist()) for g in games}
        for g, row in zip(games, mask):
            ref = refs[g]
            assert batch.player[g] == ref.player and batch.roll[g] == ref.roll
            expected = moves_mask(ref.moves(dice[g]), lay.n_rows, n_cells, dice_table.keeps, dice[g])
            assert (row == expected).all(), (ref, dice[g])
        actions = policy(batch, games, mask, rng)
        filled, cells = batch.filled.copy(), batch.cells.copy()
        batch.step(actions, games)
        for g, a in zip(games, actions):
            ref = refs[g]
            p = ref.player  # the player who moved
            if a < n_cells:
                c, r = divmod(int(a), lay.n_rows)
                assert batch.cells[g, p, c, r] == ref.fill(c, r, dice[g])
                cells[g, p, c, r] = batch.cells[g, p, c, r]
                filled[g, p, c] |= np.uint32(1 << r)
            elif a < n_cells + n_keeps:
                ref.reroll(int(dice_table.keep_size[a - n_cells]))
            else:
                ref.announce(*divmod(int(a) - n_cells - n_keeps, lay.n_rows))
            assert (batch.filled[g] == filled[g]).all() and (batch.cells[g] == cells[g]).all()
            assert batch.done[g] == ref.done
    assert (batch.filled == (1 << lay.n_rows) - 1).all()
    scores = batch.scores()
    for g, ref in enumerate(refs):
        assert scores[g].tolist() == [ref.total(p) for p in range(lay.players)]
    return refs

