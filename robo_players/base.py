"""The player interface and the loop that plays batches of games with players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from yamb.engine import GameBatch
from yamb.errors import IllegalMoveError


class Player(Protocol):
    """Chooses one action (see ``yamb.layout``) for each of the given games.

    ``act`` sees the whole batch and the indices ``games`` of the games it must
    decide, all of which are not done and have this player to move.
    """

    name: str

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray: ...


def play(batch: GameBatch, seats: list[Player], check: bool = True,
         progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Play every game of ``batch`` to the end; ``seats[p]`` moves for player p; ``progress(n)`` hears of
    ``n`` more games played, in steps as the slowest game's turns go by (all of them at the end).

    Returns the final scores, shape (N, P). A player's illegal action (without
    ``check``: one out of range) is an ``IllegalMoveError`` naming the player, and
    so is a game still going after the most steps a legal game takes: an
    unchecked player's illegal actions never end a game in a loop.
    """
    lay = batch.layout
    if len(seats) != lay.players:
        raise ValueError(f"{len(seats)} players for a table of {lay.players}")
    rolls = max(lay.rules.rolls, lay.rules.spec.last_turn_rolls)
    game_turns = lay.players * lay.n_cells
    most_steps = game_turns * (rolls + 1)  # a turn: announce, keep (rolls - 1 times), fill
    said = 0  # the games said to ``progress``
    for _ in range(most_steps + 1):  # every game not done takes at least one step per round
        if progress is not None and (played := batch.n_games * int(batch.turn.min()) // game_turns) > said:
            progress(played - said)
            said = played
        if batch.done.all():
            return batch.scores()
        for p, player in enumerate(seats):
            games = np.flatnonzero(~batch.done & (batch.player == p))
            if len(games):
                try:
                    batch.step(player.act(batch, games), games, check=check)
                except IllegalMoveError as error:
                    raise IllegalMoveError(f"player {player.name}: {error}") from None
    stuck = seats[int(batch.player[np.flatnonzero(~batch.done)[0]])]
    raise IllegalMoveError(f"player {stuck.name}: a game is not over after {most_steps:,} steps, the most a "
                           f"legal game takes (illegal actions, played unchecked?)")


def play_by_turns(batch: GameBatch, player: Player, check: bool = True) -> np.ndarray:
    """``play`` for a solitaire ``batch``, one turn at a time: no game starts turn t + 1 before
    every game has finished turn t.

    Each game takes the actions ``play`` gives it, for a player whose action in a game depends
    on that game alone (a population's networks evaluate the whole batch at every step, see
    ``robo_players.neural.player``). The turn's first decision of every game comes in one step,
    so what depends only on the table is computed once per turn for the whole batch.
    """
    lay = batch.layout
    if lay.players != 1:
        raise ValueError(f"play_by_turns plays solitaire tables, not tables of {lay.players} players")
    rolls = max(lay.rules.rolls, lay.rules.spec.last_turn_rolls)
    most_steps = lay.n_cells * (rolls + 1)
    for _ in range(most_steps + 1):
        live = ~batch.done
        if not live.any():
            return batch.scores()
        games = np.flatnonzero(live & (batch.turn == batch.turn[live].min()))
        try:
            batch.step(player.act(batch, games), games, check=check)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"player {player.name}: {error}") from None
    raise IllegalMoveError(f"player {player.name}: a game is not over after {most_steps:,} steps, the most a "
                           f"legal game takes (illegal actions, played unchecked?)")
