"""A run's plan: its settings checked once, the ``init`` file read once, before anything is written.

``plan(config)`` is everything that can refuse a run before its directory exists: the
settings (``EvolveConfig.validate``, once, after ``from_init`` took what it names from the
``init`` file), Ray when the backend is ``ray``, a network too large for the algorithm or the
population, an ``init`` file of another shape, a ``luck`` that names no search player (by its
name: no player is built), a ``field`` (objective win) that does not play the table. ``start`` and ``new_state`` take the plan as it is.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from evolution.backends import import_ray
from evolution.config import CMA_MAX_WEIGHTS, MAX_POPULATION_WEIGHTS, ConfigError, EvolveConfig
from evolution.state import Plan, Start, expected_cell_values, net_spec, table_layout
from evolution.strategies.genes import gene_index
from evolution.win_objective import check_match, match_of
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.build import check_table, file_spec, is_weights_file
from robo_players.neural.files import NeuralWeights, WeightsFileError, load_weights
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import genome_size
from robo_players.neural.value_nets import is_values_file
from robo_players.registry import PLAYERS, SEARCHES, make_player
from robo_players.search.lookahead import split_name
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.table import Table


def plan(config: EvolveConfig) -> Plan:
    """The plan of a run of ``config``, or a ``ConfigError`` (or Ray's absence) saying why there is none."""
    weights = init_weights(config, table_layout(config)) if config.init and config.from_init else None
    if weights is not None:
        config = adopted(config, weights.spec)
    config.validate()
    if config.backend == "ray":
        import_ray()
    spec = net_spec(config)
    if config.init and weights is None:
        weights = init_weights(config, spec.layout())
    check_size(config, spec)
    start = starting_point(config, spec, weights)
    check_luck(config.luck, spec.layout())
    match = match_of(config)
    if match is not None:
        check_match(match, spec.layout())
    return Plan(config, spec, start)


def adopted(config: EvolveConfig, spec: NetSpec) -> EvolveConfig:
    """``config`` with the settings it names in ``from_init`` (network kind, hidden sizes, search)
    taken from the init file's network ``spec``, so that the run evolves that network as it plays."""
    values = {"player": spec.kind, "hidden": list(spec.hidden), "played": spec.played, "bonus": spec.bonus,
              "exact": list(spec.exact)}
    return replace(config, **{name: values[name] for name in config.from_init if name in values})


def init_weights(config: EvolveConfig, lay: Layout) -> NeuralWeights:
    """The weights of ``config.init`` (a file, or ``best``: the shipped bot of ``lay``'s table)."""
    path = Path(config.init)
    if config.init == "best":
        path = BOTS_DIR / bot_name(lay)
        if not path.is_file():
            raise ConfigError(f"init = best: no shipped bot for {Table.of(lay).solo.describe()} (looked for {path})")
    try:
        return load_weights(path)
    except WeightsFileError as error:
        raise ConfigError(f"init: {error}") from None


def starting_point(config: EvolveConfig, spec: NetSpec, weights: NeuralWeights | None) -> Start:
    """The player a run of ``config`` (a network of ``spec``) starts from: the ``init`` file's
    ``weights``, which must hold a network of the run's shape (kind, table, hidden sizes; the
    run's ``played``, ``bonus`` and ``exact`` may differ from the file's), or with none the first
    genome a fresh run draws (the CMA-ES centroid, the GA's first individual) and the shipped
    expectations."""
    if weights is None:
        genome = spec.build().initial_genome(np.random.default_rng(config.seed)).astype(np.float64)
        return Start(genome, expected_cell_values(spec), spec)
    if replace(weights.spec, played=spec.played, bonus=spec.bonus, exact=spec.exact) != spec:
        named = f"best (the shipped bot {bot_name(spec.layout())})" if config.init == "best" else config.init
        raise ConfigError(f"init: {named} holds a {_describe(weights.spec, weights.genome.size)}, "
                          f"this run evolves a {_describe(spec)}; {_fixes(config, weights, spec)}")
    return Start(weights.genome.astype(np.float64), weights.cell_values.astype(np.float64), weights.spec)


def _fixes(config: EvolveConfig, weights: NeuralWeights, spec: NetSpec) -> str:
    """The ``yamb evolve`` options that make the run of ``config`` (a network of ``spec``) evolve the
    network of ``weights``, and, for a network of the same table, the recipe that takes it as it is."""
    wanted = weights.spec
    fixes = {"--player": (wanted.kind, spec.kind), "--preset": (wanted.preset, spec.preset),
             "--columns": (",".join(wanted.columns), ",".join(spec.columns)),
             "--set dice=": (wanted.dice, spec.dice), "--set joker=": (wanted.joker, spec.joker),
             "--hidden": (",".join(map(str, wanted.hidden)), ",".join(map(str, spec.hidden)))}
    words = [f"{flag}{'' if flag.endswith('=') else ' '}{want}" for flag, (want, have) in fixes.items() if want != have]
    if config.algorithm == "cma" and weights.genome.size > CMA_MAX_WEIGHTS:
        words.append(f"--algorithm sep-cma (CMA-ES takes at most {CMA_MAX_WEIGHTS:,} weights)")
    same_table = wanted.table == spec.table
    polish = ", or take its network and search as they are: --recipe polish" if same_table else ""
    return f"to carry it on, add {' '.join(words)}{polish}"


def _describe(spec: NetSpec, weights: int | None = None) -> str:
    size = "" if weights is None else f", {weights:,} weights"
    return f"{spec.kind} network (hidden {list(spec.hidden)}{size}) for {spec.table.describe()}"


def check_size(config: EvolveConfig, spec: NetSpec) -> None:
    """A ``ConfigError`` when a network of ``spec`` (or the part of it evolved, ``genes``) is too
    large for the algorithm or the population."""
    weights = genome_size(spec.build())
    evolved = len(gene_index(spec, config.genes))
    if config.algorithm == "cma" and evolved > CMA_MAX_WEIGHTS:
        raise ConfigError(
            f"CMA-ES keeps a full covariance matrix: {evolved:,} weights is too many "
            f"(at most {CMA_MAX_WEIGHTS:,}); use algorithm = \"sep-cma\" or \"es\" (linear in the weights), "
            f"\"ga\", smaller hidden layers, or genes = \"output-bias\" from an init network"
        )
    if config.population * weights > MAX_POPULATION_WEIGHTS:
        raise ConfigError(f"population x weights is {config.population * weights:,}, more than "
                          f"{MAX_POPULATION_WEIGHTS:,}; use a smaller population or smaller hidden layers")


def check_luck(name: str, lay: Layout) -> None:
    """A ``ConfigError`` unless ``name`` is empty or names a search player of ``lay``'s table: a
    registered search player, or a weights file of a guided network for the table (its header
    read, no player built)."""
    if not name or name in SEARCHES:
        return
    try:
        if is_weights_file(name) and split_name(name) is None:
            spec = file_spec(name)
            check_table(Path(name), spec, lay)
            if spec.kind == "guided":
                return
        elif name not in PLAYERS and split_name(name) is None and not is_values_file(name):
            make_player(name, lay)  # an unknown name: the registry's error, before it builds anything
        raise YambError(f"the luck of a roll is valued by a search player (expectimax, best, a guided network), "
                        f"not {name}")
    except (YambError, OSError) as error:
        raise ConfigError(f"luck: {error}") from None
