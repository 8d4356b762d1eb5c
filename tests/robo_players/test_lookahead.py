"""Look-ahead: next-turn values against brute force, the last turn equal to the one-turn search,
legal moves on every preset."""

from __future__ import annotations

import numpy as np
import pytest

from evolution.state import expected_cell_values
from robo_players.base import play
from robo_players.greedy import GreedyPlayer
from robo_players.neural.build import population_player
from robo_players.neural.guided import SearchGuidedPlayer
from robo_players.neural.networks import NetSpec
from robo_players.registry import make_player
from robo_players.search.cell_values import column_values
from robo_players.search.column_exact import EXACT_KINDS, ColumnExactPlayer
from robo_players.search.correction import correct
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lookahead import LookaheadPlayer, NextTables
from robo_players.search.next_turn import next_tables
from robo_players.search.values import fill_value
from tests.robo_players.test_column_exact import stand_ins
from tests.robo_players.test_players import TABLES, table_id
from tests.robo_players.test_players_expectimax import Exhaustive, _advance, rolled
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import N_NUMBER_ROWS, rules


class Brute(Exhaustive):
    """``Exhaustive`` over ``player``'s own cell values (its row expectations, bonus chances and
    network corrections, the corrections computed on the batch itself), the Yahtzee bonus included."""

    def __init__(self, batch: GameBatch, game: int, player: ExpectimaxPlayer) -> None:
        super().__init__(batch, game)
        t = player.tables
        self.params = t.params
        games = np.array([game])
        adjust = player.corrections(batch, games) if type(player) is not ExpectimaxPlayer else None
        for c in range(self.lay.n_columns):
            own = batch.filled[game, 0, c]
            column_values(batch.filled, batch.cells, game, 0, c, t.expected, t.variance, t.bonus_levels,
                          t.level_score, t.params, self.lin, self.num)
            if adjust is not None:
                correct(adjust, 0, c, own, self.lin, self.num)

    def fill(self, cell: int, hand: tuple[int, ...]) -> float:
        c, r = divmod(cell, self.lay.n_rows)
        rl = self.r
        m = rl.dice.index_of_dice([f + 1 for f in range(6) for _ in range(hand[f])])
        yamb_cell = self.batch.cells[self.game, 0, c, rl.row_index("yahtzee")] if rl.has_jokers else 0
        return float(fill_value(c, r, m, self.batch.filled[self.game, 0, c], rl.scores, rl.joker_scores,
                                rl.five_alike_face, rl.has_jokers, self.params, yamb_cell, self.model.levels,
                                self.lin, self.num))

    def start(self) -> float:
        """Expected value of the turn before its first roll."""
        return sum(p * self.value(1, hand) for hand, p in rolled(self.r.n_dice))


class Brute3(Brute):
    """``Brute`` whose endings also gain the next turn's start value (by brute force): the next
    turn of the three-turn look-ahead."""

    def __init__(self, batch: GameBatch, game: int, player: ExpectimaxPlayer) -> None:
        super().__init__(batch, game, player)
        self.player = player
        self.next: dict[tuple[int, int], float] = {}

    def fill(self, cell: int, hand: tuple[int, ...]) -> float:
        c, r = divmod(cell, self.lay.n_rows)
        score = hand[r] * (r + 1) if r < N_NUMBER_ROWS else int(round(self.player.tables.expected[c, r]))
        if (cell, score) not in self.next:
            self.next[cell, score] = Brute(_next_batch(self.batch, c, r, score), 0, self.player).start()
        return super().fill(cell, hand) + self.next[cell, score]


def _table(lay, open_rows: list[str], seed: int) -> GameBatch:
    """One game, its only column filled but for ``open_rows``, at the first roll of a turn."""
    batch = GameBatch(lay, 1, seed=seed)
    rows = [lay.rules.row_index(name) for name in open_rows]
    batch.cells[0, 0, 0] = [lay.rules.scores[7 * r + 3, r] for r in range(lay.n_rows)]  # some legal scores,
    batch.cells[0, 0, 0, :N_NUMBER_ROWS] = 3 * np.arange(1, N_NUMBER_ROWS + 1)  # the bonus at par
    batch.filled[0, 0, 0] = lay.full_mask & ~sum(1 << r for r in rows)
    batch.cells[0, 0, 0, rows] = 0
    batch.turn[0] = lay.n_rows - len(rows)
    return batch


def _next_batch(batch: GameBatch, c: int, r: int, score: int) -> GameBatch:
    """A copy of ``batch``'s game 0 with row ``r`` of column ``c`` filled with ``score``, at a turn's first roll."""
    nxt = GameBatch(batch.layout, 1, seed=1)
    nxt.filled[0], nxt.cells[0] = batch.filled[0], batch.cells[0]
    nxt.filled[0, 0, c] |= 1 << r
    nxt.cells[0, 0, c, r] = score
    return nxt


