"""Everything a run carries from one generation to the next, and its checkpoint file.

The checkpoint is this state pickled (``RunState``): the config, the number of
generations done, the population, the strategy (CMA-ES, separable CMA-ES or
the OpenAI ES), the hall of fame, the logbook, the cell values of the next
generation and every random state (the run's numpy generator for variation,
Python's ``random`` for DEAP's selection, and the numpy generator that each
strategy, ``cma``, ``sep-cma`` and ``es``, owns, pickled inside it). It is written atomically after
every generation, so ``--resume`` continues exactly where a run stopped.

The file is one header line, ``yamb-checkpoint <version> sha256 <hex digest>``,
then the pickled payload; a payload that does not match its digest (a damaged
file) is refused before it is unpickled.
"""

from __future__ import annotations

import hashlib
import pickle
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from deap import tools

from evolution.cma_es import CMAStrategy
from evolution.config import CMA_MAX_WEIGHTS, MAX_POPULATION_WEIGHTS, ConfigError, EvolveConfig
from evolution.evaluate import luck_player
from evolution.genes import SubspaceStrategy, gene_index
from evolution.individual import Individual
from evolution.openai_es import OpenAIES
from evolution.sep_cma import SepCMAStrategy
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.files import NeuralWeights, WeightsFileError, load_weights, write_atomically
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import genome_size
from robo_players.search.cell_values import cell_model
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules

CHECKPOINT = "checkpoint.pkl"
CHECKPOINT_VERSION = 3  # 2: a header line with the payload's SHA-256; 3: play and CMA-ES the same on every machine
CHECKPOINT_MAGIC = b"yamb-checkpoint"
NOISE_COLUMNS = ["noise", "challenger", "challenger_sem", "confirmed", "accepted"]  # logbook columns of selection under noise
STRATEGY_STREAM = 1  # the strategies' own generators draw from SeedSequence([seed, STRATEGY_STREAM])

Strategy = CMAStrategy | SepCMAStrategy | OpenAIES | SubspaceStrategy


class CheckpointError(YambError):
    """A checkpoint that is missing, damaged, or from another version."""


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

    def games_now(self) -> int:
        """Games per member of the next generation: the config's, or more while noise dominates."""
        c = self.config
        return min(max(c.games, self.games), max(c.games, c.games_max))


def net_spec(config: EvolveConfig) -> NetSpec:
    """The network spec of a run's table and player."""
    r = rules(config.game, dice=config.dice or None, joker=config.joker or None)
    lay = layout(r, config.columns or None)
    return NetSpec.for_layout(config.player, lay, tuple(config.hidden), config.played, config.bonus,
                              tuple(config.exact))


def expected_cell_values(spec: NetSpec) -> np.ndarray:
    """(CR,) each cell's expected score from the shipped tables (generation 0's cell values)."""
    lay = spec.layout()
    return cell_model(lay.rules, lay.columns).expected.ravel().astype(np.float64)


def adopt_init(config: EvolveConfig) -> EvolveConfig:
    """``config`` with the settings it names in ``from_init`` (network kind, hidden sizes, search)
    read from its ``init`` file, so that the run evolves that network as it plays."""
    if not config.from_init:
        return config
    spec = init_weights(config, net_spec(config)).spec
    values = {"player": spec.kind, "hidden": list(spec.hidden), "played": spec.played, "bonus": spec.bonus,
              "exact": list(spec.exact)}
    return replace(config, **{name: values[name] for name in config.from_init}).validate()


def init_weights(config: EvolveConfig, spec: NetSpec) -> NeuralWeights:
    """The weights of ``config.init`` (a file, or ``best``: the shipped bot of ``spec``'s table)."""
    path = Path(config.init)
    if config.init == "best":
        path = BOTS_DIR / bot_name(spec.layout())
        if not path.is_file():
            raise ConfigError(f"init = best: no shipped bot for {spec.table.describe()} (looked for {path})")
    try:
        return load_weights(path)
    except WeightsFileError as error:
        raise ConfigError(f"init: {error}") from None


def starting_point(config: EvolveConfig, spec: NetSpec) -> tuple[np.ndarray, np.ndarray] | None:
    """The genome and cell values of ``config.init`` (a weights file, or ``best``: the shipped bot
    of the table), or None for a fresh start. The file must hold a network of the run's shape
    (kind, table, hidden sizes); the run's ``played``, ``bonus`` and ``exact`` may differ from the file's."""
    if not config.init:
        return None
    weights = init_weights(config, spec)
    if replace(weights.spec, played=spec.played, bonus=spec.bonus, exact=spec.exact) != spec:
        named = f"best (the shipped bot {bot_name(spec.layout())})" if config.init == "best" else config.init
        raise ConfigError(f"init: {named} holds a {_describe(weights.spec, weights.genome.size)}, "
                          f"this run evolves a {_describe(spec)}; {_fixes(config, weights, spec)}")
    return weights.genome.astype(np.float64), weights.cell_values.astype(np.float64)


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


