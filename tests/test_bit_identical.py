"""Play is bit for bit what it was: every player kind on every preset, against recorded results.

The results in ``tests/data/bit_identical.json`` were recorded from commit
8bdff37 (before the evaluation speed-ups of issue 17) with

    PYTHONPATH=$PWD python tests/test_bit_identical.py --write            # or --write CASE ...: those alone

(``play/yamb/best``, ``play/jamb6/best`` and ``play/yatzy/best`` since newer
bots replaced those of 8bdff37, last the yamb, Yatzy and jamb6 bots the
polish recipe carried on, 2026-11-27: the same play code, other bots. The cases of ``direct-deep``
and ``population/direct/yamb-special`` were recorded from df2da3f, whose play
is 8bdff37's on every other case, before the direct player's kernels changed.
The six ``play/jamb6/`` cases of the search players (``expectimax``, ``-played``,
``-exact``, ``guided``, ``guided-played-exact``, ``best``) were recorded anew on
2026-11-29 with ``--write`` and their names, on purpose: the turn search plans a
pure hand again after a full reroll, so it may fill an announce cell with it.)

Each case plays fixed dice seeds and records a digest of the final scores and
of every cell of every game (so a single changed move fails), with the mean
score for a human reader; two short evolution runs record their logbooks and
best genomes, and endgames of the exact solver their values. A faster kernel
must reproduce them exactly: same random streams, same tie-breaking, same
floating-point results where they decide a move.

``tests/data/bit_identical_moves.json`` holds the moves those games took, so that
a failure names the first game and move that differ: every action of every game
of the ``play/`` cases, and a digest of each game's actions for the population
cases (their 2,000 games name the first game that differs, not its move). It was
recorded from 4d08c8e by a ``--write`` that found every case's results the ones
recorded and so kept ``bit_identical.json`` byte for byte (``--write`` rewrites
only the entries whose results changed).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from evolution import evaluate
from evolution.config import from_recipe, with_settings
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
MOVES = Path(__file__).parent / "data" / "bit_identical_moves.json"
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


class RecordingBatch(GameBatch):
    """A ``GameBatch`` that keeps each game's actions, in the order it takes them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moves: list[list[int]] = [[] for _ in range(self.n_games)]

    def step(self, actions: np.ndarray, games: np.ndarray, check: bool = True) -> None:
        super().step(actions, games, check)
        for g, a in zip(np.asarray(games).tolist(), np.asarray(actions).ravel().tolist()):
            self.moves[g].append(a)


def packed_moves(moves: list[list[int]]) -> dict:
    """Every action of every game, as 16-bit integers compressed into one string."""
    flat = np.array([a for game in moves for a in game], dtype="<u2")
    return {"lengths": [len(game) for game in moves],
            "actions": base64.b64encode(zlib.compress(flat.tobytes(), 9)).decode()}


def unpacked_moves(packed: dict) -> list[np.ndarray]:
    """Each game's actions from ``packed_moves``."""
    flat = np.frombuffer(zlib.decompress(base64.b64decode(packed["actions"])), dtype="<u2")
    return np.split(flat.astype(np.int64), np.cumsum(packed["lengths"])[:-1])


GAME_DIGEST = 8  # hex digits of a population game's digest


def game_digests(moves: list[list[int]]) -> str:
    """A short digest of each game's actions, one after another."""
    return "".join(digest(np.array(game, dtype="<u2"))[:GAME_DIGEST] for game in moves)


def first_move_difference(lay: Layout, recorded: list[np.ndarray], moves: list[np.ndarray]) -> str | None:
    """The first game and move where ``moves`` leave the ``recorded`` ones, said for a reader; None if none."""
    for g, (old, new) in enumerate(zip(recorded, moves)):
        n = min(len(old), len(new))
        differ = np.flatnonzero(old[:n] != new[:n])
        if len(differ) == 0 and len(old) == len(new):
            continue
        k = int(differ[0]) if len(differ) else n
        turn = int((old[:k] < lay.n_cells).sum())  # fills before the move: the turns played
        who = f", player {turn % lay.players}" if lay.players > 1 else ""

        def said(actions: np.ndarray) -> str:
            return lay.describe_action(actions[k]) if k < len(actions) else f"game over after {k} moves"

        return (f"game {g} first differs at move {k} (turn {turn}{who}; counted from 0): "
                f"recorded {said(old)!r}, played {said(new)!r}")
    return None


