"""Property-based tests: random legal play on random tables never reaches an illegal state."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference_game import play_against_reference
from yamb import IllegalMoveError, rules
from yamb.columns import COLUMN_KINDS
from yamb.engine import GameBatch
from yamb.layout import layout

RULE_SETS = [("yamb", 5, None), ("yamb", 6, None), ("jamb6", 6, None), ("yatzy", 5, None),
             ("yahtzee", 5, "free"), ("yahtzee", 5, "forced")]


@st.composite
def tables(draw) -> GameBatch:
    """A small batch of a random preset, random columns (repeats allowed) and 1-3 players."""
    preset, dice, joker = draw(st.sampled_from(RULE_SETS))
    columns = draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=1, max_size=3))
    players = draw(st.integers(1, 3 if len(columns) == 1 else 2))
    if "counter_announce" in columns:
        players = max(players, 2)
    seed = draw(st.integers(0, 2**32 - 1))
    return GameBatch(layout(rules(preset, dice=dice, joker=joker), columns, players), 2, seed=seed)


@settings(max_examples=25, deadline=None)
@given(batch=tables(), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_follows_the_rules_to_a_full_table(batch: GameBatch, seed: int) -> None:
    """Legal actions equal the reference's at every step, a fill writes exactly its own empty
    cell with the reference's score, no filled cell ever changes, the legal mask is never empty
    before the end, and the final scores are the reference totals."""
    play_against_reference(batch, np.random.default_rng(seed))


@settings(max_examples=25, deadline=None)
@given(batch=tables(), seed=st.integers(0, 2**32 - 1))
def test_illegal_actions_are_refused_and_change_nothing(batch: GameBatch, seed: int) -> None:
    rng = np.random.default_rng(seed)
    game = np.array([0])
    for _ in range(60):
        if batch.done[0]:
            break
        mask = batch.legal_actions(game)[0]
        illegal = np.flatnonzero(~mask)
        before = [a.copy() for a in batch.state]
        bad = rng.choice(illegal)
        try:
            batch.step(np.array([bad]), game)
        except IllegalMoveError as error:
            assert str(error).startswith("cannot ") and "\n" not in str(error)
        else:
            raise AssertionError(f"{batch.layout.describe_action(bad)} was accepted")
        assert all((a == b).all() for a, b in zip(before, batch.state))
        batch.step(np.array([rng.choice(np.flatnonzero(mask))]), game)