CASES = [  # preset, open rows, base player
    ("yatzy", ["fours", "full_house", "chance"], "expectimax"),
    ("yatzy", ["twos", "sixes", "one_pair"], "expectimax-exact"),
    ("yatzy", ["fives", "small_straight", "yatzy"], "best"),
    ("yahtzee", ["threes", "yahtzee", "chance"], "expectimax-played"),
    ("yahtzee", ["aces", "yahtzee", "full_house"], "best"),
    ("yatzy", ["threes", "fours", "small_straight"], "expectimax-columns"),
    ("yatzy", ["ones", "sixes", "three_of_a_kind"], "guided-exact"),
]


def _base(name: str, lay) -> ExpectimaxPlayer:
    """A registered player, or ``guided-exact``: a network of random weights over the exact free
    column (its corrections compose with the column's)."""
    if name != "guided-exact":
        return make_player(name, lay)
    spec = NetSpec.for_layout("guided", lay, (4,), played=0.6, bonus="exact", exact=("free",))
    genome = spec.build().initial_genome(np.random.default_rng(0))
    genome += np.random.default_rng(1).standard_normal(genome.shape).astype(np.float32) * 0.3
    return population_player(spec, genome[None], expected_cell_values(spec)[None])


@pytest.mark.parametrize(("preset", "open_rows", "base"), CASES)
def test_next_turn_values_match_brute_force(preset: str, open_rows: list[str], base: str) -> None:
    lay = layout(rules(preset))
    r_ = lay.rules
    player = LookaheadPlayer(_base(base, lay), lay, margin=np.inf)
    batch = _table(lay, open_rows, seed=5)
    after = player.next_values(batch, np.array([0]))[0]
    # a network's float32 forward pass sums in another order for a batch of next tables than for one
    tolerance = 1e-5 if isinstance(player.base, SearchGuidedPlayer) else 1e-9
    checked = 0
    for name in open_rows:
        r = r_.row_index(name)
        if r < N_NUMBER_ROWS:
            cases = [(k, k * (r + 1), after[0, r, k]) for k in range(6)]
        elif r_.has_jokers and name == "yahtzee":
            cases = [(0, 0, after[0, r, 0]), (1, 50, after[0, r, 0] + 50 * after[0, r, 1])]
        else:  # filled at the row's expectation, rounded
            cases = [(0, int(round(player.base.tables.expected[0, r])), after[0, r, 0])]
        for _, score, value in cases:
            brute = Brute(_next_batch(batch, 0, r, score), 0, player.base).start()
            assert value == pytest.approx(brute, abs=tolerance), (name, score)
            checked += 1
    assert checked >= 8
    numbers = [r_.row_index(name) for name in open_rows if r_.row_index(name) < N_NUMBER_ROWS]
    if base == "expectimax-columns":  # the whole table valued exactly: from a table a fill can leave
        assert np.abs(after[0, numbers]).max() < 1e-9  # (a number row's), a turn gains nothing in expectation
        return
    if len(numbers) > 1:  # the level of a number row changes the next turn's bonus chances
        assert np.ptp(after[0, numbers[0]]) > 0.1


def _gaps_by_brute_force(batch: GameBatch, base: ExpectimaxPlayer) -> dict[tuple[int, int], float]:
    """How far each (cell, class) of game 0's column 0 falls below the best fill of the hand of
    that class it falls least below, by ``Brute``'s fill values of every hand and open cell."""
    lay, r_ = batch.layout, batch.rules
    brute = Brute(batch, 0, base)
    cells = [r for r in range(lay.n_rows) if not batch.filled[0, 0, 0] >> r & 1]
    yahtzee = r_.row_index("yahtzee") if r_.has_jokers else -1
    gaps: dict[tuple[int, int], float] = {}
    for hand, _ in rolled(r_.n_dice):
        values = {r: brute.fill(r, hand) for r in cells}
        best = max(values.values())
        for r, v in values.items():
            k = min(hand[r], 5) if r < N_NUMBER_ROWS else int(r == yahtzee and max(hand) == 5)
            gaps[r, k] = min(gaps.get((r, k), np.inf), best - v)
    return gaps


