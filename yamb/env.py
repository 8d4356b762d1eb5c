"""Gymnasium environment ``Yamb-v0``: one player fills a whole table, one action at a time.

``import yamb`` registers ``Yamb-v0`` (``yamb.registration``):

    import gymnasium
    import yamb

    env = gymnasium.make("Yamb-v0", preset="yatzy")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from yamb.errors import YambError
from yamb.game import Game
from yamb.layout import Layout
from yamb.rules import Rules
from yamb.rules import rules as preset_rules

ILLEGAL_ACTION_RULES = ("penalize", "raise")
SEED_BOUND = 2**63
CellExpectations = Callable[[Layout], np.ndarray]  # a table's layout -> each cell's expected score, (C, R)


class ObservationEncoder:
    """One player's view of a game as a vector in [0, 1]; ``YambEnv`` documents its entries.

    The dice, rolls and must-fill entries describe the turn in progress, whoever
    plays it; the must-fill cell is the announced one, or in multiplayer the
    counter-announcement to answer.
    """

    def __init__(self, layout: Layout, row_scores: CellExpectations | None = None) -> None:
        self.layout = layout
        rules = layout.rules
        row_best = np.maximum(rules.scores.max(axis=0), rules.joker_scores.max(axis=0))
        self._cell_best = np.tile(row_best.astype(np.float32), layout.n_columns)
        self._max_rolls = max(rules.rolls, rules.spec.last_turn_rolls)
        self.basic_size = 3 * layout.n_cells + layout.n_columns + 9
        low = np.zeros(self.basic_size, dtype=np.float32)
        self._expected: np.ndarray | None = None
        if row_scores is not None:
            self._expected = _cell_expectations(row_scores, layout)
            self._scale = np.float32(rules.largest_score)
            low = np.concatenate([low, np.zeros(layout.n_rows), np.full(layout.n_cells, -1.0)]).astype(np.float32)
        self.size = len(low)
        self.space = spaces.Box(low, np.ones(self.size, dtype=np.float32), dtype=np.float32)

    def table_features(self, game: Game, player: int = 0) -> np.ndarray:
        """The first ``2 * CR`` entries: ``player``'s filled flags and normalized cell scores."""
        cells = game.batch.cells[0, player].ravel() / self._cell_best
        return np.concatenate([self._filled(game, player), cells]).astype(np.float32)

    def _filled(self, game: Game, player: int) -> np.ndarray:
        """(CR,) 1 where ``player``'s cell is filled, else 0."""
        rows = np.arange(self.layout.n_rows, dtype=np.uint32)
        return ((game.batch.filled[0, player][:, None] >> rows) & 1).ravel()

    def encode(self, game: Game, player: int = 0) -> np.ndarray:
        """The observation of ``player``'s table and the current turn."""
        batch, rules = game.batch, game.rules
        must_fill = np.zeros(self.layout.n_cells, dtype=np.float32)
        committed = max(batch.announced[0], batch.answer[0])
        if committed >= 0:
            must_fill[committed] = 1.0
        numbers = rules.column_totals(batch.cells[0, player])["numbers_sum"] / rules.spec.bonus_threshold
        rolls = np.array([batch.roll[0], batch.rolls_allowed[0] - batch.roll[0]]) / self._max_rolls
        parts = [
            self.table_features(game, player),
            rules.dice.multisets[batch.dice[0]] / rules.n_dice,
            rolls,
            must_fill,
            np.minimum(numbers, 1.0),
            [float(batch.pure[0])],
        ]
        if self._expected is not None:
            parts += self.row_score_features(game, player)
        return np.concatenate(parts).astype(np.float32)

    def row_score_features(self, game: Game, player: int) -> list[np.ndarray]:
        """The optional entries: the dice's score in each row, and each open cell's gain over its
        row's expected score (0 once filled), both divided by the preset's largest score."""
        dice_scores = game.rules.scores[game.batch.dice[0]].astype(np.float32)
        gains = np.tile(dice_scores, self.layout.n_columns) - self._expected
        return [dice_scores / self._scale, np.where(self._filled(game, player) == 0, gains / self._scale, 0.0)]


