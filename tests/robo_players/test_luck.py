"""The luck of the dice (robo_players/measure/luck.py): zero mean over every roll, checked by brute force."""

from __future__ import annotations

from collections import Counter
from itertools import product

import numpy as np
import pytest

from robo_players.base import play
from robo_players.measure.luck import FRESH, LuckCounter, luck_of
from robo_players.registry import make_player
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules


def outcome_chances(n_dice: int, kept: tuple[int, ...]) -> dict[tuple[int, ...], float]:
    """Every hand a roll of the dice not in ``kept`` (counts of each face) can give, with its chance,
    by enumerating the faces of each die thrown."""
    thrown = n_dice - sum(kept)
    hands: Counter[tuple[int, ...]] = Counter()
    for faces in product(range(6), repeat=thrown):
        counts = list(kept)
        for f in faces:
            counts[f] += 1
        hands[tuple(counts)] += 1
    return {hand: ways / 6**thrown for hand, ways in hands.items()}


def positions(preset: str, games: int, seed: int) -> tuple[GameBatch, list[tuple[int, int]]]:
    """A batch of ``best``'s games stopped part-way, and (game, keep) rolls to try at its decisions
    where a roll is allowed: every die thrown again (even games), the keep ``best`` chooses (odd; the
    largest legal keep where it would fill now)."""
    lay = layout(rules(preset))
    batch = GameBatch(lay, games, seed=seed)
    player = make_player("best", lay)
    rng = np.random.default_rng(seed)
    stop_at = rng.integers(1, lay.n_cells * 3, size=games)
    for step in range(int(stop_at.max())):
        active = np.flatnonzero(~batch.done & (stop_at > step))
        if len(active):
            batch.step(player.act(batch, active), active)
    actions = player.act(batch, np.arange(games))
    legal = batch.legal_actions(np.arange(games))
    tries = []
    for g, action in enumerate(actions):
        keeps = np.flatnonzero(legal[g, lay.n_cells : lay.n_cells + lay.n_keeps])
        if not len(keeps):
            continue
        keep = int(action) - lay.n_cells
        if g % 2 == 0:
            tries.append((g, FRESH))
        else:  # best's keep, or where it fills now the largest keep it may roll from
            tries.append((g, keep if keep in keeps else int(keeps[-1])))
    return batch, tries


@pytest.mark.parametrize("preset", ["yamb", "jamb6", "yahtzee", "yatzy"])
def test_a_rolls_luck_has_mean_zero_over_every_hand_it_can_give(preset):
    """For a roll from each keep tried, the luck of every hand weighted by its chance (counted
    face by face, not from the dice tables) adds up to zero: the luck-adjusted score is unbiased.
    Rolling every die again covers the first roll of a turn and jamb6's pure hands."""
    batch, tries = positions(preset, 8, seed=3)
    assert {keep == FRESH for _, keep in tries} == {True, False}
    assert tries
    dice = batch.rules.dice
    reference = make_player("best", batch.layout)
    for g, keep in tries:
        kept = tuple(int(x) for x in dice.keeps[keep])
        # the state after the roll: the keep rolled once by the engine, then each hand in turn
        batch.step(np.array([batch.layout.n_cells + keep]), np.array([g]))
        held = int(batch.dice[g])
        chances = outcome_chances(batch.rules.n_dice, kept)
        total, spread = 0.0, 0.0
        for hand, chance in chances.items():
            batch.dice[g] = int(dice.multiset_index(np.array(hand)))
            luck = float(luck_of(reference, batch, np.array([g]), np.array([keep]))[0])
            total += chance * luck
            spread = max(spread, abs(luck))
        batch.dice[g] = held
        assert spread > 1.0  # the hands are worth different amounts
        assert abs(total) < 1e-9 * max(1.0, spread)


def test_the_luck_adjusted_score_spreads_far_less_than_the_score():
    """Over whole games the counter's luck takes most of the scores' spread away (yamb: a game's
    standard deviation of about 100 points falls to under 20), and the mean stays within the
    raw mean's noise."""
    lay = layout(rules("yamb"))
    batch = GameBatch(lay, 80, seed=11)
    counter = LuckCounter(make_player("best", lay), make_player("best", lay), batch)
    scores = play(batch, [counter])[:, 0].astype(float)
    adjusted = scores - counter.luck[:, 0]
    assert scores.std() > 70
    assert adjusted.std() < scores.std() / 3
    assert abs(adjusted.mean() - scores.mean()) < 4 * scores.std() / np.sqrt(len(scores))


def test_the_reference_must_be_a_search_player():
    lay = layout(rules("yamb"))
    batch = GameBatch(lay, 2, seed=1)
    with pytest.raises(YambError, match="valued by a search player"):
        LuckCounter(make_player("greedy", lay), make_player("greedy", lay), batch)