@pytest.mark.parametrize(("preset", "open_rows", "base"), CASES[:5])
def test_fill_gaps_match_brute_force(preset: str, open_rows: list[str], base: str) -> None:
    lay = layout(rules(preset))
    player = LookaheadPlayer(_base(base, lay), lay)
    batch = _table(lay, open_rows + ["chance"] * (preset == "yahtzee"), seed=5)
    expected = _gaps_by_brute_force(batch, player.base)
    got = player.gaps(batch, np.array([0]))[0, 0]
    tolerance = 1e-4 if isinstance(player.base, SearchGuidedPlayer) else 1e-9
    for r in range(lay.n_rows):
        for k in range(6):
            assert got[r, k] == pytest.approx(expected.get((r, k), np.inf), abs=tolerance), (r, k)
    assert min(expected.values()) == 0 and max(expected.values()) > 1


@pytest.mark.parametrize(("preset", "base", "margin"), [("yatzy", "expectimax-exact", 0.0), ("yatzy", "best", 2.0),
                                                        ("yamb", "best", 5.0)])
def test_margin_looks_ahead_from_each_hands_best_fill(preset: str, base: str, margin: float) -> None:
    """Within the margin of a hand's best fill the next values are those of every fill looked at,
    the best fill of every hand among them; outside it, the least of the game's."""
    lay = layout(rules(preset))
    batch = GameBatch(lay, 40, seed=3)
    _advance(batch, 4)
    games = np.arange(40)
    pruned = LookaheadPlayer(_base(base, lay), lay, margin=margin)
    every = LookaheadPlayer(pruned.base, lay, margin=np.inf)
    gaps, near, full = pruned.gaps(batch, games), pruned.next_values(batch, games), every.next_values(batch, games)
    fillable = np.isfinite(gaps)
    fillable[:, :, N_NUMBER_ROWS:, 1:] = False  # another row's next table is its class 0's
    kept = fillable & (gaps <= margin)
    assert 0 < kept.sum() < fillable.sum()
    # a network's float32 forward pass sums in another order for fewer next tables
    tolerance = 1e-5 if isinstance(pruned.base, SearchGuidedPlayer) else 0
    for i in games:
        assert gaps[i].min() == 0  # some hand's best fill
        np.testing.assert_allclose(near[i][kept[i]], full[i][kept[i]], rtol=0, atol=tolerance)
        np.testing.assert_allclose(near[i][fillable[i] & ~kept[i]], full[i][kept[i]].min(), rtol=0, atol=tolerance)


def test_an_infinite_margin_plays_as_a_margin_above_every_gap() -> None:
    lay = layout(rules("yamb"))
    batch, again = GameBatch(lay, 30, seed=4), GameBatch(lay, 30, seed=4)
    base = make_player("best", lay)
    play(batch, [LookaheadPlayer(base, lay, margin=np.inf)])
    play(again, [LookaheadPlayer(base, lay, margin=1e9)])  # prunes nothing, through the pruning's code
    np.testing.assert_array_equal(batch.cells, again.cells)


def test_margin_in_the_player_name() -> None:
    lay = layout(rules("yatzy"))
    assert make_player("best+lookahead@inf", lay).margin == np.inf
    assert make_player("best+lookahead3@2.5", lay).margin == 2.5
    assert make_player("best+lookahead", lay).name == "best+lookahead"
    assert make_player("best+lookahead@0", lay).name == "best+lookahead@0"
    for bad in ("best+lookahead@x", "best+lookahead@-1", "best+lookahead@nan"):
        with pytest.raises(YambError, match="margin"):
            make_player(bad, lay)


def test_three_turns_match_brute_force() -> None:
    lay = layout(rules("yatzy"))
    player = make_player("expectimax-exact+lookahead3@inf", lay)
    batch = _table(lay, ["threes", "fives", "two_pairs"], seed=5)
    after = player.next_values(batch, np.array([0]))[0]
    pairs = lay.rules.row_index("two_pairs")
    for r, score, value in [(2, 0, after[0, 2, 0]), (2, 9, after[0, 2, 3]), (4, 25, after[0, 4, 5]),
                            (pairs, int(round(player.base.tables.expected[0, pairs])), after[0, pairs, 0])]:
        brute = Brute3(_next_batch(batch, 0, r, score), 0, player.base).start()
        assert value == pytest.approx(brute, abs=1e-9), (r, score)
    assert np.ptp(after[0, 2]) > 0.1


@pytest.mark.parametrize(("preset", "base", "columns"), [
    ("yatzy", "expectimax-exact", None),
    ("yatzy", "best", None),
    ("yahtzee", "expectimax", None),
    ("yamb", "expectimax-played", ("free", "announce")),
])
def test_last_turn_is_the_one_turn_search_move_for_move(preset: str, base: str, columns) -> None:
    lay = layout(rules(preset), columns)
    batch = GameBatch(lay, 60, seed=9)
    _advance(batch, lay.n_cells - 1)
    ahead, one = make_player(f"{base}+lookahead", lay), make_player(base, lay)
    assert not ahead.next_values(batch, np.arange(60)).any()
    moves = 0
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        actions = ahead.act(batch, games)
        np.testing.assert_array_equal(actions, one.act(batch, games))
        batch.step(actions, games)
        moves += len(games)
    assert moves >= 120


