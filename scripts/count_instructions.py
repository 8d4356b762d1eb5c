"""Instructions a search player runs for its games, counted by valgrind's callgrind: a measure
of speed that the machine's load does not move.

    git worktree add --detach ../old 4d08c8e
    python -m scripts.count_instructions --trees old=../old new=. --player expectimax --games 250
    python -m scripts.count_instructions --trees new=. --player guided

Each tree runs in its own process under ``valgrind --tool=callgrind --instr-atstart=no``, with
``PYTHONPATH`` and the working folder set to it, one numba thread and its own cache home (as
``scripts.bench_side_by_side``). The process builds the player and plays 10 games uncounted (the
kernels are compiled or loaded first, natively, without valgrind), then switches counting on for
the games measured and off after them (``callgrind_control -i``). Players: the registry's (``yamb``
preset, batches of 250), or ``guided``: 20 guided networks x 15 games, as evolution plays them.
The figure is the total of the counted part, the Python around the kernels included.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def play(name: str, games: int, counting: bool) -> None:
    """Build ``name`` in this process's tree, warm it up, and play ``games`` games, counted when
    ``counting`` (under callgrind)."""
    import torch

    torch.set_num_threads(1)

    def switch(state: str) -> None:
        if counting:
            subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True, capture_output=True)

    if name == "guided":
        import numpy as np

        from evolution.evaluate import Task, play_task
        from robo_players.neural.networks import NetSpec
        from yamb.layout import layout
        from yamb.rules import rules

        lay = layout(rules("yamb"))
        spec = NetSpec.for_layout("guided", lay, (16,))
        rng = np.random.default_rng(0)
        net = spec.build()
        genomes = np.stack([net.initial_genome(rng) for _ in range(20)])
        genomes = (genomes + 0.01 * rng.standard_normal(genomes.shape)).astype(np.float32)
        values = np.full((20, lay.n_cells), 10.0, dtype=np.float32)
        play_task(Task(spec, genomes[:2], values[:2], 20, seed=0))
        switch("on")
        play_task(Task(spec, genomes, values, max(1, games // 20), seed=1))
        switch("off")
        return
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
    switch("on")
    simulate(lay, player, games, seed=2, batch_size=250, check=False)
    switch("off")


def count(tree: str, label: str, name: str, games: int) -> int:
    """Instructions of ``games`` games of ``name`` in ``tree``."""
    from scripts.bench_side_by_side import CACHES

    env = {**os.environ, "PYTHONPATH": tree, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "XDG_CACHE_HOME": str(CACHES / label)}
    env.pop("NUMBA_CACHE_DIR", None)
    me = [sys.executable, __file__, "--worker", name, "--games", str(games)]
    warm = subprocess.run([*me, "--native"], cwd=tree, env=env, capture_output=True, text=True, check=False)
    if warm.returncode:
        raise SystemExit(f"{name} failed in {tree}:\n{warm.stderr[-3000:]}")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                               *me], cwd=tree, env=env, capture_output=True, text=True, check=False)
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")] if out.exists() else []
        if done.returncode or not totals:
            raise SystemExit(f"{name} under callgrind failed in {tree}:\n{done.stderr[-3000:]}")
    return int(totals[0].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", help="label=path of each worktree (required)")
    parser.add_argument("--player", default="expectimax")
    parser.add_argument("--games", type=int, default=250)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--native", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        play(args.worker, args.games if not args.native else 10, counting=not args.native)
        return
    if not args.trees:
        parser.error("give --trees label=path ...")
    if not shutil.which("valgrind"):
        parser.error("valgrind is not installed (apt-get install valgrind)")
    figures = {}
    for label, tree in (t.split("=", 1) for t in args.trees):
        figures[label] = count(tree, label, args.player, args.games)
        first = next(iter(figures.values()))
        print(f"{label:6s} {args.player} {args.games} games: {figures[label]:,} instructions"
              f" ({figures[label] / first:.3f} of the first)", flush=True)


if __name__ == "__main__":
    main()