def _cell_expectations(row_scores: CellExpectations, layout: Layout) -> np.ndarray:
    """``row_scores(layout)`` as a flat float32 vector of the table's cells; YambError if it is not one."""
    if not callable(row_scores):
        raise YambError(f"row_scores takes a function of the table's layout giving each cell's expected score "
                        f"(e.g. robo_players.search.cell_values.expected_cell_scores), not {row_scores!r}")
    expected = np.asarray(row_scores(layout), dtype=np.float64)
    if expected.size != layout.n_cells:
        raise YambError(f"row_scores gave {expected.size} expected scores for a table of {layout.n_cells} cells")
    return expected.ravel().astype(np.float32)


class YambEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Solitaire Yamb, Yatzy or Yahtzee: fill every cell of a table for the highest total.

    ## Description

    Each step is one decision of a turn: keep some dice and roll the others,
    announce a cell, or fill a cell (which ends the turn; the next turn starts
    with a roll of all dice). The rules are the engine's (docs/rules.md).

    ## Action Space

    ``Discrete(2 * CR + K)`` in the encoding of ``yamb.layout`` (``C`` columns,
    ``R`` rows, ``CR = C * R`` cells, ``K`` keeps: 462 for five dice, 924 for six):

    | action            | meaning                                            |
    | ----------------- | -------------------------------------------------- |
    | ``0 .. CR-1``     | fill cell ``c * R + r``                            |
    | ``CR .. CR+K-1``  | keep the dice multiset ``keeps[a - CR]``, roll the rest |
    | ``CR+K .. 2CR+K-1`` | announce cell ``a - CR - K``                     |

    Few actions are legal at a time: ``action_masks()`` and ``info["action_mask"]``
    give the ``int8`` mask of the legal ones (the maskable-PPO convention; what
    ``action_space.sample(mask=...)`` takes). After the last step of an episode
    the mask is all zeros.
    ``env.unwrapped.game.layout.describe_action(a)`` names an action.

    ## Observation Space

    ``Box(0, 1, (3 * CR + C + 9,), float32)``; 169 entries for the standard
    four-column Yamb table, 55 for Yatzy:

    | index                 | meaning                                                     | min | max |
    | --------------------- | ----------------------------------------------------------- | --- | --- |
    | ``0 .. CR-1``         | the cell is filled                                          | 0   | 1   |
    | ``CR .. 2CR-1``       | the cell's score / the highest score of its row (0 if open) | 0   | 1   |
    | ``2CR .. 2CR+5``      | dice showing face 1 .. 6 / number of dice                   | 0   | 1   |
    | ``2CR+6``             | rolls made this turn / most rolls a turn can have           | 0   | 1   |
    | ``2CR+7``             | rolls left this turn / most rolls a turn can have           | 0   | 1   |
    | ``2CR+8 .. 3CR+7``    | the cell announced this turn                                | 0   | 1   |
    | ``3CR+8 .. 3CR+C+7``  | numbers-sum progress of column c: min(numbers_sum / bonus threshold, 1) | 0 | 1 |
    | ``3CR+C+8``           | every die was thrown by the latest roll (a "pure" hand)     | 0   | 1   |

    With ``row_scores`` ``R + CR`` entries follow (``4CR + C + R + 9`` in
    all), what the project's neural players see of the dice (``S`` is the
    preset's largest score, ``E`` a cell's expected score as ``row_scores``
    gives it; the players' own, from the solver's tables, are
    ``robo_players.search.cell_values.expected_cell_scores``: one optimal turn for the
    row, one roll in a ``hand`` column):

        from robo_players.search.cell_values import expected_cell_scores

        env = gymnasium.make("Yamb-v0", preset="yatzy", row_scores=expected_cell_scores)

    | index                      | meaning                                          | min | max |
    | -------------------------- | ------------------------------------------------ | --- | --- |
    | ``3CR+C+9 .. 3CR+C+R+8``   | the dice's score in row r / S (jokers aside)     | 0   | 1   |
    | ``3CR+C+R+9 .. 4CR+C+R+8`` | open cell: (the dice's score in its row - E) / S; filled cell: 0 | -1 | 1 |

    ## Rewards

    The increase of the total score (column totals plus any Yahtzee bonus) made
    by the step: 0 for rolls and announcements, and for a fill the change of the
    total, which can be negative (Yamb's difference row). An episode's return is
    therefore its final score. An illegal action with ``illegal_action="penalize"``
    earns ``illegal_reward``, changes nothing and uses up one of ``max_steps``.

    ## Starting State

    An empty table right after the first roll of the first turn. The dice follow
    from the seed: ``reset(seed=s)`` always deals the same game.

    ## Episode End

    Terminated when the last cell of the table is filled (as many turns as the
    table has cells). Truncated after ``max_steps`` steps, illegal ones
    included (by default twice the most steps a legal game can take:
    ``2 * longest_game(layout)``, 416 on the standard table, 120 for Yatzy).

    ## Arguments

    ``gymnasium.make("Yamb-v0", preset="yamb", columns=None, dice=None, joker=None,
    illegal_action="penalize", illegal_reward=-1.0, max_steps=None, row_scores=None)``

    - ``preset``: ``yamb``, ``jamb6``, ``yatzy`` or ``yahtzee``.
    - ``columns``: column kinds of the table (default: the preset's table).
    - ``dice``: 5 or 6 where the preset allows both.
    - ``joker``: ``free`` or ``forced`` (Yahtzee only).
    - ``illegal_action``: ``penalize`` (reward ``illegal_reward``, game
      unchanged, ``info["illegal_action"]`` names the broken rule) or ``raise``
      (``yamb.IllegalMoveError``).
    - ``max_steps``: steps before the episode is truncated (at least ``longest_game(layout)``).
    - ``row_scores``: a function of the table's ``Layout`` giving each cell's
      expected score, shape ``(C, R)``; with one the observation adds the
      dice's row scores and the open cells' gains over those expectations.

    ## Info

    ``action_mask`` (legal actions after the step, all zeros once the episode
    has ended) and ``score`` (total so far; the final score at the end).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        preset: str = "yamb",
        columns: Sequence[str] | None = None,
        dice: int | None = None,
        joker: str | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        max_steps: int | None = None,
        row_scores: CellExpectations | None = None,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_RULES:
            raise YambError(
                f"unknown illegal_action {illegal_action!r}; choose from {', '.join(ILLEGAL_ACTION_RULES)}"
            )
        self.rules: Rules = preset_rules(preset, dice=dice, joker=joker)
        self.columns = columns
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.game = Game(self.rules, columns)
        layout = self.game.layout
        self.max_steps = 2 * longest_game(layout) if max_steps is None else max_steps
        if not isinstance(self.max_steps, int) or self.max_steps < longest_game(layout):
            raise YambError(
                f"max_steps must be a whole number of at least {longest_game(layout)} "
                f"(the most steps a game of this table can take), not {max_steps!r}"
            )
        self.steps = 0
        self._mask = self._legal()
        self.encoder = ObservationEncoder(layout, row_scores)
        self.action_space = spaces.Discrete(layout.n_actions)
        self.observation_space = self.encoder.space

    def action_masks(self) -> np.ndarray:
        """``int8`` mask of the legal actions now (all zeros once the episode has ended)."""
        return self._mask.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(SEED_BOUND))
        self.game = Game(self.rules, self.columns, seed=game_seed)
        self.steps = 0
        self._mask = self._legal()
        return self.encoder.encode(self.game), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        action = int(action)
        self.steps += 1
        legal = 0 <= action < len(self._mask) and self._mask[action]
        extra = {}
        if self.illegal_action == "penalize" and not legal:
            reward = self.illegal_reward
            extra = {"illegal_action": self.game.explain_illegal(action)}
        else:
            before = self.game.scores()[0]
            self.game.apply(action)
            reward = float(self.game.scores()[0] - before)
        terminated = self.game.is_over()
        truncated = not terminated and self.steps >= self.max_steps
        self._mask = np.zeros_like(self._mask) if truncated else self._legal()
        return self.encoder.encode(self.game), reward, terminated, truncated, self._info() | extra

    def _legal(self) -> np.ndarray:
        return self.game.action_mask().astype(np.int8)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "score": self.game.scores()[0]}


def longest_game(layout: Layout) -> int:
    """The most steps a game of ``layout`` can take: per turn an announcement, every roll
    after the first, and the fill; the longer last turn of ``jamb6`` included."""
    rules = layout.rules
    return layout.n_cells * (rules.rolls + 1) + max(rules.spec.last_turn_rolls - rules.rolls, 0)