def check_luck(config: EvolveConfig, spec: NetSpec) -> None:
    """A ``ConfigError`` unless ``config.luck`` is empty or a search player of ``spec``'s table."""
    if config.luck:
        try:
            luck_player(config.luck, spec)
        except YambError as error:
            raise ConfigError(f"luck: {error}") from None


def new_state(config: EvolveConfig) -> RunState:
    """Generation 0 of a run: initial genomes (or the strategy), empty logs, seeded random states.

    With ``config.init`` the run starts from that player: the strategy's mean is its
    genome, or the GA's population is it and mutants of it (``mutation_sigma``
    on every weight); the first generation plays with its cell values.
    """
    config.validate()
    spec = net_spec(config)
    check_size(config, spec)
    check_luck(config, spec)
    net = spec.build()
    random.seed(config.seed)
    rng = np.random.default_rng(config.seed)
    start = starting_point(config, spec)
    cell_values = expected_cell_values(spec) if start is None else start[1]
    strategy, population = None, []
    if config.algorithm != "ga":
        centroid = net.initial_genome(rng).astype(np.float64) if start is None else start[0]
        strategy = new_strategy(config, centroid, gene_index(spec, config.genes))
    elif start is None:
        population = [Individual(net.initial_genome(rng)) for _ in range(config.population)]
    else:
        noise = rng.standard_normal((config.population - 1, start[0].size)) * config.mutation_sigma
        population = [Individual(start[0])] + [Individual(start[0] + n) for n in noise]
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
        logbook=logbook, cell_values=cell_values, rng=rng, incumbent=incumbent,
    )


def new_strategy(config: EvolveConfig, centroid: np.ndarray, index: np.ndarray | None = None) -> Strategy:
    """The ask/tell strategy of ``config.algorithm`` (not ``ga``), its mean at ``centroid``; over
    the genes at ``index`` alone (``evolution.genes``) when it is given and not all of them."""
    if index is not None and len(index) < centroid.size:
        return SubspaceStrategy(new_strategy(config, centroid[index]), centroid, index)
    rng = np.random.default_rng([config.seed, STRATEGY_STREAM])
    if config.algorithm == "cma":
        return CMAStrategy(centroid, config.cma_sigma, config.population, rng)
    if config.algorithm == "sep-cma":
        return SepCMAStrategy(centroid, config.cma_sigma, config.population, rng)
    return OpenAIES(centroid, config.es_sigma, config.population, config.es_learning_rate,
                    config.es_weight_decay, rng)


def save_checkpoint(state: RunState, run_dir: Path) -> None:
    """Pickle ``state`` with the current global random states, behind its SHA-256, atomically."""
    state.python_random = random.getstate()
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    header = b"%s %d sha256 %s\n" % (CHECKPOINT_MAGIC, CHECKPOINT_VERSION, hashlib.sha256(payload).hexdigest().encode())
    write_atomically(run_dir / CHECKPOINT, lambda tmp: tmp.write_bytes(header + payload))


def load_checkpoint(run_dir: Path) -> RunState:
    """The state saved in ``run_dir``, with the global random states restored."""
    path = Path(run_dir) / CHECKPOINT
    if not path.is_file():
        raise CheckpointError(f"{run_dir}: no checkpoint to resume from ({CHECKPOINT} is missing)")
    header, _, payload = path.read_bytes().partition(b"\n")
    words = header.split()
    if len(words) != 4 or words[0] != CHECKPOINT_MAGIC or words[2] != b"sha256":
        raise CheckpointError(f"{path}: damaged checkpoint, or one of a version before {CHECKPOINT_VERSION} "
                              f"(no checksum); start a new run")
    if words[1] != str(CHECKPOINT_VERSION).encode():
        raise CheckpointError(f"{path}: checkpoint version {words[1].decode(errors='replace')}, "
                              f"this program reads {CHECKPOINT_VERSION}")
    if hashlib.sha256(payload).hexdigest().encode() != words[3]:
        raise CheckpointError(f"{path}: damaged checkpoint (its content does not match its SHA-256)")
    try:
        state = pickle.loads(payload)
    except Exception as error:  # noqa: BLE001 - a payload that matches its digest but does not load
        raise CheckpointError(f"{path}: damaged checkpoint ({type(error).__name__})") from None
    if not isinstance(state, RunState):
        raise CheckpointError(f"{path}: not a checkpoint of yamb evolve")
    random.setstate(state.python_random)
    return state