def first_game_difference(recorded: str, digests: str) -> str | None:
    """The first (member, game) of a population whose digest of moves differs; None if none."""
    for i in range(0, max(len(recorded), len(digests)), GAME_DIGEST):
        if recorded[i:i + GAME_DIGEST] != digests[i:i + GAME_DIGEST]:
            member, game = divmod(i // GAME_DIGEST, MEMBER_GAMES)
            return (f"member {member}'s game {game} is the first whose moves differ (counted from 0; "
                    f"a population case records a digest of each game's moves, not the moves)")
    return None


def first_logbook_difference(recorded: list[dict], logbook: list[dict]) -> str | None:
    """The first generation and column where ``logbook`` leaves the ``recorded`` one; None if none."""
    for gen, (old, new) in enumerate(zip(recorded, logbook)):
        for column in LOGBOOK_SCORES:
            if old[column] != new[column]:
                return f"generation {gen} first differs in {column}: recorded {old[column]!r}, now {new[column]!r}"
    if len(recorded) != len(logbook):
        return f"{len(logbook)} generations, recorded {len(recorded)}"
    return None


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


def played(lay: Layout, player_name: str, games: int = GAMES) -> tuple[dict, dict]:
    """Scores and cells of ``games`` games on ``lay``, every seat played by ``player_name``, and the moves."""
    if player_name in NETWORKS:
        spec, g, values = neural(player_name, lay)
        player = population_player(spec, g, values)
    else:
        player = make_player(player_name, lay)
    batch = RecordingBatch(lay, games, seed=SEED, streams=np.arange(games, dtype=np.uint64))
    scores = play(batch, [player] * lay.players, check=True)
    return ({"mean": float(scores.mean()), "scores": digest(scores.astype(np.int64)),
             "cells": digest(batch.cells.astype(np.int64))}, packed_moves(batch.moves))


def population(player_name: str, table_name: str = "yamb") -> tuple[dict, str]:
    """A population of ``MEMBERS`` networks on ``MEMBER_GAMES`` games each, as evolution plays it,
    and a digest of each game's moves."""
    lay = table(table_name)
    spec, g, values = neural(player_name, lay, MEMBERS)
    batches: list[RecordingBatch] = []

    def recording_batch(*args, **kwargs) -> RecordingBatch:
        batches.append(RecordingBatch(*args, **kwargs))
        return batches[-1]

    with mock.patch.object(evaluate, "GameBatch", recording_batch):  # the batch play_task plays
        out = play_task(Task(spec, g, values, MEMBER_GAMES, seed=SEED))
    (batch,) = batches
    return ({"mean": float(out.scores.mean()), "scores": digest(out.scores.astype(np.int64)),
             "cell_sums": digest(out.cell_sums)}, game_digests(batch.moves))


def evolution_run(name: str) -> tuple[dict, None]:
    """The logbook's scores (``LOGBOOK_SCORES`` of every generation) and the hall of fame of a tiny run."""
    preset = "direct" if name.startswith("quick") else "full"  # 8bdff37's "quick" is main's "direct"
    config = with_settings(from_recipe(preset), TINY_RUNS[name])
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        evolve(start(config, run_dir), run_dir)
        logbook = pd.read_csv(run_dir / "logbook.csv")[list(LOGBOOK_SCORES)]
        with np.load(run_dir / "hall_of_fame.npz") as hall:
            hall_genomes = hall["genomes"]
    return ({"logbook": json.loads(logbook.to_json(orient="records", double_precision=15)),
             "hall_of_fame": digest(hall_genomes)}, None)


def endgame(name: str) -> tuple[dict, None]:
    preset, joker, filled = ENDGAMES[name]
    solution = solve_solitaire(rules(preset, joker=joker), filled=filled)
    return {"values": digest(np.nan_to_num(solution.values, nan=-1.0))}, None


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


def run(case: tuple) -> tuple[dict, dict | str | None]:
    """A case's results, and its moves (none for the evolution runs and endgames)."""
    function, *args = case
    if function is played:
        return played(table(args[0]), *args[1:])
    return function(*args)


def recorded() -> dict:
    return json.loads(DATA.read_text())


def recorded_moves() -> dict:
    return json.loads(MOVES.read_text())


def comparable(name: str, entry: dict) -> dict:
    """A recorded entry as a run gives it: the logbooks' scores, whatever columns the logbook has gained."""
    if name.startswith("evolution/"):
        return {**entry, "logbook": [{k: row[k] for k in LOGBOOK_SCORES} for row in entry["logbook"]]}
    return entry


def first_difference(name: str, expected: dict, result: dict, moves: dict | str | None) -> str | None:
    """Where a case's run first leaves its record, said for a reader; None if it does not."""
    case = cases()[name]
    if case[0] is played:
        where = first_move_difference(table(case[1]), unpacked_moves(recorded_moves()[name]), unpacked_moves(moves))
    elif case[0] is population:
        where = first_game_difference(recorded_moves()[name], moves)
    elif case[0] is evolution_run:
        where = first_logbook_difference(expected["logbook"], result["logbook"])
    else:
        where = None
    return where or (None if result == expected else f"recorded {expected}, now {result}")


@pytest.mark.parametrize("name", list(cases()))
def test_play_is_bit_identical_to_the_recorded_results(name: str) -> None:
    expected = comparable(name, recorded()[name])
    result, moves = run(cases()[name])
    difference = first_difference(name, expected, result, moves)
    if difference is not None:
        pytest.fail(f"{name}: {difference}", pytrace=False)


def write(names: list[str]) -> None:
    """Record the cases ``names`` (every case if none) from the current code; a case whose results are
    the recorded ones keeps its entry, and the cases not named keep theirs and their moves."""
    old, old_moves = (recorded(), recorded_moves()) if DATA.exists() else ({}, {})
    unknown = sorted(set(names) - set(cases()))
    if unknown:
        sys.exit(f"no recorded case {', '.join(unknown)}")
    results, moves = (dict(old), dict(old_moves)) if names else ({}, {})
    for name, case in cases().items():
        if names and name not in names:
            continue
        result, moves[name] = run(case)
        same = name in old and comparable(name, old[name]) == result
        results[name] = old[name] if same else result
        print(name, result.get("mean", ""), "as recorded" if same else "RECORDED ANEW", flush=True)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    MOVES.write_text(json.dumps({k: v for k, v in moves.items() if v is not None}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: PYTHONPATH=$PWD python tests/test_bit_identical.py --write [CASE ...]")
    write(sys.argv[2:])
