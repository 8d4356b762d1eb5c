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

The strategies: ``cma`` is CMA-ES with a full covariance (``evolution.strategies.cma_es``,
DEAP's ``cma.Strategy`` with sums the same on every machine; at most
``CMA_MAX_WEIGHTS`` weights); ``sep-cma`` is separable CMA-ES
(``evolution.strategies.sep_cma``: a diagonal covariance) and ``es`` the OpenAI
evolution strategy (``evolution.strategies.openai_es``: mirrored noise, centered ranks,
Adam on the mean), both linear in the number of weights.

Every generation rolls new dice, so every individual, elite included, is
played again; all play the same dice (common random numbers), and so does
``expectimax``, the reference. Open cells are valued by the shipped
expected-score tables (or the ``init`` file's values) in generation 0 and by
the averages of the previous generation's games afterwards; with
``open_cells`` fixed, by generation 0's throughout.

Fitness is the mean score on the generation's dice (with ``luck``, the mean
of the scores less their luck: ``robo_players.measure.luck``); the hall of fame, which
compares individuals of different generations (different dice), ranks them by
their advantage over expectimax on their own generation's dice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np
from deap import algorithms, base, tools

from evolution import noise
from evolution.config import HALL_OF_FAME_FIELD
from evolution.evaluate import (
    CHALLENGE,
    CONFIRM,
    GENERATION,
    REEVALUATE,
    Task,
    dice_seed,
    play_task,
    reference_scores,
)
from evolution.individual import Individual
from evolution.state import RunState
from evolution.strategies.operators import cx_blend, cx_sbx, mut_gaussian
from evolution.win_objective import HallField, WinMatch, hall_field, match_of
from robo_players.measure.compare import paired_difference
from robo_players.neural.population import genome_size

Map = Callable[[Callable, Iterable], Iterable]
CONFIRM_P = 0.1  # p below which a challenger better on the challenge's dice must be better on fresh dice too


def make_toolbox(state: RunState, map_function: Map = map) -> base.Toolbox:
    """Operators of ``state``'s algorithm; ``map`` is where worker processes plug in."""
    c = state.config
    toolbox = base.Toolbox()
    toolbox.register("map", map_function)
    toolbox.register("play", play_task)
    toolbox.register("reference", reference_scores)
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


def field_of(state: RunState) -> HallField | None:
    """With objective win against field hall-of-fame, the networks in the field's seats now: the
    hall of fame's best ``opponents`` members, or while it has none the player the run started
    from; else None."""
    c = state.config
    if c.objective != "win" or c.field != HALL_OF_FAME_FIELD:
        return None
    champions = [(m, m.cell_values) for m in state.hall_of_fame] or [(state.start.genome, state.start.cell_values)]
    return hall_field(state.spec, champions, c.opponents)


def match_for(state: RunState) -> WinMatch | None:
    """The ``WinMatch`` the run plays now: the generation's field (``state.field``, taken by
    ``evaluate``), or before the first generation ``field_of``'s."""
    return match_of(state.config, state.field if state.field is not None else field_of(state))


def play_counted(
    toolbox: base.Toolbox, state: RunState, genomes: np.ndarray, cell_values: np.ndarray,
    games: int, seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores (P, games) of ``genomes`` with (P, CR) ``cell_values``, each game's luck (P, games;
    zeros unless the run counts it, ``luck``) and the mean final score of each cell.

    The population is cut into one task per worker; each task is one batched pass.
    """
    chunks = [idx for idx in np.array_split(np.arange(len(genomes)), state.config.workers) if len(idx)]
    tasks = [Task(state.spec, genomes[idx].astype(np.float32), cell_values[idx].astype(np.float32),
                  games, seed, state.config.lookahead, state.config.luck, match_for(state)) for idx in chunks]
    outcomes = list(toolbox.map(toolbox.play, tasks))
    scores = np.concatenate([o.scores for o in outcomes])
    luck = np.concatenate([o.luck for o in outcomes])
    return scores, luck, sum(o.cell_sums for o in outcomes) / scores.size


def play(
    toolbox: base.Toolbox, state: RunState, genomes: np.ndarray, cell_values: np.ndarray,
    games: int, seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The scores selection reads (P, games), the scores less their luck when the run counts it,
    and the mean final score of each cell (``play_counted``)."""
    scores, luck, cell_means = play_counted(toolbox, state, genomes, cell_values, games, seed)
    return scores - luck, cell_means


