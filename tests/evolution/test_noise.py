"""Selection under noise: on a noisy sphere the plain loop stays far and reports luck; the noise-aware one converges.

The generations are the run's own (``evolution.algorithms``), with the games
replaced by a synthetic objective whose optimum is known: a member's score in
a game is minus its squared distance to ``OPTIMUM``, plus the game's luck
shared by every member (common random numbers, which change no rank) and its
own luck, of sd ``GAME_SD``, far above the differences near the optimum.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from evolution.algorithms import GENERATIONS, challenge, make_toolbox
from evolution.config import from_recipe, with_settings
from evolution.evaluate import CHALLENGE, Outcome, Task, dice_seed
from evolution.individual import Individual
from evolution.noise import next_games, rank_change_measure
from evolution.planning import plan
from evolution.report import FinalCheck
from evolution.state import RunState, new_state
from evolution.strategies import new_strategy

DIM, GAME_SD, SHARED_SD = 10, 5.0, 20.0
OPTIMUM = np.full(DIM, 0.5)
START = OPTIMUM + 1 / np.sqrt(DIM)  # at distance 1, where a member's noise (GAME_SD / sqrt(10)) hides its rank
NOISE_AWARE = dict(reevaluate=4, games_max=2560, accept_games=2000)


def value(x: np.ndarray) -> float:
    """The true fitness: 0 at the optimum."""
    return -float(((np.asarray(x, dtype=np.float64) - OPTIMUM) ** 2).sum())


def shared_luck(games: int, seed: int) -> np.ndarray:
    """The luck every member has in each game of a generation (the synthetic ``expectimax``'s scores)."""
    return SHARED_SD * np.random.default_rng(seed).standard_normal(games)


def synthetic_play(task: Task) -> Outcome:
    """Each member's scores: its true fitness, the shared luck, and its own (seeded by dice and genome)."""
    rows = []
    for genome in task.genomes.astype(np.float64):
        own = np.random.default_rng([task.seed, zlib.crc32(genome.tobytes())]).standard_normal(task.games)
        rows.append(value(genome) + shared_luck(task.games, task.seed) + GAME_SD * own)
    return Outcome(np.array(rows), np.zeros(task.cell_values.shape[1]), np.zeros((len(rows), task.games)))


def run(seed: int, **settings) -> RunState:
    """100 generations of separable CMA-ES (population 10, 10 games each, step 0.1) from ``START``."""
    config = with_settings(from_recipe("direct"), {
        "population": 10, "games": 10, "generations": 100, "player": "guided", "hidden": "1", "game": "yatzy",
        "algorithm": "sep-cma", "cma_sigma": 0.1, "seed": seed, **settings}).validate()
    state = new_state(plan(config))
    state.strategy = new_strategy(config, START)
    if state.incumbent is not None:
        state.incumbent = Individual(START)
        state.incumbent.cell_values = state.cell_values.copy()
    toolbox = make_toolbox(state)
    toolbox.register("play", synthetic_play)
    toolbox.register("reference", lambda spec, games, seed, luck, match=None: shared_luck(games, seed))
    for _ in range(config.generations):
        GENERATIONS[config.algorithm](state, toolbox)
    return state


def distance(x: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(x) - OPTIMUM))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_plain_loop_stays_far_and_its_best_is_luck(seed: int) -> None:
    state = run(seed)
    assert distance(state.strategy.centroid) > 0.8  # no nearer than it started (1.0)
    best = state.hall_of_fame[0]  # ranked by its advantage over the shared luck on its own dice
    assert best.fitness.values[0] > value(best) + 2  # above even the optimum's 0: luck


@pytest.mark.parametrize("seed", [1, 2])
def test_the_noise_aware_loop_converges(seed: int) -> None:
    state = run(seed, **NOISE_AWARE)
    assert distance(state.incumbent) < 0.5 and distance(state.strategy.centroid) < 0.5
    assert state.games_now() > 10  # the games grew while noise dominated
    assert value(state.incumbent) > value(START)  # replaced only by better players
    assert sum(entry["accepted"] == 1 for entry in state.logbook) >= 2


