"""The exact Yatzy solve against a compiled single-threaded C solver of the same rules, in one run.

    python -m scripts.bench_solver                 # 3 alternating runs of each
    python -m scripts.bench_solver --repeats 5 --threads 1 --cflags "-O3 -march=native"

Compiles ``scripts/bench_solver_c/yatzy.c`` with ``gcc -O2`` (or ``--cflags``), checks that it
finds the optimum 248.4400, then times it and ``solve_solitaire`` (numba,
``--threads`` threads, compile excluded) alternately. Prints each time with
the load average, the medians and their ratio (solver / C): the machine is
shared, so the ratio is the figure to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

C_SOURCE = Path(__file__).resolve().parent / "bench_solver_c" / "yatzy.c"
OPTIMUM = "248.4400"


def compile_c(folder: Path, flags: list[str]) -> Path:
    binary = folder / "yatzy"
    subprocess.run(["gcc", *flags, "-o", str(binary), str(C_SOURCE)], check=True)
    return binary


def time_c(binary: Path) -> float:
    result = json.loads(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout)
    if f"{result['expected_score']:.4f}" != OPTIMUM:
        raise SystemExit(f"the C solver found {result['expected_score']}, not {OPTIMUM}")
    return float(result["seconds"])


def time_numba() -> float:
    from expected_scores.solitaire import solve_solitaire
    from yamb.rules import rules

    start = time.perf_counter()
    solution = solve_solitaire(rules("yatzy"))
    seconds = time.perf_counter() - start
    if f"{solution.expected_score:.4f}" != OPTIMUM:
        raise SystemExit(f"solve_solitaire found {solution.expected_score}, not {OPTIMUM}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    parser.add_argument("--cflags", default="-O2", help='gcc flags (default -O2; e.g. "-O3 -march=native")')
    args = parser.parse_args()
    import numba

    from expected_scores.solitaire import solve_solitaire
    from yamb.rules import rules

    if args.threads:
        numba.set_num_threads(args.threads)
    solve_solitaire(rules("yatzy"), filled=(1 << 15) - 1 - 0b111)  # compile (a three-row endgame)
    times: dict[str, list[float]] = {"c": [], "numba": []}
    with tempfile.TemporaryDirectory() as tmp:
        binary = compile_c(Path(tmp), args.cflags.split())
        for _ in range(args.repeats):
            for name, timer in (("c", lambda: time_c(binary)), ("numba", time_numba)):
                times[name].append(timer())
                print(f"{name:6s} {times[name][-1]:8.3f} s  load {os.getloadavg()[0]:.2f}", flush=True)
    c, nb = statistics.median(times["c"]), statistics.median(times["numba"])
    print(json.dumps({"c_seconds": c, "numba_seconds": nb, "ratio": round(nb / c, 2),
                      "threads": numba.get_num_threads(), "cflags": args.cflags, "load": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
