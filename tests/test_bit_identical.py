"""Play is bit for bit what it was: every player kind on every preset, against recorded results.

The results in ``tests/data/bit_identical.json`` were recorded from commit
8bdff37 (before the evaluation speed-ups of issue 17) with

    PYTHONPATH=$PWD python tests/test_bit_identical.py --write

(``play/yamb/best`` and ``play/jamb6/best`` since newer bots replaced those of
8bdff37, last the bots fitted to the returns of play of 2026-11-25 and the
jamb6 bot of 2026-11-26: the same play code, other bots. The cases of ``direct-deep``
and ``population/direct/yamb-special`` were recorded from df2da3f, whose play
is 8bdff37's on every other case, before the direct player's kernels changed.)

Each case plays fixed dice seeds and records a digest of the final scores and
of every cell of every game (so a single changed move fails), with the mean
score for a human reader; two short evolution runs record their logbooks and
best genomes, and endgames of the exact solver their values. A faster kernel
must reproduce them exactly: same random streams, same tie-breaking, same
floating-point results where they decide a move.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evolution.config import from_preset, with_settings
from evolution.evaluate import Task, play_task
from evolution.run import evolve, start
from expected_scores.solitaire import solve_solitaire
from robo_players.base import play
from robo_players.neural.build import population_player
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import genome_size
from robo_players.registry import make_player
from yamb.engine import GameBatch
from yamb.layout import Layout, layout
from yamb.rules import rules

DATA = Path(__file__).parent / "data" / "bit_identical.json"
GAMES = 24
SEED = 20261124

# name: (preset, rules options, columns, players)
TABLES = {
    "yamb": ("yamb", {}, None, 1),
    "yamb-6dice": ("yamb", {"dice": 6}, None, 1),
    "jamb6": ("jamb6", {}, None, 1),
    "yatzy": ("yatzy", {}, None, 1),
    "yahtzee": ("yahtzee", {}, None, 1),
    "yahtzee-forced": ("yahtzee", {"joker": "forced"}, None, 1),
    "yamb-special": ("yamb", {}, ("hand", "middle", "late_announce", "updown", "announce"), 1),
    "yamb-2players": ("yamb", {}, ("down", "free", "counter_announce"), 2),
}
PLAYERS = ("random", "greedy", "smart", "expectimax", "expectimax-played", "expectimax-exact")
# neural players: kind, hidden sizes, played blend, bonus model
NETWORKS = {
    "direct": ("direct", (16,), 0.0, "normal"),
    "direct-deep": ("direct", (8, 8), 0.0, "normal"),
    "guided": ("guided", (8,), 0.0, "normal"),
    "guided-played-exact": ("guided", (8,), 0.6, "exact"),
}
BEST = ("yamb", "yatzy", "yahtzee", "jamb6")  # tables with a shipped bot
OPTIMAL = ("yatzy", "yahtzee", "yahtzee-forced")
MEMBERS, MEMBER_GAMES = 20, 100  # a population batch of 2000 games: the kernels' parallel path
ENDGAMES = {"yatzy": ("yatzy", None, 0b000111111000111), "yahtzee": ("yahtzee", None, 0b0011100111111),
            "yahtzee-forced": ("yahtzee", "forced", 0b1100011001111)}
TINY_RUNS = {
    "quick-direct-ga": dict(population=6, games=3, generations=3, hidden="4", final_games=8,
                            hall_of_fame=2, elite=1),
    "full-guided-cma": dict(population=6, games=3, generations=3, hidden="2", final_games=8,
                            hall_of_fame=2, game="yatzy", bonus="exact"),
}


LOGBOOK_SCORES = ("avg", "std", "min", "max", "expectimax")  # the logbook's other columns are labels and times


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:20]


def table(name: str) -> Layout:
    preset, options, columns, players = TABLES[name]
    return layout(rules(preset, **options), columns, players)


def genomes(spec: NetSpec, members: int, seed: int) -> np.ndarray:
    """Fixed random genomes with noise on every weight, so every weight changes some moves."""
    rng = np.random.default_rng(seed)
    net = spec.build()
    base = np.stack([net.initial_genome(rng) for _ in range(members)])
    return (base + 0.1 * rng.standard_normal((members, genome_size(net)))).astype(np.float32)


def neural(name: str, lay: Layout, members: int = 1):
    kind, hidden, played, bonus = NETWORKS[name]
    spec = NetSpec.for_layout(kind, lay, hidden, played, bonus)
    values = np.random.default_rng(1).uniform(0, 20, (members, lay.n_cells)).astype(np.float32)
    return spec, genomes(spec, members, seed=7), values


def played(lay: Layout, player_name: str, games: int = GAMES) -> dict:
    """Scores and cells of ``games`` games on ``lay``, every seat played by ``player_name``."""
    if player_name in NETWORKS:
        spec, g, values = neural(player_name, lay)
        player = population_player(spec, g, values)
    else:
        player = make_player(player_name, lay)
    batch = GameBatch(lay, games, seed=SEED, streams=np.arange(games, dtype=np.uint64))
    scores = play(batch, [player] * lay.players, check=True)
    return {"mean": float(scores.mean()), "scores": digest(scores.astype(np.int64)),
            "cells": digest(batch.cells.astype(np.int64))}


def population(player_name: str, table_name: str = "yamb") -> dict:
    """A population of ``MEMBERS`` networks on ``MEMBER_GAMES`` games each, as evolution plays it."""
    lay = table(table_name)
    spec, g, values = neural(player_name, lay, MEMBERS)
    out = play_task(Task(spec, g, values, MEMBER_GAMES, seed=SEED))
    return {"mean": float(out.scores.mean()), "scores": digest(out.scores.astype(np.int64)),
            "cell_sums": digest(out.cell_sums)}


def evolution_run(name: str) -> dict:
    """The logbook's scores (``LOGBOOK_SCORES`` of every generation) and the hall of fame of a tiny run."""
    preset = "direct" if name.startswith("quick") else "full"  # 8bdff37's "quick" is main's "direct"
    config = with_settings(from_preset(preset), TINY_RUNS[name])
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        evolve(start(config, run_dir), run_dir)
        logbook = pd.read_csv(run_dir / "logbook.csv")[list(LOGBOOK_SCORES)]
        with np.load(run_dir / "hall_of_fame.npz") as hall:
            hall_genomes = hall["genomes"]
    return {"logbook": json.loads(logbook.to_json(orient="records", double_precision=15)),
            "hall_of_fame": digest(hall_genomes)}


