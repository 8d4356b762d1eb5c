"""Neural players: genomes, features, legal play, and a population evaluated in one pass."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.func import stack_module_state

from robo_players.base import play, play_by_turns
from robo_players.neural.build import population_player
from robo_players.neural.features import encode, score_scale, table_size
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import Population, genome_of, genome_size, load_genome, stacked_parameters
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules

TABLES = [("yamb", None), ("yatzy", None), ("jamb6", None), ("yamb", ("hand", "middle", "late_announce"))]


def spec_of(kind: str, preset: str = "yamb", columns: tuple[str, ...] | None = None, hidden=(8,)) -> NetSpec:
    return NetSpec.for_layout(kind, layout(rules(preset), columns), hidden)


def genomes_of(spec: NetSpec, n: int, seed: int = 0, noise: float = 0.3) -> np.ndarray:
    """``n`` initial genomes with noise everywhere, so every weight matters."""
    rng = np.random.default_rng(seed)
    net = spec.build()
    base = np.stack([net.initial_genome(rng) for _ in range(n)])
    return (base + noise * rng.standard_normal(base.shape)).astype(np.float32)


def test_genome_round_trip_and_stacked_parameters_match_torch() -> None:
    spec = spec_of("direct")
    genomes = genomes_of(spec, 3)
    nets = [load_genome(spec.build(), g) for g in genomes]
    assert np.array_equal(genome_of(nets[1]), genomes[1])
    stacked, _ = stack_module_state(nets)
    ours = stacked_parameters(spec.build(), genomes)
    assert ours.keys() == stacked.keys()
    for name in ours:
        assert np.array_equal(ours[name], stacked[name].detach().numpy())


def test_a_genome_of_the_wrong_size_is_refused() -> None:
    net = spec_of("direct").build()
    with pytest.raises(ValueError, match="weights"):
        load_genome(net, np.zeros(genome_size(net) + 1))


def test_features_of_a_new_game_read_the_cell_values() -> None:
    lay = layout(rules("yamb"))
    batch = GameBatch(lay, 3, seed=1)
    values = np.arange(lay.n_cells, dtype=np.float32)
    x = encode(batch, None, values[None], with_dice=True)
    cr = lay.n_cells
    assert x.shape == (3, table_size(lay) + cr + 6 + lay.n_rows + 3)
    assert (x[:, :cr] == 0).all()
    np.testing.assert_allclose(x[:, cr : 2 * cr], np.tile(values / score_scale(lay), (3, 1)), rtol=1e-6)
    scores = lay.rules.scores[batch.dice]  # the gain of cell (c, r): score in row r minus its value
    gain = x[:, table_size(lay) : table_size(lay) + cr].reshape(3, lay.n_columns, lay.n_rows)
    expected = (scores[:, None, :] - values.reshape(lay.n_columns, lay.n_rows)) / score_scale(lay)
    np.testing.assert_allclose(gain, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("preset", "columns"), TABLES)
def test_direct_players_make_only_legal_moves(preset: str, columns) -> None:
    spec = spec_of("direct", preset, columns)
    lay = spec.layout()
    player = population_player(spec, genomes_of(spec, 2), np.full((2, lay.n_cells), 10.0))
    batch = GameBatch(lay, 2 * 5, seed=3)
    scores = play(batch, [player], check=True)  # an illegal action raises
    assert batch.done.all() and scores.shape == (10, 1)


@pytest.mark.parametrize("kind", ["direct", "guided"])
def test_a_population_plays_exactly_as_each_network_alone(kind: str) -> None:
    spec = spec_of(kind)
    lay = spec.layout()
    members, games = 4, 6
    genomes = genomes_of(spec, members, seed=2)
    cell_values = np.random.default_rng(5).uniform(0, 40, (members, lay.n_cells)).astype(np.float32)
    streams = np.tile(np.arange(games), members)
    together = GameBatch(lay, members * games, seed=9, streams=streams)
    scores = play(together, [population_player(spec, genomes, cell_values)])[:, 0].reshape(members, games)
    x = np.random.default_rng(0).standard_normal((members, 7, spec.build().n_inputs)).astype(np.float32)
    outputs = Population(spec.build(), genomes)(x)
    for i in range(members):
        alone = GameBatch(lay, games, seed=9)
        player = population_player(spec, genomes[i : i + 1], cell_values[i : i + 1])
        assert np.array_equal(play(alone, [player])[:, 0], scores[i])
        net = load_genome(spec.build(), genomes[i])
        with torch.no_grad():
            np.testing.assert_allclose(net(torch.from_numpy(x[i])).numpy(), outputs[i], rtol=1e-5, atol=1e-5)
    assert len({tuple(s) for s in scores}) > 1  # the members really play differently


@pytest.mark.parametrize("kind", ["direct", "guided"])
def test_a_population_played_turn_by_turn_plays_the_same_games(kind: str) -> None:
    spec = spec_of(kind)
    lay = spec.layout()
    members, games = 3, 5
    genomes = genomes_of(spec, members, seed=4)
    cell_values = np.random.default_rng(6).uniform(0, 40, (members, lay.n_cells)).astype(np.float32)
    batches = [GameBatch(lay, members * games, seed=3, streams=np.tile(np.arange(games), members)) for _ in range(2)]
    step_by_step = play(batches[0], [population_player(spec, genomes, cell_values)])
    by_turns = play_by_turns(batches[1], population_player(spec, genomes, cell_values))
    assert np.array_equal(step_by_step, by_turns)
    assert np.array_equal(batches[0].cells, batches[1].cells)
    assert len(np.unique(by_turns)) > 1


def test_play_by_turns_refuses_a_table_of_two_players() -> None:
    lay = layout(rules("yamb"), ("down", "free"), players=2)
    with pytest.raises(ValueError, match="solitaire"):
        play_by_turns(GameBatch(lay, 2), ExpectimaxPlayer(lay))


@pytest.mark.parametrize(("preset", "columns", "games"), [(p, c, 8) for p, c in TABLES] + [("yahtzee", None, 8),
                                                                                      ("yamb", None, 70)])
def test_guided_players_start_as_expectimax_exactly(preset: str, columns, games: int) -> None:
    """Also with several parallel chunks (140 games), whose plans are made up to 64 at once."""
    spec = spec_of("guided", preset, columns)
    lay = spec.layout()
    rng = np.random.default_rng(1)
    members = 2
    genomes = np.stack([spec.build().initial_genome(rng) for _ in range(members)])  # random hidden, zero output
    batch = GameBatch(lay, members * games, seed=4, streams=np.tile(np.arange(games), members))
    scores = play(batch, [population_player(spec, genomes, np.full((members, lay.n_cells), 5.0))])[:, 0]
    reference = play(GameBatch(lay, games, seed=4), [ExpectimaxPlayer(lay)])[:, 0]
    assert np.array_equal(scores, np.tile(reference, members))


def test_guided_corrections_change_play_and_stay_legal() -> None:
    spec = spec_of("guided")
    lay = spec.layout()
    genomes = genomes_of(spec, 1, noise=0.5)
    batch = GameBatch(lay, 8, seed=4)
    scores = play(batch, [population_player(spec, genomes, np.full((1, lay.n_cells), 5.0))], check=True)
    reference = play(GameBatch(lay, 8, seed=4), [ExpectimaxPlayer(lay)])
    assert not np.array_equal(scores, reference)


def test_kept_features_are_the_features_computed_afresh() -> None:
    """A population's features kept from step to step (rewritten only for the games to move, their
    table features once a turn) equal, bit for bit, those of every game encoded anew."""
    spec = spec_of("direct", "yamb", ("down", "free", "announce", "hand"))
    lay = spec.layout()
    members, games = 3, 8
    values = np.random.default_rng(2).uniform(0, 40, (members, lay.n_cells)).astype(np.float32)
    player = population_player(spec, genomes_of(spec, members, seed=3), values)
    batch = GameBatch(lay, members * games, seed=5)
    kept = (np.full((batch.n_games, spec.build().n_inputs), np.nan, dtype=np.float32),
            np.full(batch.n_games, -1, dtype=np.int32))
    steps = 0
    while not batch.done.all():
        live = np.flatnonzero(~batch.done)
        encode(batch, live, values, True, kept=kept)
        fresh = encode(batch, live, values, True)
        assert np.array_equal(kept[0][live].view(np.int32), fresh.view(np.int32))
        batch.step(player.act(batch, live), live)
        steps += 1
    assert steps > lay.n_cells  # games rolled again: the dice features changed within turns


def test_the_direct_players_scores_are_the_networks_outputs() -> None:
    """A population player (its features kept from step to step, its scores written into its own
    buffer) chooses the actions of the networks' outputs computed afresh."""
    from robo_players.neural.direct import choose

    spec = spec_of("direct", hidden=(8, 8))
    lay = spec.layout()
    members, games = 4, 25
    values = np.random.default_rng(4).uniform(0, 40, (members, lay.n_cells)).astype(np.float32)
    player = population_player(spec, genomes_of(spec, members, seed=5), values)
    batch = GameBatch(lay, members * games, seed=6)
    while not batch.done.all():
        live = np.flatnonzero(~batch.done)
        outputs = player.forward(encode(batch, None, values, True).reshape(members, games, -1))
        actions = player.act(batch, live)
        assert np.array_equal(actions, choose(batch, live, outputs.reshape(batch.n_games, -1), live))
        batch.step(actions, live)
