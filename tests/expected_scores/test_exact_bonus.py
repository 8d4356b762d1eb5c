"""The exact chance of the numbers bonus (``bonus = "exact"``): against enumeration, its level tables,
``expectimax-exact``, and guided networks that search with it."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from evolution.config import ConfigError, EvolveConfig
from robo_players.base import play
from robo_players.neural.build import load_player, population_player
from robo_players.neural.files import NeuralWeights, save_weights
from robo_players.neural.networks import NetSpec
from robo_players.registry import make_player
from robo_players.search.cell_values import LEVELS, cell_model, column_values, exact_reach
from robo_players.search.row_means import blended_bonus_levels, seen_play
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import N_NUMBER_ROWS, rules


def enumerated(prob: np.ndarray, level_score: np.ndarray, open_rows: list[int], need: int) -> tuple:
    """P(open rows add up to ``need`` or more), and the same with row r fixed at level k: by listing
    every combination of levels."""
    before, after = 0.0, np.zeros((N_NUMBER_ROWS, LEVELS))
    for combo in product(range(LEVELS), repeat=len(open_rows)):
        p = np.prod([prob[r, k] for r, k in zip(open_rows, combo)])
        total = sum(level_score[r, k] for r, k in zip(open_rows, combo))
        before += p * (total >= need)
        for i, r in enumerate(open_rows):
            rest = total - level_score[r, combo[i]]
            p_rest = p / prob[r, combo[i]] if prob[r, combo[i]] else 0.0
            if p_rest:
                for k in range(LEVELS):  # each combination of the others is counted once per level of r
                    after[r, k] += p_rest * (rest + level_score[r, k] >= need) / LEVELS
    return before, after


@pytest.mark.parametrize("preset", ["yatzy", "jamb6"])
def test_exact_reach_equals_enumeration(preset: str) -> None:
    r = rules(preset)
    level_score = cell_model(r, ("free",)).level_score
    rng = np.random.default_rng(5)
    for _ in range(12):
        own = int(rng.integers(0, 2**N_NUMBER_ROWS))
        open_rows = [row for row in range(N_NUMBER_ROWS) if not own >> row & 1]
        prob = rng.dirichlet(np.ones(LEVELS), size=N_NUMBER_ROWS)
        need = int(rng.integers(1, 64))
        after = np.zeros((N_NUMBER_ROWS, LEVELS))
        before = exact_reach(prob, level_score, np.uint32(own), need, after)
        want_before, want_after = enumerated(prob, level_score, open_rows, need)
        assert before == pytest.approx(want_before, abs=1e-12)
        np.testing.assert_allclose(after[open_rows], want_after[open_rows], atol=1e-12)


def test_exact_values_of_the_last_open_number_row() -> None:
    """Sixes the only open number row, 45 scored in the others (threshold 63, bonus 50): a sixes score
    of 18 or more makes the bonus for sure, less loses it for sure."""
    r = rules("yatzy")
    lay = layout(r, ("free",))
    model = cell_model(r, lay.columns)
    batch = GameBatch(lay, 1)
    batch.filled[0, 0, 0] = np.uint32(0b11111)  # ones to fives filled
    batch.cells[0, 0, 0, :5] = [3, 6, 9, 12, 15]
    lin, num = np.zeros((1, r.n_rows, 2)), np.zeros((1, N_NUMBER_ROWS, LEVELS))
    column_values(batch.filled, batch.cells, 0, 0, 0, model.expected, model.variance, model.level_prob,
                  model.level_score, model.params, lin, num)
    chance = model.level_prob[0, 5, 3:].sum()  # three sixes or more
    for k in range(LEVELS):
        made = 6 * k >= 18
        assert num[0, 5, k] == pytest.approx(6 * k - model.expected[0, 5] + 50 * (made - chance))


@pytest.mark.parametrize("preset", ["yatzy", "yamb", pytest.param("jamb6", marks=pytest.mark.slow)])
def test_level_tables_are_distributions_with_the_rows_means(preset: str) -> None:
    r = rules(preset)
    lay = layout(r)
    model = cell_model(r, lay.columns)
    np.testing.assert_allclose(model.level_prob.sum(axis=2), 1.0)
    means = (model.level_prob * model.level_score[:N_NUMBER_ROWS]).sum(axis=2)
    np.testing.assert_allclose(means, model.expected[:, :N_NUMBER_ROWS], rtol=1e-9)  # the CSV tables' means
    seen_means, seen_levels = seen_play(r, lay.columns)
    np.testing.assert_allclose((seen_levels * model.level_score[:N_NUMBER_ROWS]).sum(axis=2),
                               seen_means[:, :N_NUMBER_ROWS], rtol=1e-9)
    blended = blended_bonus_levels(r, lay.columns, 0.6)
    for c, kind in enumerate(lay.columns):
        want = 0.4 * model.level_prob[c] + 0.6 * seen_levels[c] if kind in ("free", "announce") else model.level_prob[c]
        np.testing.assert_allclose(blended[c], want)


def test_expectimax_exact_differs_from_expectimax_played_and_plays_legally() -> None:
    lay = layout(rules("yamb"))
    exact = play(GameBatch(lay, 48, seed=3), [make_player("expectimax-exact", lay)], check=True)
    played = play(GameBatch(lay, 48, seed=3), [make_player("expectimax-played", lay)], check=True)
    assert not np.array_equal(exact, played)


@pytest.mark.parametrize("preset", ["yatzy", "jamb6"])
def test_a_guided_network_with_zero_correction_plays_as_expectimax_exact(preset: str) -> None:
    lay = layout(rules(preset))
    spec = NetSpec.for_layout("guided", lay, (8,), played=0.6, bonus="exact")
    genome = spec.build().initial_genome(np.random.default_rng(1))  # zero output layer
    player = population_player(spec, genome[None], np.full((1, lay.n_cells), 5.0))
    scores = play(GameBatch(lay, 24, seed=4), [player])
    assert np.array_equal(scores, play(GameBatch(lay, 24, seed=4), [make_player("expectimax-exact", lay)]))


def test_bonus_is_kept_by_weight_files_and_checked(tmp_path) -> None:
    lay = layout(rules("yatzy"))
    spec = NetSpec.for_layout("guided", lay, (4,), played=0.6, bonus="exact")
    rng = np.random.default_rng(2)
    genome = (0.2 * rng.standard_normal(len(spec.build().initial_genome(rng)))).astype(np.float32)
    values = np.full(lay.n_cells, 5.0, dtype=np.float32)
    path = save_weights(NeuralWeights(spec, genome, values, {}), tmp_path / "bot.safetensors")
    direct = population_player(spec, genome[None], values[None])
    assert np.array_equal(play(GameBatch(lay, 16, seed=6), [load_player(path, lay)]),
                          play(GameBatch(lay, 16, seed=6), [direct]))
    assert NetSpec.from_dict({k: v for k, v in spec.to_dict().items() if k != "bonus"}).bonus == "normal"
    with pytest.raises(YambError, match="bonus must be one of normal, exact"):
        NetSpec.for_layout("guided", lay, (4,), bonus="poisson")
    with pytest.raises(ConfigError, match="bonus applies to the guided player only"):
        EvolveConfig(player="direct", bonus="exact").validate()
