"""Row expectations blended with play (``robo_players.search.row_means``), ``expectimax-played``,
and guided networks that search with them."""

from __future__ import annotations

import numpy as np
import pytest

from evolution.config import ConfigError, EvolveConfig
from robo_players.base import play
from robo_players.measure.compare import play_games
from robo_players.neural.build import load_player, population_player
from robo_players.neural.files import NeuralWeights, save_weights
from robo_players.neural.networks import NetSpec
from robo_players.registry import make_player
from robo_players.search.cell_values import cell_model
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.row_means import GAMES, SEED, any_order, blended_expectations, seen_means
from yamb.columns import COLUMN_KINDS
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules


def test_seen_means_are_the_row_means_of_expectimax_games() -> None:
    """One free column: the cell means are compare's per-row means of the same games."""
    lay = layout(rules("yatzy"))
    rows = play_games(lay, ExpectimaxPlayer(lay), GAMES, seed=SEED).rows.mean(axis=0)[: lay.n_rows]
    np.testing.assert_allclose(seen_means(lay.rules, lay.columns)[0], rows)


def test_only_columns_filled_in_any_order_are_blended_and_in_proportion() -> None:
    lay = layout(rules("yamb"))
    r, cols = lay.rules, lay.columns
    turn = cell_model(r, cols).expected
    seen = seen_means(r, cols)
    free = cols.index("free")
    assert np.array_equal(blended_expectations(r, cols, 0.0), turn)
    for played in (0.25, 1.0):
        blended = blended_expectations(r, cols, played)
        for c in range(len(cols)):
            want = (1 - played) * turn[c] + played * seen[c] if cols[c] in ("free", "announce") else turn[c]
            np.testing.assert_allclose(blended[c], want)
    # a free column is filled when the dice favour a row: its sixes average more than one turn's
    assert seen[free, 5] > turn[free, 5]
    with pytest.raises(ValueError, match="played must lie"):
        blended_expectations(r, cols, 1.5)


def test_columns_filled_in_any_order_are_the_unordered_kinds_of_the_rule_book() -> None:
    unordered = {"free", "announce", "hand", "late_announce", "counter_announce"}
    for preset in ("yamb", "jamb6"):
        assert {k for k in COLUMN_KINDS if any_order(rules(preset), k)} == unordered


def test_expectations_given_explicitly_are_used() -> None:
    lay = layout(rules("yatzy"))
    plain = play(GameBatch(lay, 64, seed=3), [ExpectimaxPlayer(lay)])
    same = play(GameBatch(lay, 64, seed=3), [ExpectimaxPlayer(lay, cell_model(lay.rules, lay.columns).expected)])
    assert np.array_equal(plain, same)
    played = play(GameBatch(lay, 64, seed=3), [make_player("expectimax-played", lay)])
    assert not np.array_equal(plain, played)
    with pytest.raises(ValueError, match="shape"):
        ExpectimaxPlayer(lay, np.zeros((2, lay.n_rows)))


@pytest.mark.parametrize("preset", ["yatzy", "jamb6"])
def test_a_guided_network_with_zero_correction_plays_as_expectimax_played(preset: str) -> None:
    lay = layout(rules(preset))
    spec = NetSpec.for_layout("guided", lay, (8,), played=0.6)
    genome = spec.build().initial_genome(np.random.default_rng(1))  # zero output layer
    player = population_player(spec, genome[None], np.full((1, lay.n_cells), 5.0))
    scores = play(GameBatch(lay, 24, seed=4), [player])
    assert np.array_equal(scores, play(GameBatch(lay, 24, seed=4), [make_player("expectimax-played", lay)]))


@pytest.mark.parametrize("fmt", ["pt", "safetensors", "npz"])
def test_played_is_kept_by_weight_files(tmp_path, fmt: str) -> None:
    lay = layout(rules("yatzy"))
    spec = NetSpec.for_layout("guided", lay, (4,), played=0.3)
    rng = np.random.default_rng(2)
    start = spec.build().initial_genome(rng)
    genome = (start + 0.2 * rng.standard_normal(len(start))).astype(np.float32)
    values = np.full(lay.n_cells, 5.0, dtype=np.float32)
    path = save_weights(NeuralWeights(spec, genome, values, {}), tmp_path / f"bot.{fmt}")
    direct = population_player(spec, genome[None], values[None])
    loaded = load_player(path, lay)
    assert np.array_equal(play(GameBatch(lay, 16, seed=6), [loaded]), play(GameBatch(lay, 16, seed=6), [direct]))
    assert NetSpec.from_dict({k: v for k, v in spec.to_dict().items() if k != "played"}).played == 0.0


def test_played_is_checked() -> None:
    with pytest.raises(YambError, match="played"):
        NetSpec.for_layout("guided", layout(rules("yatzy")), (4,), played=2.0)
    with pytest.raises(ConfigError, match="guided player only"):
        EvolveConfig(player="direct", played=0.5).validate()
