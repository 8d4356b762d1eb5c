"""Games per CPU-second of the search players in several worktrees, side by side, alternately.

    git worktree add --detach ../old 4d08c8e                 # each commit to compare, in a worktree
    python -m scripts.bench_side_by_side --rounds 3 --trees old=../old new=.
    python -m scripts.bench_side_by_side --players best --rounds 5 --trees old=../old new=.
    python -m scripts.bench_side_by_side --instructions --players expectimax guided --scale 0.02 --trees old=../old new=.

Each (round, player, tree) is its own process, with ``PYTHONPATH`` and the working folder set to the tree,
one numba thread (``NUMBA_NUM_THREADS=1``, torch one thread) and batches below ``yamb.engine.PARALLEL_GAMES``,
so every run is single-threaded. The trees run alternately (their order rotated each round), so the load of a
shared machine falls on all of them alike; ``os.getloadavg()`` is printed beside each figure. Each tree has a
cache home of its own (``XDG_CACHE_HOME``: the project names its numba cache folder after a hash of its
sources, so an edited tree never loads stale kernels). The first run in a tree compiles its kernels.

With ``--instructions`` each (player, tree) runs once more under valgrind's callgrind
(``--instr-atstart=no``; after an uncounted run that compiles or loads the kernels natively), counting
switched on for the timed games alone (``callgrind_control -i``): the instructions they take, Python
around the kernels included, a figure that the machine's load does not move. Scale the games down
(``--scale 0.02``): callgrind runs about 50 times slower.

Players (preset yamb, its standard table):

* ``expectimax``: the registry's.
* ``guided``: a population of guided networks (as ``scripts/bench_neural.py``: hidden 16, seeded noise),
  20 networks x 50 games in one batch, as evolution plays them.
* ``best``, ``best+lookahead``: the registry's shipped bot; every tree must hold the same bot (the sha256 of
  its weights is checked; an older tree that reads only file version 2 holds the same arrays rewritten as
  version 2).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAYERS = ("expectimax", "guided", "best", "best+lookahead")
GAMES = {"expectimax": 12000, "guided": 3000, "best": 3000, "best+lookahead": 200}
BATCH = {"expectimax": 1000, "best": 1000, "best+lookahead": 100}
CACHES = Path.home() / ".cache" / "yamb-bench"  # one cache home per tree


def bot_sha() -> str:
    """The sha256 (first 12 digits) of the weights and cell values of the yamb bot the registry's ``best``
    reads in this tree (an older tree reads an older file version: the same arrays, other metadata)."""
    from robo_players.neural.bots import BOTS_DIR, bot_name
    from robo_players.neural.files import load_weights
    from yamb.layout import layout
    from yamb.rules import rules

    w = load_weights(BOTS_DIR / bot_name(layout(rules("yamb"))))
    return hashlib.sha256(w.genome.tobytes() + w.cell_values.tobytes()).hexdigest()[:12]


def time_guided(games: int) -> tuple[int, float]:
    """Games and CPU seconds of guided populations: 20 networks x 50 games a batch."""
    import numpy as np

    from evolution.evaluate import Task, play_task
    from robo_players.neural.networks import NetSpec
    from yamb.layout import layout
    from yamb.rules import rules

    lay = layout(rules("yamb"))
    spec = NetSpec.for_layout("guided", lay, (16,))
    rng = np.random.default_rng(0)
    net = spec.build()
    members = 20
    each = max(1, min(50, games // members))  # 50 games a member, fewer when scaled down
    genomes = np.stack([net.initial_genome(rng) for _ in range(members)])
    genomes = (genomes + 0.01 * rng.standard_normal(genomes.shape)).astype(np.float32)
    values = np.full((members, lay.n_cells), 10.0, dtype=np.float32)
    play_task(Task(spec, genomes[:2], values[:2], 20, seed=0))  # compile and warm up
    batches = max(1, games // (members * each))
    counting(True)
    cpu = time.process_time()
    for b in range(batches):
        play_task(Task(spec, genomes, values, each, seed=b + 1))
    cpu = time.process_time() - cpu
    counting(False)
    return batches * members * each, cpu


def time_player(name: str, games: int) -> tuple[int, float]:
    """Games and CPU seconds of the registry's player ``name`` (warmed up first)."""
    from robo_players.registry import make_player

    try:  # the tree's own path: robo_players/measure/simulate.py since the modules moved
        from robo_players.measure.simulate import simulate
    except ModuleNotFoundError:
        from robo_players.simulate import simulate
    from yamb.layout import layout
    from yamb.rules import rules

    lay = layout(rules("yamb"))
    player = make_player(name, lay)
    simulate(lay, player, 10, seed=1, check=False)
    counting(True)
    cpu = time.process_time()
    simulate(lay, player, games, seed=2, batch_size=min(BATCH[name], games), check=False)
    cpu = time.process_time() - cpu
    counting(False)
    return games, cpu