def warm_up(state: RunState, toolbox: base.Toolbox) -> float:
    """Seconds to compile (or load from numba's cache) what a generation runs: one game of one
    member and one of expectimax in this process first (the compile happens here, where its
    progress is seen, and on two cores without the workers competing for them), then one in every
    worker (which loads the kernels from the cache), so that generations' seconds leave it out.
    Nothing of the run changes (no random state is drawn)."""
    started = time.perf_counter()
    genome = np.zeros((1, genome_size(state.spec.build())), dtype=np.float32)
    cell_values = np.asarray(state.cell_values, dtype=np.float32)[None]
    c = state.config
    tasks = [Task(state.spec, genome, cell_values, 1, 0, c.lookahead, c.luck, match_for(state))] * c.workers
    toolbox.play(tasks[0])
    reference_scores(state.spec, 1, 0, c.luck, match_for(state))
    if c.workers > 1 or c.backend == "ray":
        list(toolbox.map(toolbox.play, tasks))
    return time.perf_counter() - started


def evaluate(toolbox: base.Toolbox, state: RunState, population: list[Individual]) -> float:
    """Play ``population`` and expectimax on this generation's dice: set fitnesses, move
    ``state.cell_values`` on (``open_cells`` played); returns expectimax's mean score. With field
    hall-of-fame the generation's field is taken first (``state.field``): the hall as it is now."""
    state.field = field_of(state)
    seed, games = dice_seed(state.config.seed, GENERATION, state.generation), state.games_now()
    cell_values = np.tile(state.cell_values, (len(population), 1))
    scores, cell_means = play(toolbox, state, np.asarray(population), cell_values, games, seed)
    for ind, row in zip(population, scores):
        ind.fitness.values = (float(row.mean()),)
        ind.cell_values = state.cell_values.copy()
    if state.config.open_cells == "played":
        state.cell_values = cell_means
    return float(toolbox.reference(state.spec, games, seed, state.config.luck, match_for(state)).mean())


def measure_noise(toolbox: base.Toolbox, state: RunState, population: list[Individual], index: int) -> float:
    """Play the first ``reevaluate`` members again on fresh dice (with the cell values they played),
    update the running rank-change measure and the next generation's games; returns the measure."""
    c, games = state.config, state.games_now()
    again = population[:c.reevaluate]
    cell_values = np.stack([ind.cell_values for ind in again])
    scores, _ = play(toolbox, state, np.asarray(again), cell_values, games, dice_seed(c.seed, REEVALUATE, index))
    fitness = np.array([ind.fitness.values[0] for ind in population])
    state.noise = noise.smoothed(state.noise, noise.rank_change_measure(fitness, scores.mean(axis=1)))
    state.games = noise.next_games(games, state.noise, c.games, max(c.games, c.games_max))
    return state.noise


def challenge(toolbox: base.Toolbox, state: RunState, challenger: Individual, index: int) -> dict:
    """``challenger`` and the incumbent on ``accept_games`` fresh games (the same dice). When the
    challenger is better with ``p < accept_p`` it plays the incumbent again on another
    ``accept_games`` fresh games, and replaces it only if better there too (``p < CONFIRM_P``):
    a lucky first test among a run's many is not enough. A strategy whose mean is the challenger
    and is worse with ``p < accept_p`` is put back on the incumbent. Returns the first paired
    difference, the confirmation's mean (``confirmed``, NaN when none) and ``accepted``: 1
    replaced, -1 put back, 0 neither."""
    c, incumbent = state.config, state.incumbent
    difference = _against_incumbent(toolbox, state, challenger, dice_seed(c.seed, CHALLENGE, index))
    significant, outcome, confirmed = difference["p"] < c.accept_p, 0, float("nan")
    if significant and difference["mean"] > 0:
        again = _against_incumbent(toolbox, state, challenger, dice_seed(c.seed, CONFIRM, index))
        confirmed = again["mean"]
        if again["p"] < CONFIRM_P and again["mean"] > 0:
            state.incumbent = Individual(challenger)
            state.incumbent.cell_values = challenger.cell_values.copy()
            outcome = 1
    elif significant and state.strategy is not None:
        state.strategy.centroid = np.array(incumbent, dtype=np.float64)
        outcome = -1
    return {**difference, "confirmed": confirmed, "accepted": outcome}


