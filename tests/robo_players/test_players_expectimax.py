"""Expectimax: its choices equal an exhaustive search of the turn, its cell values match the rules."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import product

import numpy as np
import pytest

from robo_players.greedy import GreedyPlayer
from robo_players.measure.simulate import simulate
from robo_players.search.cell_values import NORMAL_BONUS, cell_model, column_values
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.values import fill_value
from yamb.engine import GameBatch
from yamb.layout import Layout, layout
from yamb.rules import N_NUMBER_ROWS, rules


@cache
def rolled(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every multiset of ``n`` rolled dice (face counts) with its probability, by enumerating ordered rolls."""
    ways = Counter(tuple(sum(1 for d in seq if d == f) for f in range(1, 7))
                   for seq in product(range(1, 7), repeat=n))
    return tuple((counts, w / 6**n) for counts, w in ways.items())


def sub_keeps(hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every keep of a hand that rerolls at least one die."""
    keeps = product(*(range(c + 1) for c in hand))
    return [k for k in keeps if sum(k) < sum(hand)]


class Exhaustive:
    """Brute-force values of the rest of a turn, with the endings valued by the player's cell model
    (a hand thrown whole, every die rerolled, is pure: on jamb6 it may fill an announce cell)."""

    def __init__(self, batch: GameBatch, game: int) -> None:
        self.batch, self.game = batch, game
        lay: Layout = batch.layout
        self.lay, self.r = lay, batch.rules
        model = cell_model(self.r, lay.columns)
        self.model = model
        self.lin = np.zeros((lay.n_columns, lay.n_rows, 2))
        self.num = np.zeros((lay.n_columns, N_NUMBER_ROWS, 6))
        for c in range(lay.n_columns):
            column_values(batch.filled, batch.cells, game, 0, c, model.expected, model.variance, NORMAL_BONUS,
                          model.level_score, model.params, self.lin, self.num)
        self.rolls = int(batch.rolls_allowed[game])
        self.legal = {}  # (roll, pure hand) -> (fill cells, announce cells), read from the engine
        saved = batch.roll[game], batch.pure[game]
        for t, pure in product(range(1, self.rolls + 1), (False, True)):
            batch.roll[game], batch.pure[game] = t, pure
            d = batch.decisions(np.array([game]))
            cells = lambda bits: [c * lay.n_rows + r for c in range(lay.n_columns)  # noqa: E731
                                  for r in range(lay.n_rows) if bits[0, c] >> r & 1]
            self.legal[t, pure] = (cells(d.fill_bits), cells(d.announce_bits))
        batch.roll[game], batch.pure[game] = saved
        self.memo: dict = {}

    def fill(self, cell: int, hand: tuple[int, ...]) -> float:
        c, r = divmod(cell, self.lay.n_rows)
        m = self.r.dice.index_of_dice([f + 1 for f in range(6) for _ in range(hand[f])])
        r_ = self.r
        return float(fill_value(c, r, m, self.batch.filled[self.game, 0, c], r_.scores, r_.joker_scores,
                                r_.five_alike_face, r_.has_jokers, self.model.params, 0, self.model.levels,
                                self.lin, self.num))

    def value(self, t: int, hand: tuple[int, ...], only: int = -1, pure: bool = False) -> float:
        """Value of holding ``hand`` after roll ``t`` (``pure``: every die of it thrown at once);
        ``only`` restricts the endings to one announced cell."""
        key = (t, hand, only, pure)
        if key not in self.memo:
            best = max((e for e, _ in self.endings(t, hand, only, pure)), default=-np.inf)
            if t < self.rolls:
                best = max([best] + [self.keep_value(t, k, only) for k in sub_keeps(hand)])
            self.memo[key] = best
        return self.memo[key]

    def keep_value(self, t: int, keep: tuple[int, ...], only: int = -1) -> float:
        key = ("keep", t, keep, only)
        if key not in self.memo:
            pure = sum(keep) == 0  # rerolling every die throws a pure hand
            self.memo[key] = sum(p * self.value(t + 1, tuple(a + b for a, b in zip(keep, counts)), only, pure)
                                 for counts, p in rolled(self.r.n_dice - sum(keep)))
        return self.memo[key]

    def endings(self, t: int, hand: tuple[int, ...], only: int = -1, pure: bool = False) -> list[tuple[float, int]]:
        """(value, action) of every way to end the turn now."""
        if only >= 0:
            return [(self.fill(only, hand), only)]
        fills, announces = self.legal[t, pure]
        out = [(self.fill(cell, hand), cell) for cell in fills]
        base = self.lay.n_cells + self.lay.n_keeps
        out += [(self.value(t, hand, only=cell), base + cell) for cell in announces]
        return out

    def best(self) -> float:
        """The value of the hand held now."""
        return self.value(int(self.batch.roll[self.game]), self.held(), pure=bool(self.batch.pure[self.game]))

    def held(self) -> tuple[int, ...]:
        """The hand held now, as face counts."""
        return tuple(int(x) for x in self.r.dice.multisets[self.batch.dice[self.game]])

    def action_value(self, action: int) -> float:
        """The value of ``action`` with the hand held now."""
        t, hand, pure = int(self.batch.roll[self.game]), self.held(), bool(self.batch.pure[self.game])
        if self.lay.n_cells <= action < self.lay.n_cells + self.lay.n_keeps:
            return self.keep_value(t, tuple(int(x) for x in self.r.dice.keeps[action - self.lay.n_cells]))
        return dict((a, v) for v, a in self.endings(t, hand, pure=pure))[action]


def _advance(batch: GameBatch, turns: int) -> None:
    """Play ``turns`` turns of every game with greedy, to reach varied positions."""
    player = GreedyPlayer()
    while (batch.turn < turns).any():
        games = np.flatnonzero(batch.turn < turns)
        batch.step(player.act(batch, games), games)


@pytest.mark.parametrize(
    ("preset", "columns", "turns", "seed"),
    [
        ("yamb", ("down", "up", "free", "announce"), 0, 4),
        ("yamb", ("hand", "late_announce", "free"), 14, 4),
        ("yatzy", ("free",), 6, 4),
    ],
)
def test_choice_is_optimal_by_exhaustive_search(preset: str, columns: tuple, turns: int, seed: int) -> None:
    lay = layout(rules(preset), columns)
    batch = GameBatch(lay, 1, seed=seed)
    _advance(batch, turns)
    player = ExpectimaxPlayer(lay)
    game = np.array([0])
    checked = 0
    while batch.turn[0] == turns and batch.announced[0] < 0:  # the rolls of one turn
        search = Exhaustive(batch, 0)
        action = int(player.act(batch, game)[0])
        assert search.action_value(action) == pytest.approx(search.best(), abs=1e-9)
        batch.step(np.array([action]), game)
        checked += 1
    assert checked >= 2


def test_hand_after_a_full_reroll_is_played_as_exhaustive_search_says() -> None:
    """jamb6: a hand thrown whole after the first roll may fill an announce cell. The move made with
    it, after a plan made before the reroll, is the best by exhaustive search of the rest of the turn
    (a whole game's such hands)."""
    lay = layout(rules("jamb6"))
    batch = GameBatch(lay, 1, seed=3)
    player = ExpectimaxPlayer(lay)
    game = np.array([0])
    checked = 0
    while not batch.done[0]:
        action = int(player.act(batch, game)[0])
        # the second roll of a three-roll turn, every die rerolled, nothing announced
        if batch.roll[0] == 2 and batch.rolls_allowed[0] == 3 and batch.pure[0] and batch.announced[0] < 0:
            search = Exhaustive(batch, 0)
            assert search.action_value(action) == pytest.approx(search.best(), abs=1e-9), (
                f"turn {batch.turn[0]}: {lay.describe_action(action)} with {search.held()}")
            checked += 1
        batch.step(np.array([action]), game)
    assert checked >= 3


def test_last_open_cell_value_is_exact_against_column_totals() -> None:
    r = rules("yamb")
    lay = layout(r, ("free",))
    model = cell_model(r, lay.columns)
    rng = np.random.default_rng(0)
    for row in range(r.n_rows):
        cells = rng.integers(0, 30, size=r.n_rows).astype(np.int16)
        batch = GameBatch(lay, 1)
        batch.filled[0, 0, 0] = np.uint32(lay.full_mask & ~(1 << row))
        batch.cells[0, 0, 0] = cells
        batch.cells[0, 0, 0, row] = 0
        lin = np.zeros((1, r.n_rows, 2))
        num = np.zeros((1, N_NUMBER_ROWS, 6))
        column_values(batch.filled, batch.cells, 0, 0, 0, model.expected, model.variance, NORMAL_BONUS,
                      model.level_score, model.params, lin, num)
        values, totals = [], []
        for m in range(0, r.dice.n_multisets, 7):
            values.append(fill_value(0, row, m, batch.filled[0, 0, 0], r.scores, r.joker_scores,
                                     r.five_alike_face, False, model.params, 0, model.levels, lin, num))
            full = cells.copy()
            full[row] = r.scores[m, row]
            totals.append(int(r.column_totals(full)["total"]))
        assert np.allclose(np.diff(values), np.diff(totals)), r.rows[row]


def test_expectimax_beats_greedy_clearly() -> None:
    lay = layout(rules("yamb"))
    greedy = simulate(lay, GreedyPlayer(), 200, seed=9)
    best = simulate(lay, ExpectimaxPlayer(lay), 200, seed=9)
    diff = best - greedy
    assert diff.mean() > 100
    assert diff.mean() > 5 * diff.std(ddof=1) / np.sqrt(len(diff))
