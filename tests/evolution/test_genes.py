"""Evolving part of a network (``genes``): the output layer's biases alone, everything else as it was."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from deap import cma

from evolution.config import INIT_SETTINGS, ConfigError
from evolution.individual import Individual
from evolution.planning import check_size
from evolution.state import net_spec
from evolution.strategies.genes import SubspaceStrategy, gene_index
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.files import load_weights
from robo_players.neural.kinds import KINDS
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import genome_size, load_genome
from tests.evolution.test_evolution import resumes_exactly, tiny
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main


@pytest.mark.parametrize("kind", KINDS)
def test_the_output_bias_genes_are_the_output_layers_bias(kind: str) -> None:
    spec = NetSpec.for_layout(kind, layout(rules("yatzy")), (5, 3))
    net = spec.build()
    index = gene_index(spec, "output-bias")
    genome = np.zeros(genome_size(net), dtype=np.float32)
    genome[index] = np.arange(1, len(index) + 1)
    load_genome(net, genome)
    output = [m for m in net.modules() if isinstance(m, torch.nn.Linear)][-1]
    assert output.out_features == len(index)
    assert np.array_equal(output.bias.detach().numpy(), np.arange(1, len(index) + 1))
    assert sum(float(p.detach().abs().sum()) for p in net.parameters()) == float(np.arange(1, len(index) + 1).sum())
    assert np.array_equal(gene_index(spec, "all"), np.arange(genome.size))


def test_a_subspace_strategy_moves_only_its_genes_and_finds_their_optimum() -> None:
    """CMA-ES over 3 of 12 variables of a sphere: every sample keeps the other 9 at the base's
    values bit for bit, and the mean reaches the optimum of the 3 (the base's 9 fixed)."""
    rng = np.random.default_rng(0)
    base, optimum, index = rng.standard_normal(12), rng.standard_normal(12), np.array([2, 5, 7])
    np.random.seed(1)
    strategy = SubspaceStrategy(cma.Strategy(centroid=base[index], sigma=0.5, lambda_=8), base, index)
    others = np.setdiff1d(np.arange(12), index)
    for _ in range(80):
        population = strategy.generate(Individual)
        for ind in population:
            assert isinstance(ind, Individual) and ind.shape == (12,)
            assert np.array_equal(np.asarray(ind)[others], base[others])
            ind.fitness.values = (-float(((np.asarray(ind) - optimum) ** 2).sum()),)
        strategy.update(population)
    assert np.abs(strategy.centroid[index] - optimum[index]).max() < 1e-3
    assert np.array_equal(strategy.centroid[others], base[others])
    strategy.centroid = optimum  # put back on a whole genome: its genes taken, the base kept
    assert np.array_equal(strategy.centroid, np.where(np.isin(np.arange(12), index), optimum, base))


def test_a_run_of_output_biases_changes_only_them_reproducibly_and_resumes_exactly(tmp_path: Path) -> None:
    resumes_exactly(tiny(game="yatzy", init="best", from_init=",".join(INIT_SETTINGS), algorithm="cma",
                         genes="output-bias", population=4, hall_of_fame=1, cma_sigma=0.05), tmp_path)
    shipped = load_weights(BOTS_DIR / "yatzy-5d-free.safetensors")
    best = load_weights(tmp_path / "whole" / "best.pt")
    assert best.spec == shipped.spec
    index = gene_index(best.spec, "output-bias")
    moved = np.flatnonzero(best.genome != shipped.genome)
    assert len(moved) and np.isin(moved, index).all()  # the biases moved, and nothing else


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"genes": "output-bias", "algorithm": "cma", "game": "yatzy"}, "genes = 'output-bias' .* needs init"),
        ({"genes": "output-bias", "init": "best", "game": "yatzy"}, "algorithm cma, sep-cma or es, not ga"),
        ({"genes": "hidden"}, "genes must be one of all, output-bias, not 'hidden'"),
    ],
)
def test_part_of_a_network_is_evolved_from_a_start_by_a_strategy_only(settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        tiny(**settings).validate()


def test_cma_takes_the_output_biases_of_a_network_too_large_for_it() -> None:
    config = tiny(game="jamb6", player="guided", hidden="64", algorithm="cma", init="best")
    spec = net_spec(config)
    assert bot_name(spec.layout()) == "jamb6-6d-down-free-up-announce.safetensors"
    with pytest.raises(ConfigError, match="14,312 weights is too many"):
        check_size(config, spec)
    check_size(tiny(**{**config.__dict__, "genes": "output-bias"}), spec)  # 104 of them: taken


def test_the_command_line_says_what_is_evolved_and_refuses_a_bad_choice(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    settings = ["--set", "genes=output-bias", "--set", "algorithm=cma", "--set", "hall_of_fame=1"]
    assert main(["evolve", "--recipe", "polish", "--preset", "yatzy", "--init", "best", *settings,
                 "--population", "4", "--games", "3", "--generations", "1", "--set", "final_games=8",
                 "--set", "accept_games=0", "--set", "reevaluate=0", "--set", "games_max=0", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "guided player for yatzy (hidden [8]), its output layer's biases (30 of its weights)" in printed
    assert main(["evolve", "--set", "genes=output-bias", "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs init" in err[0]
    assert not (tmp_path / "bad").exists()