def _against_incumbent(toolbox: base.Toolbox, state: RunState, challenger: Individual, seed: int) -> dict:
    """The paired difference of ``challenger`` to the incumbent on ``accept_games`` games of dice ``seed``."""
    incumbent = state.incumbent
    genomes = np.stack([np.asarray(challenger), np.asarray(incumbent)])
    cell_values = np.stack([challenger.cell_values, incumbent.cell_values])
    scores, _ = play(toolbox, state, genomes, cell_values, state.config.accept_games, seed)
    return paired_difference(scores[0], scores[1])


def handle_noise(toolbox: base.Toolbox, state: RunState, population: list[Individual], index: int,
                 challenger: Callable[[], Individual]) -> None:
    """The noise measure before a strategy's update (``reevaluate``), then the challenge of the
    incumbent by ``challenger()`` (``accept_games``), both written into the generation's logbook row
    (``accepted``: 1 the challenger replaced the incumbent, -1 the strategy was put back on it, else 0)."""
    c, entry = state.config, state.logbook[-1]
    if not (c.reevaluate or c.accept_games):
        return
    entry["noise"] = measure_noise(toolbox, state, population, index) if c.reevaluate else float("nan")
    if state.strategy is not None:
        toolbox.update(population)
    result = challenge(toolbox, state, challenger(), index) if c.accept_games else {}
    entry.update(challenger=result.get("mean", float("nan")), challenger_sem=result.get("sem", float("nan")),
                 confirmed=result.get("confirmed", float("nan")), accepted=result.get("accepted", 0))


def record(toolbox: base.Toolbox, state: RunState, population: list[Individual], reference: float,
           started: float) -> dict:
    """Hall of fame (by advantage over ``reference``), statistics and logbook after a generation."""
    ranked = [toolbox.clone(ind) for ind in population]
    for ind in ranked:
        ind.fitness.values = (ind.fitness.values[0] - reference,)
    state.hall_of_fame.update(ranked)
    entry = statistics().compile(population)
    state.logbook.record(gen=state.generation + 1, individuals=len(population), games=state.games_now(),
                         expectimax=reference, seconds=time.perf_counter() - started, compile_seconds=0.0,
                         **entry)
    state.generation += 1
    return state.logbook[-1]


def ga_generation(state: RunState, toolbox: base.Toolbox) -> dict:
    """One generation of the GA; ``state.population`` becomes the next generation."""
    c, started, index = state.config, time.perf_counter(), state.generation
    population = state.population
    reference = evaluate(toolbox, state, population)
    entry = record(toolbox, state, population, reference, started)
    handle_noise(toolbox, state, population, index, lambda: tools.selBest(population, 1)[0])
    elite = [toolbox.clone(ind) for ind in tools.selBest(population, c.elite)]
    offspring = algorithms.varAnd(toolbox.select(population, len(population) - c.elite), toolbox,
                                  c.cxpb, c.mutpb)
    for ind in elite + offspring:
        del ind.fitness.values
    state.population = elite + offspring
    return entry


def strategy_generation(state: RunState, toolbox: base.Toolbox) -> dict:
    """One generation of an ask/tell strategy (CMA-ES, sep-CMA-ES, OpenAI ES): sample, play, update it."""
    started, index = time.perf_counter(), state.generation
    population = toolbox.generate()
    reference = evaluate(toolbox, state, population)
    entry = record(toolbox, state, population, reference, started)
    if state.config.reevaluate or state.config.accept_games:
        handle_noise(toolbox, state, population, index, lambda: strategy_mean(state))
    else:
        toolbox.update(population)
    state.population = population
    return entry


def strategy_mean(state: RunState) -> Individual:
    """The strategy's mean as an individual, with the cell values of the next generation."""
    mean = Individual(state.strategy.centroid)
    mean.cell_values = state.cell_values.copy()
    return mean


GENERATIONS = {"ga": ga_generation, "cma": strategy_generation, "sep-cma": strategy_generation,
               "es": strategy_generation}
