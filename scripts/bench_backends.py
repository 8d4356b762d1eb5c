"""Seconds per generation of the ``full`` preset on each backend, and the parts of a generation.

    python -m scripts.bench_backends                  # backends side by side, then the parts
    python -m scripts.bench_backends --rounds 2 --generations 3 --skip-parts
    python -m scripts.bench_backends --parts-only --population 50 --games 200
    python -m scripts.bench_backends --model parts.json   # the scaling model from saved parts

Backends: ``--workers 1``, ``--workers 2`` and ``--backend ray`` with two local
workers, run in turn (``--rounds`` times, alternating, so that a change in the
machine's load hits all of them), each a short run of the ``full`` preset in
a temporary directory. A generation's seconds are the wall time between two
of its progress reports (play, expectimax, CMA-ES update, hall of fame,
checkpoint and logbook); the first generation (compilation, worker start-up)
is left out. The load average is printed beside every run.

The parts (one process, one thread, the preset's population and games): the
seconds one individual's games take, the serial part of a generation in the
driver (expectimax's reference games, the CMA-ES sample and update, the hall
of fame, the checkpoint), the bytes a generation moves (the pickled tasks
out, the outcomes back), and the seconds Ray's actor pool spends handing out
one task and taking its result back (a local Ray, two actors, empty tasks).
The scaling model (docs/scaling.md) is built from them and printed last.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import tempfile
import time
from pathlib import Path

import numpy as np
from deap import cma

from evolution.algorithms import make_toolbox, record
from evolution.config import from_recipe, with_settings
from evolution.evaluate import GENERATION, Task, dice_seed, init_worker, play_task, reference_scores
from evolution.individual import Individual
from evolution.planning import plan
from evolution.run import evolve, start
from evolution.run_dir import RunDir
from evolution.state import new_state

LARGE = 512  # the CMA-ES update is also timed at this population, for the model's population term
BACKENDS = {"workers 1": dict(workers=1), "workers 2": dict(workers=2), "ray 2": dict(backend="ray", workers=2)}


def seconds_per_generation(settings: dict, generations: int) -> tuple[list[float], float]:
    """The wall seconds of each generation after the first of a short ``full`` run, and the first's."""
    config = with_settings(from_recipe("full"), {**settings, "generations": generations, "final_games": 10})
    marks = [time.perf_counter()]
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        evolve(start(config, run_dir), run_dir, lambda state, entry: marks.append(time.perf_counter()))
    gaps = np.diff(marks).tolist()
    return gaps[1:], gaps[0]


def cma_seconds(state, population: int, repeats: int) -> float:
    """Seconds of one CMA-ES sample and update of ``population`` individuals (fitness drawn at random)."""
    strategy = cma.Strategy(centroid=state.strategy.centroid, sigma=0.02, lambda_=population)
    rng = np.random.default_rng(0)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        individuals = strategy.generate(Individual)
        for ind in individuals:
            ind.fitness.values = (float(rng.normal()),)
        strategy.update(individuals)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def parts(population: int, games: int, repeats: int) -> dict:
    """Seconds of the parts of one ``full`` generation in one process, and its bytes."""
    config = with_settings(from_recipe("full"), {"population": population, "games": games, "final_games": 10})
    init_worker(1)  # one torch and numba thread, as in a run's worker
    state = new_state(plan(config))
    toolbox = make_toolbox(state)
    seed = dice_seed(config.seed, GENERATION, 0)
    times: dict[str, list[float]] = {k: [] for k in ("play", "expectimax", "generate", "update", "hall_of_fame",
                                                     "checkpoint")}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats + 1):  # the first round compiles
            t = time.perf_counter()
            population_ = toolbox.generate()
            times["generate"].append(time.perf_counter() - t)
            genomes = np.asarray(population_, dtype=np.float32)
            cells = np.tile(state.cell_values, (len(genomes), 1)).astype(np.float32)
            task = Task(state.spec, genomes, cells, games, seed)
            t = time.perf_counter()
            outcome = play_task(task)
            times["play"].append(time.perf_counter() - t)
            for ind, row in zip(population_, outcome.scores):
                ind.fitness.values = (float(row.mean()),)
                ind.cell_values = state.cell_values.copy()
            t = time.perf_counter()
            reference = float(reference_scores(state.spec, games, seed).mean())
            times["expectimax"].append(time.perf_counter() - t)
            t = time.perf_counter()
            record(toolbox, state, population_, reference, t)
            times["hall_of_fame"].append(time.perf_counter() - t)
            t = time.perf_counter()
            toolbox.update(population_)
            times["update"].append(time.perf_counter() - t)
            t = time.perf_counter()
            RunDir(Path(tmp)).save_checkpoint(state)
            times["checkpoint"].append(time.perf_counter() - t)
    seconds = {k: float(np.median(v[1:])) for k, v in times.items()}
    return {
        "large_population": LARGE, "large_update_seconds": cma_seconds(state, LARGE, repeats),
        "population": population, "games": games, "genome_size": int(genomes.shape[1]),
        "seconds": seconds,
        "seconds_per_individual": seconds["play"] / population,
        "serial_seconds": sum(v for k, v in seconds.items() if k != "play"),
        "bytes_out": len(pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)),
        "bytes_back": len(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)),
        "load": os.getloadavg(),
    }


