"""The evolutionary loops, one generation at a time, in the manner of DEAP's ``eaSimple``.

GA, one generation::

    play the population on this generation's dice       # fitness = mean score
    hall_of_fame.update(population); logbook.record(statistics)
    elite = copies of the best ``elite`` individuals
    offspring = varAnd(select(population, n - elite), toolbox, cxpb, mutpb)
    population = elite + offspring                      # every fitness invalid

CMA-ES, separable CMA-ES and the OpenAI ES, one generation (ask/tell)::

    population = toolbox.generate()                     # strategy.generate
    play the population; hall of fame; logbook
    toolbox.update(population)                          # strategy.update

The strategies: ``cma`` is DEAP's ``cma.Strategy`` (full covariance, at most
``CMA_MAX_WEIGHTS`` weights); ``sep-cma`` is separable CMA-ES
(``evolution.sep_cma``: a diagonal covariance) and ``es`` the OpenAI
evolution strategy (``evolution.openai_es``: mirrored noise, centered ranks,
Adam on the mean), both linear in the number of weights.

Every generation rolls new dice, so every individual, elite included, is
played again; all play the same dice (common random numbers), and so does
``expectimax``, the reference. Open cells are valued by the shipped
expected-score tables in generation 0 and by the averages of the previous
generation's games afterwards.

Fitness is the mean score on the generation's dice; the hall of fame, which
compares individuals of different generations (different dice), ranks them by
their advantage over expectimax on their own generation's dice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np
from deap import algorithms, base, tools

from evolution.evaluate import GENERATION, Task, dice_seed, play_task, reference_scores
from evolution.individual import Individual
from evolution.operators import cx_blend, cx_sbx, mut_gaussian
from evolution.state import RunState
from robo_players.neural.population import genome_size

Map = Callable[[Callable, Iterable], Iterable]


def make_toolbox(state: RunState, map_function: Map = map) -> base.Toolbox:
    """Operators of ``state``'s algorithm; ``map`` is where worker processes plug in."""
    c = state.config
    toolbox = base.Toolbox()
    toolbox.register("map", map_function)
    toolbox.register("play", play_task)
    if state.strategy is not None:
        toolbox.register("generate", state.strategy.generate, Individual)
        toolbox.register("update", state.strategy.update)
        return toolbox
    toolbox.register("select", tools.selTournament, tournsize=c.tournament)
    if c.crossover == "blend":
        toolbox.register("mate", cx_blend, alpha=c.blend_alpha, rng=state.rng)
    else:
        toolbox.register("mate", cx_sbx, eta=c.sbx_eta, rng=state.rng)
    toolbox.register("mutate", mut_gaussian, sigma=c.mutation_sigma, indpb=c.mutation_indpb, rng=state.rng)
    return toolbox


def statistics() -> tools.Statistics:
    stats = tools.Statistics(lambda ind: ind.fitness.values[0])
    for name, function in (("avg", np.mean), ("std", np.std), ("min", np.min), ("max", np.max)):
        stats.register(name, function)
    return stats


def play(
    toolbox: base.Toolbox, state: RunState, genomes: np.ndarray, cell_values: np.ndarray,
    games: int, seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores (P, games) of ``genomes`` with (P, CR) ``cell_values``, and the mean final score of each cell.

    The population is cut into one task per worker; each task is one batched pass.
    """
    chunks = [idx for idx in np.array_split(np.arange(len(genomes)), state.config.workers) if len(idx)]
    tasks = [Task(state.spec, genomes[idx].astype(np.float32), cell_values[idx].astype(np.float32),
                  games, seed, state.config.lookahead) for idx in chunks]
    outcomes = list(toolbox.map(toolbox.play, tasks))
    scores = np.concatenate([o.scores for o in outcomes])
    return scores, sum(o.cell_sums for o in outcomes) / scores.size


def warm_up(state: RunState, toolbox: base.Toolbox) -> float:
    """Seconds to compile (or load from numba's cache) what a generation runs: one game of one
    member in every worker and one of expectimax, so that generations' seconds leave it out.
    Nothing of the run changes (no random state is drawn)."""
    started = time.perf_counter()
    genome = np.zeros((1, genome_size(state.spec.build())), dtype=np.float32)
    cell_values = np.asarray(state.cell_values, dtype=np.float32)[None]
    tasks = [Task(state.spec, genome, cell_values, 1, 0, state.config.lookahead)] * state.config.workers
    list(toolbox.map(toolbox.play, tasks))
    reference_scores(state.spec, 1, 0)
    return time.perf_counter() - started


def evaluate(toolbox: base.Toolbox, state: RunState, population: list[Individual]) -> float:
    """Play ``population`` and expectimax on this generation's dice: set fitnesses, move
    ``state.cell_values`` on; returns expectimax's mean score."""
    c = state.config
    seed = dice_seed(c.seed, GENERATION, state.generation)
    cell_values = np.tile(state.cell_values, (len(population), 1))
    scores, cell_means = play(toolbox, state, np.asarray(population), cell_values, c.games, seed)
    for ind, row in zip(population, scores):
        ind.fitness.values = (float(row.mean()),)
        ind.cell_values = state.cell_values.copy()
    state.cell_values = cell_means
    return float(reference_scores(state.spec, c.games, seed).mean())


def record(toolbox: base.Toolbox, state: RunState, population: list[Individual], reference: float,
           started: float) -> dict:
    """Hall of fame (by advantage over ``reference``), statistics and logbook after a generation."""
    ranked = [toolbox.clone(ind) for ind in population]
    for ind in ranked:
        ind.fitness.values = (ind.fitness.values[0] - reference,)
    state.hall_of_fame.update(ranked)
    entry = statistics().compile(population)
    state.logbook.record(gen=state.generation + 1, individuals=len(population), games=state.config.games,
                         expectimax=reference, seconds=time.perf_counter() - started, compile_seconds=0.0,
                         **entry)
    state.generation += 1
    return state.logbook[-1]


def ga_generation(state: RunState, toolbox: base.Toolbox) -> dict:
    """One generation of the GA; ``state.population`` becomes the next generation."""
    c, started = state.config, time.perf_counter()
    population = state.population
    reference = evaluate(toolbox, state, population)
    entry = record(toolbox, state, population, reference, started)
    elite = [toolbox.clone(ind) for ind in tools.selBest(population, c.elite)]
    offspring = algorithms.varAnd(toolbox.select(population, len(population) - c.elite), toolbox,
                                  c.cxpb, c.mutpb)
    for ind in elite + offspring:
        del ind.fitness.values
    state.population = elite + offspring
    return entry


def strategy_generation(state: RunState, toolbox: base.Toolbox) -> dict:
    """One generation of an ask/tell strategy (CMA-ES, sep-CMA-ES, OpenAI ES): sample, play, update it."""
    started = time.perf_counter()
    population = toolbox.generate()
    reference = evaluate(toolbox, state, population)
    entry = record(toolbox, state, population, reference, started)
    toolbox.update(population)
    state.population = population
    return entry


GENERATIONS = {"ga": ga_generation, "cma": strategy_generation, "sep-cma": strategy_generation,
               "es": strategy_generation}
