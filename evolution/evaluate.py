"""Playing a population: one batched pass per chunk of individuals, all on the same dice.

A ``Task`` is a chunk of the population with the dice seed of the generation.
Every member of a task plays the dice streams ``0 .. games-1`` under that seed
(common random numbers), so a member's scores do not depend on the chunk it
is in, nor on the number of worker processes. ``toolbox.map`` runs the tasks:
in the process, in a process pool (``--workers``) or on Ray actors
(``--backend ray``); see ``evolution/backends.py``.

With ``luck`` (a search player's name, ``robo_players.measure.luck``) each game's luck
is counted as well: the loops select on the scores less their luck, which
have the same expectation and a fraction of the noise.

With the objective ``win`` (a task's ``match``) a member's "score" of a deal is its
share of the wins against the field, every seat in turn (``evolution.win_objective``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from evolution.win_objective import WinMatch, play_for_wins
from robo_players.base import play, play_by_turns
from robo_players.measure.luck import LuckCounter, luck_reference
from robo_players.measure.simulate import simulate
from robo_players.neural.build import population_player
from robo_players.neural.guided import SearchGuidedPlayer
from robo_players.neural.networks import NetSpec
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lookahead import LookaheadPlayer
from robo_players.threads import use_threads
from yamb.engine import GameBatch
from yamb.errors import IllegalMoveError

GENERATION, FINAL, REEVALUATE, CHALLENGE, CONFIRM = 0, 1, 2, 3, 4  # purposes of dice seeds


def dice_seed(seed: int, purpose: int, index: int) -> int:
    """The engine seed of generation ``index`` (or of the final check) of a run with ``seed``."""
    state = np.random.SeedSequence([seed, purpose, index]).generate_state(1, dtype=np.uint64)
    return int(state[0])


@dataclass(frozen=True)
class Task:
    """Members of a population to play: genomes (p, D), cell values (p, CR), each on ``games`` games,
    planning ``turns`` turns at a time (2 or more: ``robo_players.search.lookahead``)."""

    spec: NetSpec
    genomes: np.ndarray
    cell_values: np.ndarray
    games: int
    seed: int
    turns: int = 1
    luck: str = ""  # the search player valuing each roll's luck ("": none counted)
    match: WinMatch | None = None  # objective win: the field the members play (scores: shares of wins)


@dataclass(frozen=True)
class Outcome:
    """Final scores (p, games), the sum over all games of each cell's final score (CR,) and each
    game's luck (p, games; zeros when none was counted)."""

    scores: np.ndarray
    cell_sums: np.ndarray
    luck: np.ndarray


@cache
def luck_player(name: str, spec: NetSpec) -> ExpectimaxPlayer:
    """The search player ``name`` valuing rolls on ``spec``'s table, made once per process."""
    return luck_reference(name, spec.layout())


def play_task(task: Task) -> Outcome:
    """Play every member of ``task`` on the same ``games`` dice streams, in one batch (objective
    win: once per seat against the field, ``evolution.win_objective``)."""
    members = len(task.genomes)
    layout = task.spec.layout()
    if task.match is not None:
        player = population_player(task.spec, task.genomes, task.cell_values)
        shares, cell_sums = play_for_wins(player, layout, task.match, members, task.games, task.seed)
        return Outcome(shares, cell_sums, np.zeros(shares.shape))
    batch = GameBatch(layout, members * task.games, seed=task.seed,
                      streams=np.tile(np.arange(task.games, dtype=np.uint64), members))
    player = population_player(task.spec, task.genomes, task.cell_values)
    # several networks see the whole batch at every step, so the games' steps may come in any order:
    # turn by turn, the search-guided networks run once a turn (``SearchGuidedPlayer``), and a
    # look-ahead's next tables are those of the turn's start, however many members a task holds
    by_turns = (members > 1 and isinstance(player, SearchGuidedPlayer)) or task.turns > 1
    if task.turns > 1:
        player = LookaheadPlayer(player, layout, task.turns)
    counter = LuckCounter(player, luck_player(task.luck, task.spec), batch) if task.luck else None
    player = counter or player
    try:
        scores = (play_by_turns(batch, player, check=False) if by_turns else play(batch, [player], check=False))[:, 0]
    except IllegalMoveError as error:  # networks play unchecked: a NaN or infinite output chooses no action
        bad = int((~np.isfinite(task.genomes).all(axis=1)).sum())
        raise IllegalMoveError(f"{error} (a network's output is NaN or infinite; {bad} of the {members} "
                               f"networks played have non-finite weights)") from None
    cell_sums = batch.cells[:, 0].reshape(len(scores), -1).sum(axis=0, dtype=np.float64)
    luck = counter.luck[:, 0] if counter is not None else np.zeros(len(scores))
    return Outcome(scores.reshape(members, task.games), cell_sums, luck.reshape(members, task.games))


def reference_played(spec: NetSpec, games: int, seed: int, luck: str = "",
                     match: WinMatch | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(games,) scores of ``expectimax`` on the dice a task with ``games`` and ``seed`` plays (with
    ``match``: its shares of the wins against the field), and their luck as ``luck`` values it
    (zeros if none is named)."""
    layout = spec.layout()
    player = ExpectimaxPlayer(layout)
    if match is not None:
        return play_for_wins(player, layout, match, 1, games, seed)[0][0], np.zeros(games)
    if not luck:
        return simulate(layout, player, games, seed=seed, check=False), np.zeros(games)
    batch = GameBatch(layout, games, seed=seed)
    counter = LuckCounter(player, luck_player(luck, spec), batch)
    return play(batch, [counter], check=False)[:, 0], counter.luck[:, 0]


def reference_scores(spec: NetSpec, games: int, seed: int, luck: str = "", match: WinMatch | None = None) -> np.ndarray:
    """``reference_played``'s scores less their luck: what selection compares with."""
    scores, counted = reference_played(spec, games, seed, luck, match)
    return scores - counted


def init_worker(threads: int) -> None:
    """Limit a worker process (or this one) to ``threads`` torch and numba threads."""
    use_threads(threads)
