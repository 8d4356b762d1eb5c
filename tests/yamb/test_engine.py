"""The batched engine: whole games against the reference, batch independence, dice streams and tables."""

from __future__ import annotations

import json
from collections import Counter
from itertools import product

import numpy as np
import pytest
from scipy.stats import chisquare

from tests.reference_game import play_against_reference, random_policy
from yamb import YambError, engine, rules
from yamb.dice import dice_tables
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb_app.cli import main


@pytest.mark.parametrize(
    ("preset", "dice", "joker", "columns", "players"),
    [
        ("yamb", 5, None, None, 1),
        ("yamb", 6, None, None, 1),
        ("jamb6", 6, None, None, 1),
        ("yatzy", 5, None, None, 1),
        ("yahtzee", 5, "free", None, 1),
        ("yahtzee", 5, "forced", None, 1),
        ("yahtzee", 5, "forced", ("down", "free"), 1),
        ("yamb", 5, None, ("middle", "updown", "hand", "late_announce"), 1),
        ("yamb", 5, None, ("free", "announce", "counter_announce"), 2),
        ("jamb6", 6, None, ("hand", "announce", "late_announce", "counter_announce"), 3),
        ("yatzy", 5, None, ("middle", "counter_announce"), 2),
    ],
)
def test_random_games_match_the_reference_to_the_last_cell(
    preset: str, dice: int, joker: str | None, columns: tuple[str, ...] | None, players: int
) -> None:
    batch = GameBatch(layout(rules(preset, dice=dice, joker=joker), columns, players), 3, seed=17)
    refs = play_against_reference(batch, np.random.default_rng(4))
    assert all(ref.done for ref in refs)
    assert (batch.turn == players * batch.layout.n_cells).all()


