"""The search space of a sweep: which evolution settings a trial draws, and from where.

Every trial starts from an evolution recipe (``quick`` or ``full``: the
search-guided player, as ``yamb evolve`` runs it), takes
the space's fixed ``settings`` (``yamb sweep --set game=yatzy``), and
replaces the settings below with values drawn by Optuna. CMA-ES keeps a full
covariance matrix, so its networks come from a separate, smaller list of
hidden layers (``cma_hidden``) that must stay under ``CMA_MAX_WEIGHTS``; the
GA, ``sep-cma`` and ``es`` draw theirs from ``ga_hidden``. ``es`` plays
mirrored pairs: an odd drawn population is made even (one more, or one fewer
at the top of the range).

=================  ===========================================  =============
parameter          what it sets                                 when
=================  ===========================================  =============
algorithm          one of the space's ``algorithms``            always
population         individuals per generation (log scale)       always
games              games per evaluation (log scale)             always
generations        the generation budget                        always
ga_hidden          hidden layer sizes, e.g. ``16,16``           GA, sep-cma, es
crossover          ``blend`` or ``sbx``                         GA
cxpb               crossover probability                        GA
mutation_sigma     Gaussian mutation step (log scale)           GA
mutation_indpb     share of genes mutated (log scale)           GA
cma_sigma          initial step size (log scale)                cma, sep-cma
cma_hidden         hidden layer sizes                           cma
es_sigma           the ES's fixed noise (log scale)             es
es_learning_rate   Adam's learning rate on the mean (log)       es
=================  ===========================================  =============

A space saved before ``algorithms`` existed reads as ``ga`` and ``cma``, the
choices its study was drawn from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import optuna

from evolution.config import ALGORITHMS, CMA_MAX_WEIGHTS, ConfigError, EvolveConfig, from_recipe, with_settings
from evolution.state import net_spec
from robo_players.neural.population import genome_size

DRAWN = ("algorithm", "population", "games", "generations", "hidden", "crossover", "cxpb", "mutation_sigma",
         "mutation_indpb", "cma_sigma", "es_sigma", "es_learning_rate")  # the evolution settings ``suggest`` draws
PER_TRIAL = ("final_games", "seed", "workers", "threads")  # the evolution settings ``trial_config`` sets


@dataclass(frozen=True)
class SearchSpace:
    """Ranges of the drawn settings, on top of the run recipe ``base``."""

    base: str
    population: tuple[int, int]
    games: tuple[int, int]
    generations: tuple[int, int]
    ga_hidden: tuple[str, ...]
    cma_hidden: tuple[str, ...]
    final_games: int  # every trial's best player is checked on the same games: the objective
    cxpb: tuple[float, float] = (0.2, 0.9)
    mutation_sigma: tuple[float, float] = (0.003, 0.3)
    mutation_indpb: tuple[float, float] = (0.01, 1.0)
    cma_sigma: tuple[float, float] = (0.005, 0.3)
    es_sigma: tuple[float, float] = (0.005, 0.3)
    es_learning_rate: tuple[float, float] = (0.001, 0.1)
    algorithms: tuple[str, ...] = ("ga", "cma")
    settings: dict[str, object] = field(default_factory=dict)  # fixed evolution settings, e.g. the game

    @classmethod
    def from_dict(cls, data: dict) -> SearchSpace:
        """The space saved as JSON (lists back to tuples)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names})


SPACES: dict[str, SearchSpace] = {
    # minutes on two cores: evolve's quick recipe (the search-guided player, from expectimax) with small
    # populations, few games, a handful of generations
    "quick": SearchSpace(base="quick", population=(8, 40), games=(8, 40), generations=(4, 12),
                         ga_hidden=("8", "16", "8,8"), cma_hidden=("2", "4"), final_games=500, algorithms=ALGORITHMS),
    # hours: the run recipe ``full`` (the search-guided player) and its budgets
    "full": SearchSpace(base="full", population=(32, 256), games=(50, 200), generations=(50, 200),
                        ga_hidden=("8", "16", "32", "16,16"), cma_hidden=("4", "8"), final_games=10_000,
                        algorithms=ALGORITHMS),
}


