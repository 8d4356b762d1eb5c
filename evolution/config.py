"""The settings of an evolution run: defaults, the run recipes (``quick``, ``full``, ...), TOML files.

A run's settings are built in layers: the defaults of ``EvolveConfig``, then a
run recipe (``RECIPES``), then a TOML file (flat ``key = value`` lines with the field names
below), then command-line overrides. The run directory keeps the result as
``config.toml``, which ``--resume`` reads back.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from robo_players.neural.kinds import KINDS
from robo_players.search.cell_values import BONUS_MODELS
from robo_players.search.column_exact import EXACT_KINDS
from yamb.checks import MAX_SEED, ascii_integer
from yamb.errors import YambError, shown
from yamb.parsing import ParseError, parse_toml

ALGORITHMS = ("ga", "cma", "sep-cma", "es")  # GA, CMA-ES, separable CMA-ES, the OpenAI evolution strategy
BACKENDS = ("processes", "ray")  # where the games are played (evolution/backends.py)
CROSSOVERS = ("blend", "sbx")
GENES = ("all", "output-bias")  # the genes evolved: every weight, or the last layer's biases (evolution/strategies/genes.py)
OBJECTIVES = ("points", "win")  # fitness: the mean score, or the share of wins against a field (evolution/win_objective.py)
MAX_OPPONENTS = 5  # the field's seats in a game of the objective win
HALL_OF_FAME_FIELD = "hall-of-fame"  # field: the run's own best players so far (evolution/win_objective.py)
OPEN_CELLS = ("played", "fixed")  # the values of open cells a network reads: moved with play, or the start's
CMA_MAX_WEIGHTS = 2000  # CMA-ES (cma only) keeps a full covariance matrix: n^2 memory, n^3 time per generation
MAX_HIDDEN = 4096  # units of a hidden layer
MAX_LAYERS = 8  # hidden layers
MAX_POPULATION_WEIGHTS = 200_000_000  # population x weights per network, held in memory as float64
MAX_GAMES_PER_BATCH = 10_000_000  # population x games, and final_games x candidates: the games played at once
MAX_LOOKAHEAD = 3  # turns planned at play time in evolution (each more costs about ten times the games' time)
_FLOAT = re.compile(r"[ \t]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t]*|[ \t]*[+-]?(inf|nan)[ \t]*",
                    re.IGNORECASE)  # ASCII (float() also reads '٣.٥' and '1_0'); inf and nan are refused by validate
KIND_NAMES = {"int": "a whole number (ASCII digits)", "float": "a number (ASCII digits)",
              "list[int]": "whole numbers (ASCII digits), comma-separated", "list[str]": "a list of names"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # recipe: it begins the run directory's name
INIT_SETTINGS = ("player", "hidden", "played", "bonus", "exact")  # what from_init may take from the init file
OLD_NAMES = {"run_preset": "recipe"}  # settings under their names of earlier versions (config.toml, checkpoints)
LIMITS = {"generations": 1_000_000, "hall_of_fame": 1_000, "tournament": 1_000, "workers": 1_024, "threads": 1_024}


class ConfigError(YambError):
    """A setting that does not exist or has an impossible value."""


@dataclass(frozen=True)
class EvolveConfig:
    """Every setting of a run. ``game``, ``columns``, ``dice`` and ``joker`` choose the table
    (empty or 0: the game preset's default); ``recipe`` records which run recipe the run started from."""

    recipe: str = "custom"
    # the table
    game: str = "yamb"
    columns: list[str] = field(default_factory=list)
    dice: int = 0
    joker: str = ""
    # the player
    player: str = "direct"
    hidden: list[int] = field(default_factory=lambda: [32])
    played: float = 0.0  # guided: blend of any-order columns' row expectations with play (robo_players.search.row_means)
    bonus: str = "normal"  # guided: the numbers bonus's chance from a normal approximation, or "exact"
    exact: list[str] = field(default_factory=list)  # guided: column kinds valued by exact single-column values
    lookahead: int = 1  # guided: turns planned at play time (1: one; 2, 3: robo_players.search.lookahead), in evolution too
    init: str = ""  # start from this weights file's genome and cell values ("best": the shipped bot); "" fresh
    from_init: list[str] = field(default_factory=list)  # settings of INIT_SETTINGS taken from the init file
    open_cells: str = "played"  # what the network reads for open cells: the last generation's averages, or the start's
    genes: str = "all"  # the weights evolved: all, or the output layer's biases of the init network (evolution/strategies/genes.py)
    # the algorithm
    algorithm: str = "ga"
    population: int = 200
    generations: int = 100
    games: int = 100
    # GA: tournament selection, crossover, Gaussian mutation, elitism
    tournament: int = 3
    crossover: str = "blend"
    cxpb: float = 0.5
    blend_alpha: float = 0.3
    sbx_eta: float = 10.0
    mutpb: float = 0.9
    mutation_sigma: float = 0.03
    mutation_indpb: float = 0.1
    elite: int = 2
    # CMA-ES and separable CMA-ES (sep-cma): the initial step size
    cma_sigma: float = 0.05
    # the OpenAI evolution strategy (es): fixed noise, Adam's learning rate on the mean, weight decay
    es_sigma: float = 0.02
    es_learning_rate: float = 0.01
    es_weight_decay: float = 0.0
    # selection under noise (evolution/noise.py): the noise measured on members played again
    # (UH-CMA-ES) and the games grown up to games_max; an incumbent replaced on significant evidence
    reevaluate: int = 0  # members played again on fresh dice each generation (0: off, else 2 or more)
    games_max: int = 0  # games per member may grow to this while noise dominates (0: games, no growth)
    accept_games: int = 0  # games of the challenger against the incumbent each generation (0: off)
    accept_p: float = 0.01  # the challenger replaces the incumbent when better with p below this
    luck: str = ""  # select on the scores less each roll's luck as this search player values it (robo_players/measure/luck.py)
    # what a member plays for: its mean score, or its share of the wins against ``opponents``
    # players ``field`` at one table (evolution/win_objective.py): a registered player, a weights file, or
    # "hall-of-fame": the run's start player until the hall of fame has a member, then its best ``opponents``
    objective: str = "points"
    field: str = "best"
    opponents: int = 1
    # the hall of fame and the final check of the best player
    hall_of_fame: int = 5
    final_games: int = 2000
    # reproducibility and resources
    seed: int = 0
    workers: int = 1
    threads: int = 1
    backend: str = "processes"
    ray_address: str = ""  # backend ray: the cluster to join ("": a local Ray for the run)

    def validate(self) -> EvolveConfig:
        """``self``, or a ``ConfigError`` naming the first impossible setting."""
        floats = [f.name for f in fields(self) if f.type == "float" and not math.isfinite(getattr(self, f.name))]
        large = [name for name, limit in LIMITS.items() if getattr(self, name) > limit]
        checks = [
            (_NAME.fullmatch(self.recipe) is not None,
             f"recipe must be a name of letters, digits, '.', '_' and '-' (it begins the run directory's "
             f"name), not {shown(self.recipe)}"),
            (not floats, f"{', '.join(floats)} must be a finite number, not {getattr(self, floats[0]) if floats else ''}"),
            (not large, f"{large[0] if large else ''} must be at most {LIMITS[large[0]] if large else 0:,}"),
            (self.population * self.games <= MAX_GAMES_PER_BATCH
             and self.final_games * (self.hall_of_fame + 1) <= MAX_GAMES_PER_BATCH,
             f"population x games and final_games x (hall_of_fame + 1) must be at most {MAX_GAMES_PER_BATCH:,} "
             f"(the games played at once)"),
            (self.player in KINDS, f"player must be one of {', '.join(KINDS)}, not {self.player!r}"),
            (self.algorithm in ALGORITHMS, f"algorithm must be one of {', '.join(ALGORITHMS)}, not {self.algorithm!r}"),
            (self.crossover in CROSSOVERS, f"crossover must be one of {', '.join(CROSSOVERS)}, not {self.crossover!r}"),
            (self.population >= 2, "population must be at least 2"),
            (self.algorithm != "es" or self.population % 2 == 0,
             f"population must be even for algorithm es (mirrored pairs), not {self.population}"),
            (self.es_sigma > 0 and 0 < self.es_learning_rate <= 1 and self.es_weight_decay >= 0,
             "es_sigma must be > 0, es_learning_rate in (0, 1] and es_weight_decay >= 0"),
            (self.generations >= 1, "generations must be at least 1"),
            (self.games >= 1 and self.final_games >= 1, "games and final_games must be at least 1"),
            (self.tournament >= 1, "tournament must be at least 1"),
            (0 <= self.elite < self.population, "elite must be between 0 and population - 1"),
            (0 <= self.cxpb <= 1 and 0 <= self.mutpb <= 1 and 0 <= self.mutation_indpb <= 1,
             "cxpb, mutpb and mutation_indpb are probabilities between 0 and 1"),
            (self.mutation_sigma >= 0 and self.cma_sigma > 0, "mutation_sigma must be >= 0 and cma_sigma > 0"),
            (self.blend_alpha >= 0 and self.sbx_eta >= 0, "blend_alpha and sbx_eta must be >= 0"),
            (self.hall_of_fame >= 1, "hall_of_fame must be at least 1"),
            (self.workers >= 1 and self.threads >= 1, "workers and threads must be at least 1"),
            (0 <= self.seed <= MAX_SEED, "seed must be from 0 to 2**64-1"),
            (self.backend in BACKENDS, f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}"),
            (self.backend == "ray" or not self.ray_address, "ray_address applies to backend ray only"),
            (1 <= len(self.hidden) <= MAX_LAYERS and all(1 <= h <= MAX_HIDDEN for h in self.hidden),
             f"hidden must list 1 to {MAX_LAYERS} layer sizes from 1 to {MAX_HIDDEN}"),
            (0 <= self.played <= 1, "played must lie between 0 and 1"),
            (self.played == 0 or self.player == "guided", "played applies to the guided player only"),
            (self.bonus in BONUS_MODELS, f"bonus must be one of {', '.join(BONUS_MODELS)}, not {self.bonus!r}"),
            (self.bonus == "normal" or self.player == "guided", "bonus applies to the guided player only"),
            (not self.exact or self.player == "guided", "exact applies to the guided player only"),
            (1 <= self.lookahead <= MAX_LOOKAHEAD, f"lookahead must be from 1 to {MAX_LOOKAHEAD} turns"),
            (self.lookahead == 1 or self.player == "guided", "lookahead applies to the guided player only"),
            (self.reevaluate == 0 or 2 <= self.reevaluate <= self.population,
             "reevaluate must be 0 (off) or from 2 to the population"),
            (self.games_max == 0 or self.games_max >= self.games, "games_max must be 0 (off) or at least games"),
            (self.population * max(self.games, self.games_max) <= MAX_GAMES_PER_BATCH,
             f"population x games_max must be at most {MAX_GAMES_PER_BATCH:,} (the games played at once)"),
            (0 <= self.accept_games <= MAX_GAMES_PER_BATCH // 2 and 0 < self.accept_p < 1,
             f"accept_games must be from 0 (off) to {MAX_GAMES_PER_BATCH // 2:,} and accept_p between 0 and 1"),
            (set(self.from_init) <= set(INIT_SETTINGS),
             f"from_init lists settings among {', '.join(INIT_SETTINGS)}, not {self.from_init}"),
            (not self.from_init or self.init, "from_init needs init (a weights file or best)"),
            (self.genes in GENES, f"genes must be one of {', '.join(GENES)}, not {self.genes!r}"),
            (self.open_cells in OPEN_CELLS, f"open_cells must be one of {', '.join(OPEN_CELLS)}, "
                                            f"not {self.open_cells!r}"),
            (self.genes == "all" or self.init,
             f"genes = {self.genes!r} evolves part of a start network: it needs init (a weights file or best)"),
            (self.genes == "all" or self.algorithm != "ga",
             f"genes = {self.genes!r} is evolved by a strategy: algorithm cma, sep-cma or es, not ga"),
            (set(self.exact) <= set(EXACT_KINDS), f"exact lists column kinds among {', '.join(EXACT_KINDS)}, "
                                                  f"not {self.exact}"),
            (self.objective in OBJECTIVES, f"objective must be one of {', '.join(OBJECTIVES)}, not {self.objective!r}"),
            (self.objective == "win" or (self.field, self.opponents) == ("best", 1),
             "field and opponents apply to objective win only"),
            (1 <= self.opponents <= MAX_OPPONENTS, f"opponents must be from 1 to {MAX_OPPONENTS}"),
            (self.objective == "points" or not self.luck,
             "objective win cannot apply with luck (the luck of a roll is counted in points); drop luck"),
            (self.objective == "points" or self.lookahead == 1,
             "objective win cannot apply with lookahead (the look-ahead plans one player's games); drop lookahead"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)
        return self

    def __setstate__(self, state: dict) -> None:
        """A config unpickled from a checkpoint, its settings' old names read as today's (``OLD_NAMES``)."""
        for name, value in state.items():
            object.__setattr__(self, OLD_NAMES.get(name, name), value)


RECIPES: dict[str, dict] = {  # the run recipes of yamb evolve --recipe
    # about three minutes on two cores: the search-guided player, from expectimax, visibly improved by CMA-ES
    "quick": dict(player="guided", hidden=[4], algorithm="cma", population=16, games=100, cma_sigma=0.03,
                  generations=60, hall_of_fame=2, final_games=1000, workers=2),
    # minutes: the network alone (no search at play time) evolved from random weights by a GA
    "direct": dict(player="direct", hidden=[16], algorithm="ga", population=80, games=60,
                   generations=100, elite=2, final_games=1000),
    # the network alone evolved on from an imitation of a teacher (yamb imitate ... --out FILE; add --init FILE):
    # small mutations of a trained network, many games each (the same dice for all) to see small gains
    "direct-imitation": dict(player="direct", hidden=[64], algorithm="ga", population=40, games=200,
                             generations=100, cxpb=0.2, mutation_sigma=0.01, mutation_indpb=0.05, elite=4,
                             final_games=2000),
    # from a strong player (--init best or a file; its network and search kept): small steps, the noise
    # measured and the games grown while it dominates, the result an incumbent replaced only on evidence
    "polish": dict(from_init=list(INIT_SETTINGS), algorithm="sep-cma", population=16, games=300, games_max=2400,
                   reevaluate=4, accept_games=3000, accept_p=0.01, cma_sigma=0.005, generations=60,
                   hall_of_fame=1, final_games=10000, luck="best", open_cells="fixed"),
    # from best (--init best), played for the share of wins against best in two-player games: the
    # network's corrections of best's values moved by small steps, an incumbent replaced on evidence only
    "win": dict(objective="win", field="best", opponents=1, from_init=list(INIT_SETTINGS), algorithm="sep-cma",
                population=12, games=200, games_max=1600, reevaluate=4, accept_games=2000, accept_p=0.01,
                cma_sigma=0.005, generations=40, hall_of_fame=1, final_games=4000, open_cells="fixed"),
    # the long run: the search-guided player, improved from expectimax-played by CMA-ES (hours; add --workers)
    "full": dict(player="guided", hidden=[8], played=0.6, algorithm="cma", population=50, games=200,
                 generations=150, cma_sigma=0.02, final_games=10000),
}


def _coerce(name: str, value: object) -> object:
    """``value`` converted to the type of field ``name``, or a ``ConfigError``."""
    types = {f.name: f.type for f in fields(EvolveConfig)}
    if name not in types:
        raise ConfigError(f"unknown setting {name!r}; settings are {', '.join(types)}")
    kind = types[name]
    try:
        if kind == "list[str]":
            items = value.split(",") if isinstance(value, str) else list(value)
            return [str(v).strip() for v in items if str(v).strip()]
        if kind == "list[int]":
            items = value.split(",") if isinstance(value, str) else list(value)
            return [_integer(v) for v in items if str(v).strip()]
        if kind == "int":
            return _integer(value)
        if kind == "float":
            if isinstance(value, str) and not _FLOAT.fullmatch(value):
                raise ValueError
            return float(value)
        return str(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"setting {name} = {shown(value)} is not {KIND_NAMES.get(kind, kind)}") from None


def _integer(value: object) -> int:
    """An int setting: a TOML integer, a whole float, or text of ASCII digits (no '٣', '１２', '1_000')."""
    if isinstance(value, str):
        number = ascii_integer(value)
        if number is None:
            raise ValueError
        return number
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError
    return int(value)


def with_settings(config: EvolveConfig, settings: dict) -> EvolveConfig:
    """``config`` with ``settings`` (name to value, values may be strings; the old names of ``OLD_NAMES`` too) applied."""
    named = {OLD_NAMES.get(k, k): v for k, v in settings.items()}
    return replace(config, **{k: _coerce(k, v) for k, v in named.items()})


def from_recipe(name: str) -> EvolveConfig:
    """The settings of the run recipe ``name`` (``RECIPES``) over the defaults."""
    if name not in RECIPES:
        raise ConfigError(f"unknown run recipe {name!r}; choose from {', '.join(RECIPES)}")
    return with_settings(EvolveConfig(recipe=name), RECIPES[name])


def read_toml(path: Path) -> dict:
    """The settings of a TOML file, or a ``ConfigError``."""
    try:
        return parse_toml(Path(path).read_bytes())
    except FileNotFoundError:
        raise ConfigError(f"no such config file: {path}") from None
    except ParseError as error:
        raise ConfigError(f"{path}: {error}") from None


def to_toml(config: EvolveConfig) -> str:
    """The config as flat TOML (JSON literals of strings, numbers and lists are valid TOML)."""
    lines = ["# yamb evolve settings (see evolution/config.py)"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in asdict(config).items()]
    return "\n".join(lines) + "\n"


def parse_assignment(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` from the command line."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set expects KEY=VALUE, not {text!r}")
    return key.strip(), value.strip()


def parse_assignments(texts: list[str]) -> dict[str, str]:
    """The ``--set KEY=VALUE`` options of a command line; a key given twice is refused."""
    settings: dict[str, str] = {}
    for key, value in map(parse_assignment, texts):
        if key in settings:
            raise ConfigError(f"--set {key}= is given twice ({settings[key]!r} and {value!r}); give it once")
        settings[key] = value
    return settings