def dispatch_seconds(tasks: int = 400) -> float:
    """Seconds per task of the Ray actor pool on a local Ray with two actors, for tasks that do nothing."""
    from evolution.backends import ActorPool, ray_session

    with ray_session(2, "") as ray:
        pool = ActorPool(ray, 2, 1)
        pool.map(len, [b""] * 10)  # the actors are up
        started = time.perf_counter()
        pool.map(len, [b""] * tasks)
        seconds = (time.perf_counter() - started) / tasks
        pool.close()
    return seconds


def model(parts: dict, cores: tuple[int, ...] = (1, 8, 64, 512),
          shapes: tuple[tuple[int, int], ...] = ((50, 200), (512, 200), (512, 1000), (4096, 1000)),
          bandwidth: float = 125e6) -> list[dict]:
    """Seconds per generation and parallel efficiency on ``cores`` for (population, games) ``shapes``.

    T(W) = serial + ceil(P / W) * games * game + W * dispatch + bytes / bandwidth, where ``game`` is one
    game of one individual, ``serial`` the driver's part (expectimax scales with the games, the CMA-ES
    sample and update grow linearly in the population through the two measured points, the hall of
    fame and checkpoint are taken as measured), ``dispatch`` a task's round trip through the actor pool
    (one task per core, at most one per individual) and ``bytes`` what a generation's tasks (per
    individual) and outcomes (per individual and game) weigh, sent at 1 Gbit/s.
    """
    s = parts["seconds"]
    small = s["generate"] + s["update"]
    per_individual_update = max(0.0, (parts["large_update_seconds"] - small)
                                / (parts["large_population"] - parts["population"]))
    game = s["play"] / (parts["population"] * parts["games"])
    expectimax_game = s["expectimax"] / parts["games"]
    fixed = s["hall_of_fame"] + s["checkpoint"]
    out_bytes, back_bytes = parts["bytes_out"] / parts["population"], parts["bytes_back"] / parts["population"]
    rows = []
    for population, games in shapes:
        serial = fixed + expectimax_game * games + small + per_individual_update * (population - parts["population"])
        one = serial + population * games * game
        for w in cores:
            seconds = (serial + -(-population // w) * games * game + min(w, population) * parts["dispatch_seconds"]
                       + population * (out_bytes + back_bytes * games / parts["games"]) / bandwidth)
            rows.append({"population": population, "games": games, "cores": w, "seconds": round(seconds, 2),
                         "serial_share": round(serial / seconds, 3),
                         "efficiency": round(one / (w * seconds), 3)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="times every backend runs, in turn")
    parser.add_argument("--generations", type=int, default=3, help="generations of each run (the first is left out)")
    parser.add_argument("--population", type=int, default=50, help="parts: individuals (the full preset: 50)")
    parser.add_argument("--games", type=int, default=200, help="parts: games per individual (the full preset: 200)")
    parser.add_argument("--repeats", type=int, default=3, help="parts: generations timed")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--skip-parts", action="store_true")
    group.add_argument("--parts-only", action="store_true")
    group.add_argument("--model", metavar="FILE", help="print the model from a saved parts line and stop")
    args = parser.parse_args()
    if args.model:
        parts_ = json.loads(Path(args.model).read_text())["parts"]
        for row in model(parts_):
            print(json.dumps(row))
        return
    if not args.parts_only:
        results: dict[str, list[float]] = {name: [] for name in BACKENDS}
        for round_ in range(args.rounds):
            for name, settings in BACKENDS.items():
                gaps, first = seconds_per_generation(settings, args.generations)
                results[name] += gaps
                print(json.dumps({"round": round_, "backend": name, "seconds": gaps, "first": first,
                                  "load": os.getloadavg()}), flush=True)
        means = {name: float(np.mean(v)) for name, v in results.items()}
        print(json.dumps({"seconds_per_generation": means,
                          "ray_over_workers_2": means["ray 2"] / means["workers 2"],
                          "workers_1_over_workers_2": means["workers 1"] / means["workers 2"]}), flush=True)
    if not args.skip_parts:
        measured = {**parts(args.population, args.games, args.repeats), "dispatch_seconds": dispatch_seconds()}
        print(json.dumps({"parts": measured}), flush=True)
        for row in model(measured):
            print(json.dumps(row))


if __name__ == "__main__":
    main()
