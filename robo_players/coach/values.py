"""The value of every legal action at a batch's decisions, as an expected final score.

``values[i, a]`` is the mover's expected final score if action ``a`` is taken at decision ``i``
and the game is played on by the coach's own policy; illegal actions are ``-inf``. The best
action's value is the expected final score of the position, and a decision's loss is the best
value minus the taken one's.

- ``ExactCoach`` (one ``free`` column of Yatzy or Yahtzee, any number of players, each sheet
  being solitaire): the optimal solver's state values (``expected_scores.solitaire``), the
  turn's rest planned by the turn optimizer. Exact: points scored plus the exact expectation
  of the points still to come under optimal play.
- ``SearchCoach`` (every table): a search player's values (``expectimax``, ``best``, any guided
  network, with or without look-ahead): the estimated final total of the table
  (``robo_players.search.cell_values``) plus the change the player's search expects from the action.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from expected_scores.solitaire import SolitaireSolution
from expected_scores.solve import solve
from expected_scores.turn import keep_values, plan_turn
from robo_players.coach.search_values import action_values, estimates
from robo_players.registry import make_player
from robo_players.search.correction import corrections_of
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lookahead import LookaheadPlayer
from yamb.engine import GameBatch, single_thread
from yamb.errors import YambError
from yamb.layout import Layout

EXACT = "optimal"  # the coach name of the exact values
DEFAULT_BOT = "best"  # the coach bot where no exact values exist


class Coach(Protocol):
    """Values every legal action of a batch's decisions."""

    name: str
    exact: bool

    def values(self, batch: GameBatch, games: np.ndarray) -> np.ndarray: ...


def exact_table(layout: Layout) -> bool:
    """Whether the optimal solver values ``layout``'s table exactly: one free column of Yatzy or Yahtzee."""
    rules = layout.rules
    return layout.columns == ("free",) and rules.name in ("yatzy", "yahtzee")


class ExactCoach:
    """The optimal solver's values of Yatzy and Yahtzee."""

    name = EXACT
    exact = True

    def __init__(self, layout: Layout, solution: SolitaireSolution | None = None) -> None:
        """``solution``: the solver's (default: the whole game's; an endgame's values its states alone)."""
        if not exact_table(layout):
            raise YambError(f"the exact coach values one free column of yatzy or yahtzee, not "
                            f"{','.join(layout.columns)} of {layout.rules.name}")
        rules = layout.rules
        self.layout = layout
        self.solution = solution or solve(rules.name, layout.columns, joker=rules.joker, dice=rules.n_dice)

    def values(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """(n, A) expected final scores after each legal action of ``games`` (``-inf``: illegal)."""
        games = np.asarray(games, dtype=np.int64)
        sol, lay = self.solution, self.layout
        state = sol.state_of(batch, games)
        dice = batch.dice[games].astype(np.int64)
        out = np.full((len(games), lay.n_actions), -np.inf)
        out[:, : lay.n_rows] = sol.fill_values(*state, dice)
        left = (batch.rolls_allowed[games] - batch.roll[games]).astype(np.int64)
        for rerolls in np.unique(left[left > 0]):
            at = np.flatnonzero(left == rerolls)
            plan = plan_turn(sol.turn_options(*(part[at] for part in state)), lay.rules.dice, rolls=int(rerolls) + 1)
            out[at, lay.n_cells : lay.n_cells + lay.n_keeps] = keep_values(plan.value[1], lay.rules.dice)
        points = batch.scores()[games, batch.player[games]]
        return np.where(batch.legal_actions(games), out + points[:, None], -np.inf)


class SearchCoach:
    """A search player's values (the coach bot)."""

    exact = False

    def __init__(self, player: ExpectimaxPlayer | LookaheadPlayer, layout: Layout) -> None:
        self.player = player
        self.layout = layout
        self.name = player.name

    def values(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """(n, A) estimated final scores after each legal action of ``games`` (``-inf``: illegal)."""
        games = np.asarray(games, dtype=np.int64)
        tables = self.player.tables
        with single_thread():
            adjust = corrections_of(self.player, batch, games)
            out = np.full((len(games), self.layout.n_actions), -np.inf)
            action_values(games, batch.state, batch.constants, tables, adjust, out)
            base = np.empty(len(games))
            estimates(games, batch.state, tables, self.layout.rules.spec.extra_yahtzee_bonus, base)
        return np.where(batch.legal_actions(games), out + base[:, None], -np.inf)


def make_coach(layout: Layout, name: str | None = None) -> Coach:
    """The coach of ``layout``'s table: ``optimal`` (exact; the default where it exists), else the
    search player ``name`` (default ``best``), or a precise error."""
    if name == EXACT or (name is None and exact_table(layout)):
        return ExactCoach(layout)
    player = make_player(name or DEFAULT_BOT, layout)
    if not isinstance(player, ExpectimaxPlayer | LookaheadPlayer):
        raise YambError(f"the coach values decisions with a search player (expectimax, best, a guided "
                        f"network, with or without +lookahead) or {EXACT}, not {player.name}")
    return SearchCoach(player, layout)
