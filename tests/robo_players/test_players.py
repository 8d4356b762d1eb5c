"""Players: legal moves on every preset and column kind, and the rules of thumb of the baselines."""

from __future__ import annotations

import numpy as np
import pytest

from robo_players.base import play
from robo_players.greedy import GreedyPlayer
from robo_players.heuristics import row_tables
from robo_players.measure.simulate import simulate
from robo_players.random_player import RandomPlayer
from robo_players.registry import make_player
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.kernels import fill_score
from yamb.layout import layout
from yamb.rules import rules

# (preset, dice, joker, columns, players): every column kind, several presets and players.
TABLES = [
    ("yamb", None, None, None, 1),
    ("yamb", None, None, ("hand", "late_announce", "updown", "middle"), 1),
    ("yamb", None, None, ("down", "counter_announce", "free", "announce"), 2),
    ("yamb", 6, None, ("free", "announce", "late_announce"), 1),
    ("jamb6", None, None, None, 1),
    ("jamb6", None, None, ("hand", "counter_announce", "announce"), 3),
    ("yatzy", None, None, None, 1),
    ("yatzy", None, None, ("down", "up", "announce", "hand"), 1),
    ("yahtzee", None, None, None, 1),
    ("yahtzee", None, "forced", ("free", "free", "counter_announce"), 2),
]
PLAYERS = ["greedy", "smart", "expectimax", "expectimax-played", "expectimax-exact"]


def table_id(case: tuple) -> str:
    preset, dice, joker, columns, players = case
    parts = [preset, f"{dice}d" if dice else "", joker or "", ",".join(columns or ()), f"{players}p"]
    return "-".join(p for p in parts if p)


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("case", TABLES, ids=table_id)
def test_player_makes_only_legal_moves(name: str, case: tuple) -> None:
    preset, dice, joker, columns, players = case
    lay = layout(rules(preset, dice=dice, joker=joker), columns, players)
    player = make_player(name, lay)
    batch = GameBatch(lay, 24, seed=11)
    scores = play(batch, [player] * players, check=True)  # raises IllegalMoveError on any illegal move
    assert batch.done.all()
    assert (batch.filled == lay.full_mask).all()
    assert scores.shape == (24, players)


def test_fill_score_matches_the_engine_including_jokers() -> None:
    lay = layout(rules("yahtzee"), ("free", "free"))
    r = lay.rules
    batch = GameBatch(lay, 400, seed=3)
    player = RandomPlayer()
    checked = jokers = 0
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        actions = player.act(batch, games)
        fills = actions < lay.n_cells
        g, a = games[fills], actions[fills]
        c, row = np.divmod(a, lay.n_rows)
        expected = [
            fill_score(r.scores, r.joker_scores, r.five_alike_face, True, r.row_index("yahtzee"),
                       batch.filled[gi, 0, ci], batch.dice[gi], ri)
            for gi, ci, ri in zip(g, c, row)
        ]
        jokers += sum(e != r.scores[batch.dice[gi], ri] for e, gi, ri in zip(expected, g, row))
        batch.step(actions, games)
        assert list(batch.cells[g, 0, c, row]) == expected
        checked += len(g)
    assert checked == 400 * lay.n_cells
    assert jokers > 0


def test_straight_targets_come_from_the_score_tables() -> None:
    def faces(preset: str) -> dict[str, set[frozenset[int]]]:
        r = rules(preset)
        t = row_tables(r)
        out: dict[str, set[frozenset[int]]] = {}
        for bits, row in zip(t.straight_faces, t.straight_row):
            out.setdefault(r.rows[row], set()).add(frozenset(f + 1 for f in range(6) if bits >> f & 1))
        return out

    assert faces("yamb") == {"straight": {frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6})}}
    small = {frozenset(range(lo, lo + 4)) for lo in (1, 2, 3)}
    assert faces("yahtzee") == {"small_straight": small,
                                "large_straight": {frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6})}}


def _position(preset: str, columns: tuple[str, ...], hand: tuple[int, ...],
              filled_rows: tuple[str, ...] = ()) -> GameBatch:
    """A one-game batch after the first roll, holding ``hand``, with ``filled_rows`` filled in every column."""
    lay = layout(rules(preset), columns)
    batch = GameBatch(lay, 1, seed=0)
    for row in filled_rows:
        batch.filled[0, 0, :] |= np.uint32(1 << lay.rules.row_index(row))
    batch.dice[0] = lay.rules.dice.index_of_dice(hand)
    return batch


