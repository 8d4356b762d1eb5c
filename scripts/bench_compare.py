"""The same benchmarks on an older commit and on this tree, side by side in one run, with their ratios.

    python -m scripts.bench_compare                          # every benchmark against 8bdff37
    python -m scripts.bench_compare --old main --only guided solve --repeats 5
    python -m scripts.bench_compare --new HEAD               # a commit instead of the working tree

The older commit is checked out in a temporary ``git worktree`` (removed at the
end). Each benchmark runs alternately in the old and the new tree (old, new,
old, new, ...), as its own process with ``PYTHONPATH`` and the working folder
set to that tree and a numba cache and solution cache of its own, after one
untimed run in each that compiles the kernels. Each figure is the median of
the repeats; the claim is the ratio new / old (for times, old / new). Each
run's process CPU time (user + system, the same work in both trees: imports,
loading the compiled kernels, warm-up and the timed part) is measured too:
on a busy shared machine, where other jobs take the cores at random moments,
its ratio old / new is much steadier than that of the wall-clock figures.
The load average is printed beside every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "8bdff37"  # the commit before the evaluation speed-ups (issue 17)


@dataclass(frozen=True)
class Benchmark:
    """A command whose last output line is JSON; ``key`` is the path of the figure in it."""

    argv: tuple[str, ...]
    key: tuple[str, ...]
    unit: str
    higher_is_better: bool = True


BENCHMARKS = {
    "guided": Benchmark(("-m", "scripts.bench_neural", "--threads", "2", "--kind", "guided"),
                        ("games_per_second",), "games/s"),
    "direct": Benchmark(("-m", "scripts.bench_neural", "--threads", "2", "--kind", "direct"),
                        ("games_per_second",), "games/s"),
    "expectimax": Benchmark(("-m", "scripts.bench_players", "--players", "expectimax", "--json"),
                            ("players", "expectimax", "games_per_cpu_second"), "games/cpu-s"),
    "lookahead": Benchmark(("-m", "scripts.bench_players", "--players", "best+lookahead", "--games", "150", "--json"),
                           ("players", "best+lookahead", "games_per_cpu_second"), "games/cpu-s"),
    "lookahead-jamb6": Benchmark(("-m", "scripts.bench_players", "--players", "best+lookahead", "--preset", "jamb6",
                                  "--games", "60", "--json"),
                                 ("players", "best+lookahead", "games_per_cpu_second"), "games/cpu-s"),
    "solve": Benchmark(("-m", "yamb", "solve", "--preset", "yatzy", "--json"), ("seconds",), "s", False),
    "engine": Benchmark(("-m", "yamb", "bench", "--json", "--games", "40000", "--repeat", "2"),
                        ("games_per_second",), "games/s"),
}


def run(tree: Path, caches: Path, bench: Benchmark) -> tuple[float, float]:
    """One run of ``bench`` in ``tree``: its figure, and the CPU seconds of the whole process."""
    env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(caches / "numba"),
           "YAMB_CACHE": str(caches / "solutions")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, *bench.argv], cwd=tree, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(bench.argv)} failed in {tree}:\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    value = json.loads(done.stdout.strip().splitlines()[-1])
    for part in bench.key:
        value = value[part]
    return float(value), cpu


def load() -> float:
    return os.getloadavg()[0]


def worktree(commit: str, into: Path) -> Path:
    """A detached worktree of ``commit`` under ``into``."""
    path = into / f"tree-{commit}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit],
                   check=True, capture_output=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default=BASELINE, help=f"commit to compare with (default {BASELINE})")
    parser.add_argument("--new", default=None, help="commit to measure instead of this working tree")
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), help="default: every benchmark")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs in each tree (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="yamb-bench-") as tmp:
        tmp_path = Path(tmp)
        old = worktree(args.old, tmp_path)
        new = worktree(args.new, tmp_path) if args.new else ROOT
        try:
            trees = {"old": old, "new": new}
            results = {}
            for name in args.only or list(BENCHMARKS):
                bench = BENCHMARKS[name]
                for label, tree in trees.items():  # compile the kernels, untimed
                    run(tree, tmp_path / label, bench)
                figures: dict[str, list[tuple[float, float, float]]] = {"old": [], "new": []}
                for _ in range(args.repeats):
                    for label, tree in trees.items():
                        value, cpu = run(tree, tmp_path / label, bench)
                        figures[label].append((value, cpu, load()))
                        print(f"{name:10s} {label}: {value:12,.3f} {bench.unit}  process CPU {cpu:7.2f} s  "
                              f"load {figures[label][-1][2]:.2f}", flush=True)
                median = {label: statistics.median(v for v, _, _ in runs) for label, runs in figures.items()}
                cpu = {label: statistics.median(c for _, c, _ in runs) for label, runs in figures.items()}
                ratio = median["new"] / median["old"] if bench.higher_is_better else median["old"] / median["new"]
                results[name] = {"old": median["old"], "new": median["new"], "unit": bench.unit,
                                 "speed-up": round(ratio, 3), "old_cpu_seconds": cpu["old"],
                                 "new_cpu_seconds": cpu["new"], "cpu_ratio": round(cpu["old"] / cpu["new"], 3),
                                 "load": [round(x, 2) for _, _, x in figures["old"] + figures["new"]]}
                print(f"{name:10s} old {median['old']:,.3f}  new {median['new']:,.3f} {bench.unit}  "
                      f"speed-up {ratio:.2f}x; process CPU old {cpu['old']:.1f} s new {cpu['new']:.1f} s: "
                      f"{cpu['old'] / cpu['new']:.2f}x", flush=True)
            print(json.dumps({"old": args.old, "new": args.new or "working tree", "results": results}))
        finally:
            for tree in {old, new} - {ROOT}:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False,
                               capture_output=True)


if __name__ == "__main__":
    main()