@pytest.mark.parametrize(("preset", "columns"), [("yamb", None), ("jamb6", None), ("yatzy", None)])
def test_exact_corrections_of_next_tables_are_those_computed_afresh(preset: str, columns) -> None:
    """``corrections_after`` (the game's exact columns' corrections, the filled column's computed
    again) equals ``corrections`` of each next table, bit for bit, at varied positions."""
    lay = layout(rules(preset), columns)
    player = make_player("expectimax-columns", lay)
    exact = player.exact
    assert exact.any_order or exact.ordered
    batch = GameBatch(lay, 40, seed=5)
    batch.turn[:] = np.random.default_rng(3).integers(0, lay.n_cells - 1, 40)  # each game to its own turn
    target = batch.turn.copy()
    batch.turn[:] = 0
    _advance_to(batch, target)
    games = np.arange(40, dtype=np.int64)
    nexts = next_tables(games, batch.filled, batch.cells, batch.player, batch.constants, player.tables)
    assert len(np.unique(nexts.cell // lay.n_rows)) == lay.n_columns  # every column filled by some next table
    tables = NextTables(lay, lay.rules, nexts.filled, nexts.cells)
    which = np.arange(len(nexts.owner), dtype=np.int64)
    afresh = exact.corrections(tables, which)
    assert np.abs(afresh).sum() > 0
    before = exact.corrections(batch, games)[nexts.owner]
    after = exact.corrections_after(tables, which, nexts.cell // lay.n_rows, before)
    assert after.tobytes() == afresh.tobytes()


def _advance_to(batch: GameBatch, turns: np.ndarray) -> None:
    """Play each game with greedy up to its own turn ``turns[g]``."""
    while (batch.turn < turns).any():
        games = np.flatnonzero(batch.turn < turns)
        batch.step(GreedyPlayer().act(batch, games), games)


def test_look_ahead_changes_choices_before_the_last_turn() -> None:
    lay = layout(rules("yatzy"))
    batch = GameBatch(lay, 200, seed=2)
    _advance(batch, 6)
    games = np.arange(200)
    ahead, one = make_player("expectimax-exact+lookahead", lay), make_player("expectimax-exact", lay)
    assert (ahead.act(batch, games) != one.act(batch, games)).any()


@pytest.mark.slow
@pytest.mark.parametrize("case", TABLES, ids=table_id)
def test_look_ahead_makes_only_legal_moves(case: tuple) -> None:
    preset, dice, joker, columns, players = case
    lay = layout(rules(preset, dice=dice, joker=joker), columns, players)
    batch = GameBatch(lay, 2, seed=11)
    play(batch, [make_player("expectimax-exact+lookahead", lay)] * players, check=True)
    assert batch.done.all()
    assert (batch.filled == lay.full_mask).all()


@pytest.mark.slow
@pytest.mark.parametrize("case", TABLES, ids=table_id)
def test_look_ahead_over_exact_columns_makes_only_legal_moves(case: tuple) -> None:
    preset, dice, joker, columns, players = case
    lay = layout(rules(preset, dice=dice, joker=joker), columns, players)
    base = ColumnExactPlayer(lay, stand_ins(lay.rules), played=0.6, kinds=EXACT_KINDS)
    batch = GameBatch(lay, 2, seed=11)
    play(batch, [LookaheadPlayer(base, lay)] * players, check=True)
    assert (batch.filled == lay.full_mask).all()


def test_look_ahead_needs_a_search_player() -> None:
    lay = layout(rules("yatzy"))
    with pytest.raises(YambError, match="no turn search"):
        make_player("greedy+lookahead", lay)
    assert isinstance(make_player("best+lookahead", lay), LookaheadPlayer)


def test_look_ahead_plans_two_to_four_turns() -> None:
    """A fifth turn planned would take tens of GB (a ninth was killed for memory at 24 GB): refused."""
    lay = layout(rules("yatzy"))
    assert make_player("expectimax+lookahead4", lay).turns == 4
    for name, turns in (("expectimax+lookahead5", 5), ("best+lookahead9", 9), ("expectimax+lookahead1", 1)):
        with pytest.raises(YambError, match=f"^look-ahead plans 2 to 4 turns, not {turns}$"):
            make_player(name, lay)