def _chase_yahtzees(batch: GameBatch, games: np.ndarray, mask: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """Keep the most common face, put five alike in the yahtzee cell if open, else play at random."""
    lay, tables = batch.layout, batch.rules.dice
    actions = random_policy(batch, games, mask, rng)
    counts = tables.multisets[batch.dice[games]]
    most = np.eye(6, dtype=int)[counts.argmax(axis=1)] * counts.max(axis=1)[:, None]
    chase = lay.n_cells + tables.keep_index(most)
    ok = mask[np.arange(len(games)), chase]
    actions[ok] = chase[ok]
    yahtzee = lay.cell(0, "yahtzee")
    take = mask[:, yahtzee] & (counts.max(axis=1) == 5)
    actions[take] = yahtzee
    return actions


@pytest.mark.parametrize("joker", ["free", "forced"])
def test_games_with_many_yahtzees_match_the_reference(joker: str) -> None:
    """Jokers and bonuses come up often when the games chase Yahtzees."""
    batch = GameBatch(layout(rules("yahtzee", joker=joker)), 60, seed=2)
    refs = play_against_reference(batch, np.random.default_rng(0), _chase_yahtzees)
    assert sum(sum(ref.bonuses) for ref in refs) > 5
    assert batch.bonuses.sum() == sum(sum(ref.bonuses) for ref in refs)


def _uniform_policy_game(batch: GameBatch, check: bool = True) -> None:
    """Play to the end choosing among legal actions with the batch's counter-based uniforms."""
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        mask = batch.legal_actions(games)
        u = batch.uniform(games, salt=9)
        nth = (u * mask.sum(axis=1)).astype(np.int64)
        batch.step((mask.cumsum(axis=1) > nth[:, None]).argmax(axis=1), games, check=check)


@pytest.mark.slow
def test_a_game_is_the_same_alone_and_in_a_large_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams make dice independent of the batch; the large batch runs on all threads."""
    monkeypatch.setattr(engine, "PARALLEL_GAMES", 200)
    lay = layout(rules("yamb"), ["free", "announce"])
    big = GameBatch(lay, 1000, seed=42)
    _uniform_policy_game(big, check=False)
    for stream in (0, 1, 517, 999):
        alone = GameBatch(lay, 1, seed=42, streams=np.array([stream]))
        _uniform_policy_game(alone)
        assert (alone.cells[0] == big.cells[stream]).all()
        assert alone.scores()[0, 0] == big.scores()[stream, 0]
    assert len(np.unique(big.scores())) > 50  # the games really differ


def test_seed_and_stream_fix_the_dice_wherever_the_game_sits() -> None:
    lay = layout(rules("yamb"))
    a = GameBatch(lay, 3, seed=7, streams=np.array([5, 3, 9]))
    b = GameBatch(lay, 2, seed=7, streams=np.array([3, 5]))
    c = GameBatch(lay, 2, seed=8, streams=np.array([3, 5]))
    for _ in range(2):
        assert a.dice[1] == b.dice[0] and a.dice[0] == b.dice[1]
        assert a.uniform()[1] == b.uniform()[0]
        # reroll everything in all games: keep nothing
        for batch in (a, b, c):
            batch.step(np.full(batch.n_games, lay.n_cells))
    histories = [GameBatch(lay, 500, seed=s).dice for s in (7, 8)]
    assert (histories[0] != histories[1]).mean() > 0.9


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "7", np.float64(3)])
def test_a_batch_refuses_a_seed_outside_the_engine_range(seed: object) -> None:
    with pytest.raises(YambError, match="seed must be an integer from 0 to 2\\*\\*64 - 1"):
        GameBatch(layout(rules("yatzy")), 2, seed=seed)


@pytest.mark.parametrize("n_games", [-5, 2.0, None])
def test_a_batch_refuses_a_count_of_games_that_is_not_a_whole_number(n_games: object) -> None:
    with pytest.raises(YambError, match="whole number of games"):
        GameBatch(layout(rules("yatzy")), n_games)


def test_the_largest_seed_deals_the_same_dice_as_a_numpy_one() -> None:
    a = GameBatch(layout(rules("yatzy")), 3, seed=2**64 - 1)
    b = GameBatch(layout(rules("yatzy")), 3, seed=np.uint64(2**64 - 1))
    assert np.array_equal(a.dice, b.dice)


def test_dice_rolls_follow_the_exact_probabilities() -> None:
    """Chi-square of 60,000 first rolls and rerolls of three dice against the dice tables."""
    r = rules("yamb")
    lay = layout(r)
    batch = GameBatch(lay, 60_000, seed=3)
    tables = r.dice
    expected = tables.outcome_prob[0] * batch.n_games
    assert chisquare(np.bincount(batch.dice, minlength=252), expected).pvalue > 1e-4
    # keep one die showing the lowest face in the hand and reroll the others
    faces = tables.faces[batch.dice]
    keeps = np.array([tables.keep_index(np.eye(6, dtype=int)[f - 1]) for f in range(1, 7)])
    batch.step(lay.n_cells + keeps[faces[:, 0] - 1])
    for f in range(1, 7):
        held = faces[:, 0] == f
        expected = tables.outcome_prob[keeps[f - 1]] * held.sum()
        counts = np.bincount(batch.dice[held], minlength=252)
        assert counts[expected == 0].sum() == 0
        assert chisquare(counts[expected > 0], expected[expected > 0]).pvalue > 1e-4


@pytest.mark.parametrize("n_dice", [5, 6])
def test_dice_tables_match_brute_force_enumeration(n_dice: int) -> None:
    t = dice_tables(n_dice)
    assert (t.n_multisets, t.n_keeps) == ((252, 462) if n_dice == 5 else (462, 924))
    assert np.allclose(t.outcome_prob.sum(axis=1), 1.0)
    for k in range(0, t.n_keeps, 7):
        keep = t.keeps[k]
        rest = n_dice - int(keep.sum())
        ways = Counter()
        for roll in product(range(6), repeat=rest):
            counts = keep.copy()
            for face in roll:
                counts[face] += 1
            ways[int(t.multiset_index(counts))] += 1
        assert dict(ways) == {m: int(w) for m, w in enumerate(t.outcome_ways[k]) if w}
    for m in range(t.n_multisets):
        subs = {k for k in range(t.n_keeps) if (t.keeps[k] <= t.multisets[m]).all()}
        assert set(t.sub_keeps[m, : t.n_sub_keeps[m]].tolist()) == subs
        assert t.keep_of_multiset[m] in subs
    for k, f in product(range(t.n_keeps), range(6)):
        plus, minus = t.add_die[k, f], t.remove_die[k, f]
        if plus >= 0:
            assert (t.keeps[plus] - t.keeps[k]).tolist() == np.eye(6, dtype=int)[f].tolist()
        else:
            assert t.keep_size[k] == n_dice
        assert (minus >= 0) == (t.keeps[k, f] > 0)


def test_uniforms_are_reproducible_floats_in_the_unit_interval() -> None:
    batch = GameBatch(layout(rules("yatzy")), 10_000, seed=1)
    u = batch.uniform()
    assert ((u >= 0) & (u < 1)).all() and abs(u.mean() - 0.5) < 0.01
    assert (u == batch.uniform()).all()
    assert (u != batch.uniform(salt=2)).mean() > 0.99
    assert (batch.uniform(np.array([4, 2]), salt=2) == batch.uniform(salt=2)[[4, 2]]).all()


def test_scores_and_totals_have_a_row_per_game_and_player() -> None:
    batch = GameBatch(layout(rules("yamb"), None, players=2), 4)
    assert batch.scores().shape == (4, 2)
    assert batch.totals()["total"].shape == (4, 2, 4)
    assert (batch.scores() == 0).all()


def test_streams_of_the_wrong_shape_and_bad_game_indices_are_refused() -> None:
    with pytest.raises(YambError, match="streams must have shape"):
        GameBatch(layout(rules()), 3, streams=np.arange(2))
    batch = GameBatch(layout(rules()), 3)
    for games in ([0, 3], [-1], [[0, 1]]):
        with pytest.raises(YambError, match="indices from 0 to 2"):
            batch.step(np.zeros(np.size(games), dtype=int), np.array(games))
        with pytest.raises(YambError, match="indices from 0 to 2"):
            batch.legal_actions(np.array(games))


def test_bench_reports_every_case_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--games", "30", "--repeat", "1", "--threads", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    cases = ("games_per_second", "jamb6_games_per_second", "yatzy_games_per_second",
             "yahtzee_games_per_second", "checked_games_per_second")
    assert all(report[key] > 0 for key in cases)
    assert report["threads"] == 1 and report["games"] == 30


@pytest.mark.parametrize(("args", "needle"), [(["--games", "0"], "argument --games: '0' is not a whole number from 1 to"),
                                              (["--threads", "99"], "argument --threads: '99' is not a whole number from 1 to")])
def test_bench_refuses_bad_options(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", *args]) == 2
    assert needle in capsys.readouterr().err