def search_space(name: str) -> SearchSpace:
    if name not in SPACES:
        raise ConfigError(f"unknown sweep recipe {name!r}; choose from {', '.join(SPACES)}")
    return SPACES[name]


def suggest(trial: optuna.Trial, space: SearchSpace) -> dict[str, object]:
    """The evolution settings of ``trial``, drawn from ``space`` (the table above)."""
    algorithm = trial.suggest_categorical("algorithm", list(space.algorithms))
    population = trial.suggest_int("population", *space.population, log=True)
    settings: dict[str, object] = {
        "algorithm": algorithm,
        "population": _even(population, space.population[1]) if algorithm == "es" else population,
        "games": trial.suggest_int("games", *space.games, log=True),
        "generations": trial.suggest_int("generations", *space.generations),
    }
    if algorithm == "cma":
        settings["hidden"] = trial.suggest_categorical("cma_hidden", space.cma_hidden)
    else:
        settings["hidden"] = trial.suggest_categorical("ga_hidden", space.ga_hidden)
    if algorithm in ("cma", "sep-cma"):
        settings["cma_sigma"] = trial.suggest_float("cma_sigma", *space.cma_sigma, log=True)
    if algorithm == "es":
        settings["es_sigma"] = trial.suggest_float("es_sigma", *space.es_sigma, log=True)
        settings["es_learning_rate"] = trial.suggest_float("es_learning_rate", *space.es_learning_rate, log=True)
    if algorithm != "ga":
        return settings
    settings["crossover"] = trial.suggest_categorical("crossover", ["blend", "sbx"])
    settings["cxpb"] = trial.suggest_float("cxpb", *space.cxpb)
    settings["mutation_sigma"] = trial.suggest_float("mutation_sigma", *space.mutation_sigma, log=True)
    settings["mutation_indpb"] = trial.suggest_float("mutation_indpb", *space.mutation_indpb, log=True)
    return settings


def _even(population: int, largest: int) -> int:
    """``population`` made even (mirrored pairs) by one more, or one fewer at the top of the range."""
    if population % 2 == 0:
        return population
    return population + 1 if population < largest else population - 1


def trial_config(space: SearchSpace, settings: dict[str, object], seed: int) -> EvolveConfig:
    """The evolution config of a trial: the base recipe, the drawn ``settings``, the sweep's seed.

    Every trial plays one worker process with one thread: the sweep's workers
    are the parallelism.
    """
    per_trial = {"final_games": space.final_games, "seed": seed, "workers": 1, "threads": 1}
    return with_settings(from_recipe(space.base), {**space.settings, **settings, **per_trial}).validate()


def check_space(space: SearchSpace) -> None:
    """A ``ConfigError`` if a fixed setting is one the sweep sets, or a network cannot be built or is too
    large for CMA-ES; so that no trial fails on its settings."""
    taken = sorted(set(space.settings) & set(DRAWN + PER_TRIAL))
    if taken:
        raise ConfigError(f"the sweep sets {taken[0]} itself; it cannot be fixed")
    unknown = sorted(set(space.algorithms) - set(ALGORITHMS))
    if unknown or not space.algorithms:
        raise ConfigError(f"a sweep's algorithms are among {', '.join(ALGORITHMS)}, not {unknown or 'none'}")
    for algorithm in space.algorithms:
        for hidden in space.cma_hidden if algorithm == "cma" else space.ga_hidden:
            config = trial_config(space, {"algorithm": algorithm, "hidden": hidden}, seed=0)
            weights = genome_size(net_spec(config).build())
            if algorithm == "cma" and weights > CMA_MAX_WEIGHTS:
                raise ConfigError(f"CMA-ES networks with hidden layers {hidden} have {weights:,} weights on this "
                                  f"table, more than {CMA_MAX_WEIGHTS:,}")