def endgame(name: str) -> dict:
    preset, joker, filled = ENDGAMES[name]
    solution = solve_solitaire(rules(preset, joker=joker), filled=filled)
    return {"values": digest(np.nan_to_num(solution.values, nan=-1.0))}


def cases() -> dict[str, tuple]:
    """Every recorded case: name to (function, arguments)."""
    out: dict[str, tuple] = {}
    for t in TABLES:
        networks = tuple(NETWORKS) if TABLES[t][3] == 1 else ()  # networks play solitaire tables
        for p in PLAYERS + networks:
            out[f"play/{t}/{p}"] = (played, t, p)
        if t in BEST:
            out[f"play/{t}/best"] = (played, t, "best")
        if t in OPTIMAL:
            out[f"play/{t}/optimal"] = (played, t, "optimal")
    out["play/yatzy/montecarlo"] = (played, "yatzy", "montecarlo", 4)
    for n in NETWORKS:
        out[f"population/{n}"] = (population, n)
    out["population/direct/yamb-special"] = (population, "direct", "yamb-special")
    for e in ENDGAMES:
        out[f"endgame/{e}"] = (endgame, e)
    for r in TINY_RUNS:
        out[f"evolution/{r}"] = (evolution_run, r)
    return out


def run(case: tuple) -> dict:
    function, *args = case
    if function is played:
        return played(table(args[0]), *args[1:])
    return function(*args)


def recorded() -> dict:
    return json.loads(DATA.read_text())


@pytest.mark.parametrize("name", list(cases()))
def test_play_is_bit_identical_to_the_recorded_results(name: str) -> None:
    expected = recorded()[name]
    if name.startswith("evolution/"):  # compare the scores, whatever columns the logbook has gained
        expected["logbook"] = [{k: row[k] for k in LOGBOOK_SCORES} for row in expected["logbook"]]
    assert run(cases()[name]) == expected


def write() -> None:
    """Record every case from the current code."""
    results = {}
    for name, case in cases().items():
        results[name] = run(case)
        print(name, results[name].get("mean", ""), flush=True)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: PYTHONPATH=$PWD python tests/test_bit_identical.py --write")
    write()
