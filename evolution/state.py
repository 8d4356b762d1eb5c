"""Everything a run carries from one generation to the next, and generation 0 of a new run.

The checkpoint (``evolution.checkpoint``, written by ``evolution.run_dir``) is this state
pickled (``RunState``): the config, the number of generations done, the population, the
strategy (CMA-ES, separable CMA-ES or the OpenAI ES), the hall of fame, the logbook, the
cell values of the next generation, the player the run started from, the last generation's
field (objective win against the hall of fame), and every random
state (the run's numpy generator for variation, Python's ``random`` for DEAP's selection,
and the numpy generator that each strategy, ``cma``, ``sep-cma`` and ``es``, owns, pickled
inside it). It is written atomically after every generation, so ``--resume`` continues
exactly where a run stopped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from deap import tools

from evolution.config import EvolveConfig
from evolution.individual import Individual
from evolution.strategies import Strategy, new_strategy
from evolution.strategies.genes import gene_index
from evolution.win_objective import HallField
from robo_players.neural.networks import NetSpec
from robo_players.search.cell_values import cell_model
from yamb.layout import Layout, layout
from yamb.rules import rules

NOISE_COLUMNS = ["noise", "challenger", "challenger_sem", "confirmed", "accepted"]  # logbook columns of selection under noise


class Start(NamedTuple):
    """The player a run starts from: its genome, cell values and network (the ``init`` file's
    own, whose ``played``, ``bonus`` and ``exact`` may differ from the run's; else the run's)."""

    genome: np.ndarray
    cell_values: np.ndarray
    spec: NetSpec


class Plan(NamedTuple):
    """A run ready to start: its settings (checked, with what ``from_init`` takes from the init
    file), its network and the player it starts from."""

    config: EvolveConfig
    spec: NetSpec
    start: Start


@dataclass
class RunState:
    config: EvolveConfig
    spec: NetSpec
    generation: int  # generations done
    population: list[Individual]  # GA: the next generation to play
    strategy: Strategy | None  # cma, sep-cma and es: ask/tell over the mean
    hall_of_fame: tools.HallOfFame
    logbook: tools.Logbook
    cell_values: np.ndarray  # (CR,) the value of open cells in the next generation
    rng: np.random.Generator  # variation operators
    python_random: object = None  # random.getstate(), saved with the checkpoint
    games: int = 0  # games per member of the next generation, grown under noise (0: the config's games)
    noise: float = 0.0  # the running rank-change measure (evolution.noise), when reevaluate is on
    incumbent: Individual | None = None  # accept_games: the player the run would hand back so far
    start: Start | None = None  # the player the run started from (None in a checkpoint of version 3)
    field: HallField | None = None  # field hall-of-fame: the networks the generation (or the final check) plays

    def games_now(self) -> int:
        """Games per member of the next generation: the config's, or more while noise dominates."""
        c = self.config
        return min(max(c.games, self.games), max(c.games, c.games_max))


def table_layout(config: EvolveConfig) -> Layout:
    """The layout of a run's table."""
    return layout(rules(config.game, dice=config.dice or None, joker=config.joker or None), config.columns or None)


def net_spec(config: EvolveConfig) -> NetSpec:
    """The network spec of a run's table and player."""
    return NetSpec.for_layout(config.player, table_layout(config), tuple(config.hidden), config.played,
                              config.bonus, tuple(config.exact))


def expected_cell_values(spec: NetSpec) -> np.ndarray:
    """(CR,) each cell's expected score from the shipped tables (generation 0's cell values)."""
    lay = spec.layout()
    return cell_model(lay.rules, lay.columns).expected.ravel().astype(np.float64)


def new_state(plan: Plan) -> RunState:
    """Generation 0 of the run of ``plan``: initial genomes (or the strategy), empty logs, seeded
    random states.

    From an ``init`` file the run starts from that player: the strategy's mean is its
    genome, or the GA's population is it and mutants of it (``mutation_sigma``
    on every weight); the first generation plays with its cell values.
    """
    config, spec, start = plan
    net = spec.build()
    random.seed(config.seed)
    rng = np.random.default_rng(config.seed)
    fresh = not config.init
    cell_values = start.cell_values.copy()
    strategy, population = None, []
    if config.algorithm != "ga":
        centroid = net.initial_genome(rng).astype(np.float64) if fresh else start.genome.copy()
        strategy = new_strategy(config, centroid, gene_index(spec, config.genes))
    elif fresh:
        population = [Individual(net.initial_genome(rng)) for _ in range(config.population)]
    else:
        noise = rng.standard_normal((config.population - 1, start.genome.size)) * config.mutation_sigma
        population = [Individual(start.genome)] + [Individual(start.genome + n) for n in noise]
    incumbent = None
    if config.accept_games:
        incumbent = Individual(population[0] if strategy is None else strategy.centroid)
        incumbent.cell_values = cell_values.copy()
    logbook = tools.Logbook()
    logbook.header = ["gen", "individuals", "games", "avg", "std", "min", "max", "expectimax", "seconds",
                      "compile_seconds"] + NOISE_COLUMNS * bool(config.reevaluate or config.accept_games)
    return RunState(
        config=config, spec=spec, generation=0, population=population, strategy=strategy,
        hall_of_fame=tools.HallOfFame(config.hall_of_fame, similar=np.array_equal),
        logbook=logbook, cell_values=cell_values, rng=rng, incumbent=incumbent, start=start,
    )