def counting(on: bool) -> None:
    """Switch callgrind's counting of this process on or off (when it runs under callgrind)."""
    if os.environ.get("BENCH_UNDER_CALLGRIND"):
        subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], check=True,
                       capture_output=True)


def worker(name: str, games: int) -> None:
    """Time ``name`` in this process's tree and print one JSON line."""
    import numba
    import torch

    torch.set_num_threads(1)
    assert numba.get_num_threads() == 1
    done, cpu = time_guided(games) if name == "guided" else time_player(name, games)
    print(json.dumps({"player": name, "games": done, "cpu_seconds": round(cpu, 3),
                      "games_per_cpu_second": round(done / cpu, 1), "load": os.getloadavg()[0],
                      "bot_sha": bot_sha()}))


def run(tree: str, label: str, name: str, games: int, callgrind: Path | None = None) -> dict:
    """One worker process for ``name`` in ``tree``; under callgrind, writing to ``callgrind``, if given."""
    env = {**os.environ, "PYTHONPATH": tree, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "XDG_CACHE_HOME": str(CACHES / label)}
    env.pop("NUMBA_CACHE_DIR", None)
    command = [sys.executable, __file__, "--worker", name, "--games", str(games)]
    if callgrind is not None:
        env["BENCH_UNDER_CALLGRIND"] = "1"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={callgrind}",
                   *command]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{name} failed in {tree}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def instructions(tree: str, label: str, name: str, games: int) -> tuple[int, int]:
    """The instructions of about ``games`` games of ``name`` in ``tree`` (callgrind's total of the counted
    part), and the games played (a guided run plays whole batches)."""
    run(tree, label, name, 10 if name != "guided" else 20)  # compile or load the kernels natively first
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        played = run(tree, label, name, games, out)["games"]
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
    return int(totals[0].split()[1]), played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", nargs="+", default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--trees", nargs="+", help="label=path of each worktree (required)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="times the default games")
    parser.add_argument("--warm", action="store_true", help="one untimed run per player and tree first (compile)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each player's instructions in each tree by callgrind instead of timing")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.games)
        return
    if not args.trees:
        parser.error("give --trees label=path ...")
    trees = dict(t.split("=", 1) for t in args.trees)
    labels = list(trees)
    if args.instructions:
        if not shutil.which("valgrind"):
            parser.error("--instructions needs valgrind (apt-get install valgrind)")
        for name in args.players:
            counted = {label: instructions(trees[label], label, name, int(GAMES[name] * args.scale))
                       for label in labels}
            counts = {label: n for label, (n, _) in counted.items()}
            played = sorted({games for _, games in counted.values()})
            print(f"| {name} ({'/'.join(map(str, played))} games) | "
                  + " | ".join(f"{counts[label]:,}" for label in labels) + " | "
                  + " | ".join(f"{counts[x] / counts[labels[0]]:.3f}" for x in labels[1:]) + " |", flush=True)
        return
    if args.warm:
        for name in args.players:
            for label in labels:
                start = time.time()
                r = run(trees[label], label, name, 10 if name != "guided" else 1000)
                print(f"warm {name:15s} {label:4s} {time.time() - start:6.1f} s wall  bot {r['bot_sha']}",
                      flush=True)
    figures: dict[str, dict[str, list[dict]]] = {n: {label: [] for label in labels} for n in args.players}
    for r in range(args.rounds):
        order = labels[r % len(labels):] + labels[:r % len(labels)]
        for name in args.players:
            for label in order:
                out = run(trees[label], label, name, int(GAMES[name] * args.scale))
                figures[name][label].append(out)
                print(f"round {r + 1} {name:15s} {label:4s} {out['games_per_cpu_second']:9.1f} games/cpu-s "
                      f"({out['games']} games, {out['cpu_seconds']:.1f} cpu-s) load {out['load']:.2f} "
                      f"bot {out['bot_sha']}", flush=True)
    if not args.rounds:
        return
    print()
    print("| player | " + " | ".join(labels) + " | " + " | ".join(f"{x}/{labels[0]}" for x in labels[1:])
          + " | load |")
    print("|---" * (2 * len(labels) + 1) + "|")
    for name in args.players:
        med = {label: statistics.median(o["games_per_cpu_second"] for o in figures[name][label]) for label in labels}
        loads = [o["load"] for runs in figures[name].values() for o in runs]
        cells = [f"{med[label]:,.1f} ({', '.join(str(o['games_per_cpu_second']) for o in figures[name][label])})"
                 for label in labels]
        ratios = [f"{med[x] / med[labels[0]]:.3f}" for x in labels[1:]]
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(ratios)
              + f" | {min(loads):.1f} to {max(loads):.1f} |")
    shas = {o["bot_sha"] for runs in figures.get("best", {}).values() for o in runs}
    if len(shas) > 1:
        print(f"WARNING: the trees' bot files differ: {shas}")


if __name__ == "__main__":
    main()