@pytest.mark.parametrize("seed", [1, 2])
def test_a_mean_worse_than_the_incumbent_is_put_back_on_it(seed: int) -> None:
    state = run(seed, cma_sigma=0.5, accept_games=2000)  # steps large enough to jump to worse means
    outcomes = [entry["accepted"] for entry in state.logbook]
    assert outcomes.count(-1) >= 1 and outcomes.count(1) >= 1
    assert value(state.incumbent) > value(START)


def test_a_challenger_better_on_one_set_of_dice_only_is_not_accepted() -> None:
    config = with_settings(from_recipe("direct"), {
        "population": 10, "games": 10, "player": "guided", "hidden": "1", "game": "yatzy",
        "algorithm": "sep-cma", "cma_sigma": 0.1, "seed": 3, "accept_games": 2000}).validate()
    state = new_state(plan(config))
    state.incumbent = Individual(START)
    state.incumbent.cell_values = state.cell_values.copy()
    lucky = dice_seed(config.seed, CHALLENGE, 0)

    def play(task: Task) -> Outcome:  # the challenger (first) is 3 points luckier on the challenge's dice
        outcome = synthetic_play(task)
        if task.seed == lucky:
            outcome.scores[0] += 3.0
        return outcome

    toolbox = make_toolbox(state)
    toolbox.register("play", play)

    def member(x: np.ndarray) -> Individual:
        ind = Individual(x)
        ind.cell_values = state.cell_values.copy()
        return ind

    as_good = challenge(toolbox, state, member(START + 1e-3), 0)  # as good as the incumbent
    assert as_good["p"] < 0.01 and as_good["mean"] > 2  # fooled by the first dice ...
    assert as_good["accepted"] == 0 and abs(as_good["confirmed"]) < 1  # ... not by the second
    assert np.array_equal(state.incumbent, START)
    better = challenge(toolbox, state, member(OPTIMUM), 1)  # 1 point better on any dice
    assert better["accepted"] == 1 and better["confirmed"] > 0.5
    assert np.array_equal(state.incumbent, OPTIMUM)


def test_the_rank_change_measure_tells_noise_from_signal() -> None:
    rng = np.random.default_rng(0)
    fitness = rng.normal(size=(200, 12))
    assert np.mean([rank_change_measure(f, f[:4] + 0.01 * rng.normal(size=4)) for f in fitness]) < 0
    assert np.mean([rank_change_measure(f, rng.normal(size=4)) for f in fitness]) > 0
    shifted = [rank_change_measure(f, f[:4] + 100) for f in fitness]  # a lucky generation on common dice
    assert max(shifted) < 0


def test_the_games_grow_under_noise_within_bounds() -> None:
    assert next_games(100, 0.5, 100, 1000) == 150 and next_games(800, 0.5, 100, 1000) == 1000
    assert next_games(150, -0.5, 100, 1000) == 100 and next_games(100, -0.5, 100, 1000) == 100


def test_the_final_check_keeps_the_incumbent_unless_beaten_with_significance() -> None:
    rng = np.random.default_rng(0)
    incumbent = rng.normal(250, 40, 1000)
    luckier = incumbent + rng.normal(0.3, 30, 1000)  # a higher mean on these games, p far above 0.01
    better = incumbent + rng.normal(5, 30, 1000)
    assert luckier.mean() > incumbent.mean()

    def best(*rows: np.ndarray, accept_p: float = 0.01) -> int:
        return FinalCheck(0, [], np.stack(rows), incumbent, accept_p).best

    assert best(incumbent, luckier) == 0 and best(incumbent, luckier, accept_p=0.0) == 1
    assert best(incumbent, better) == 1 and best(incumbent, luckier, better) == 2