def _kept(batch: GameBatch, action: int) -> tuple[int, ...]:
    counts = batch.rules.dice.keeps[action - batch.layout.n_cells]
    return tuple(f + 1 for f in range(6) for _ in range(counts[f]))


@pytest.mark.parametrize(
    ("name", "filled_rows", "kept"),
    [
        ("greedy", (), (2, 2, 5, 5)),
        ("smart", (), (2, 2, 5, 5)),
        ("greedy", ("full_house",), (2, 2, 5, 5)),
        ("smart", ("full_house",), (5, 5)),
    ],
)
def test_two_pairs_are_kept_together_only_for_a_full_house(name: str, filled_rows: tuple, kept: tuple) -> None:
    batch = _position("yatzy", ("free",), (2, 2, 5, 5, 6), ("two_pairs", *filled_rows))
    player = make_player(name, batch.layout)
    assert _kept(batch, int(player.act(batch, np.array([0]))[0])) == kept


def test_greedy_keeps_a_straight_draw_and_fills_the_best_score() -> None:
    batch = _position("yamb", ("free",), (2, 3, 3, 5, 6))
    assert _kept(batch, int(GreedyPlayer().act(batch, np.array([0]))[0])) == (2, 3, 5, 6)
    batch = _position("yamb", ("free",), (2, 3, 3, 5, 6), ("straight",))
    assert _kept(batch, int(GreedyPlayer().act(batch, np.array([0]))[0])) == (3, 3)
    batch.roll[0] = 3  # no rolls left: the best score, max and min tie at 19, full house and up score less
    cell = int(GreedyPlayer().act(batch, np.array([0]))[0])
    assert batch.rules.rows[cell] in ("max", "min")
    assert batch.rules.scores[batch.dice[0], cell] == 19


def test_smart_beats_greedy_on_common_dice() -> None:
    lay = layout(rules("yatzy"))
    greedy = simulate(lay, GreedyPlayer(), 600, seed=5)
    smart = simulate(lay, make_player("smart", lay), 600, seed=5)
    diff = smart - greedy
    assert diff.mean() > 3 * diff.std(ddof=1) / np.sqrt(len(diff))


@pytest.mark.parametrize(
    ("preset", "joker", "columns"),
    [("yamb", None, ("down",)), ("jamb6", None, ("up",))],  # cheap to solve; the solver's tests play the rest
)
def test_optimal_makes_only_legal_moves(preset: str, joker: str | None, columns: tuple | None) -> None:
    lay = layout(rules(preset, joker=joker), columns)
    batch = GameBatch(lay, 24, seed=2)
    play(batch, [make_player("optimal", lay)], check=True)
    assert (batch.filled == lay.full_mask).all()


def test_optimal_mean_is_the_solvers_value() -> None:
    lay = layout(rules("yamb"), ("down",))
    player = make_player("optimal", lay)
    scores = simulate(lay, player, 2000, seed=3)
    sem = scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(scores.mean() - player.solution.expected_score) < 3 * sem


def test_optimal_refuses_tables_without_a_solution() -> None:
    with pytest.raises(YambError, match="exact solver handles"):
        make_player("optimal", layout(rules("yamb")))


@pytest.mark.parametrize("name", ["optimal", "best-values"])
def test_exact_turn_players_play_their_own_sheet_at_a_table_of_three(name: str) -> None:
    """Each seat plays its own sheet: its mean is the solitaire value of the table, seat by seat."""
    solitaire = layout(rules("yatzy"))
    table = layout(rules("yatzy"), players=3)
    batch = GameBatch(table, 800, seed=11)
    scores = play(batch, [make_player(name, table)] * 3, check=True)
    alone = simulate(solitaire, make_player(name, solitaire), 4000, seed=12)
    for seat in scores.T:
        sem = np.hypot(seat.std(ddof=1) / np.sqrt(len(seat)), alone.std(ddof=1) / np.sqrt(len(alone)))
        assert abs(seat.mean() - alone.mean()) < 4 * sem
