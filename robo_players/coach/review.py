"""A game's review: each decision's loss against the best one, its class, and each player's totals.

A decision's loss is the expected final score of the best decision minus that of the one taken
(``robo_players.coach.values``), in points, never below 0. Its class, by the points lost:

| class      | loss (points)  |
| ---------- | -------------- |
| good       | below 0.5      |
| inaccuracy | 0.5 to 2       |
| mistake    | 2 to 5         |
| blunder    | 5 or more      |

A player's curve is the expected final score at the first decision of each of their turns,
ending at their final score once the game is over.

Given a model of the final totals (``robo_players.coach.win_chances``), each decision also
carries every player's chance to win (or, with a target, of reaching it) before it and after
the action taken, the action after which the mover's chance is highest and the chance lost
against it; each player's ``win_curve`` is their chance at the first decision of each of their
turns, ending at their share of the win (or whether they reached the target).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from robo_players.coach.positions import decision_batch
from robo_players.coach.values import Coach, make_coach
from robo_players.coach.win_chances import DecisionChances, Finals, chances_of, decision_chances
from yamb.game import Game
from yamb.layout import Layout

CLASSES = (("good", 0.5), ("inaccuracy", 2.0), ("mistake", 5.0), ("blunder", float("inf")))  # loss below each bound
BEST = 1e-9  # a loss this small is the best decision (rounding)


def classify(loss: float) -> str:
    """The class of a decision that lost ``loss`` points (``CLASSES``)."""
    return next(name for name, bound in CLASSES if loss < bound)


def kind_of(layout_cells: int, layout_keeps: int, action: int) -> str:
    """``fill``, ``keep`` or ``announce``: the kind of an action (``yamb.layout``)."""
    if action < layout_cells:
        return "fill"
    return "keep" if action < layout_cells + layout_keeps else "announce"


@dataclass
class Decision:
    """One decision valued: who, when, what was played and what was best, as expected final scores."""

    index: int  # in the game's actions
    player: int
    turn: int  # the player's own turn, from 1
    roll: int  # rolls made in the turn before the decision
    dice: list[int]
    kind: str
    action: int
    played: str
    value: float  # expected final score after the decision taken
    best_action: int
    best: str
    best_value: float
    loss: float
    label: str  # the class (``CLASSES``)
    forced: bool  # the only legal action
    win_before: list[float] | None = None  # each player's chance (to win, or of the target) before it
    win_after: list[float] | None = None  # after the action taken
    win_best: str | None = None  # the action after which the mover's chance is highest
    win_best_value: float | None = None  # the mover's chance after it
    win_loss: float | None = None  # the mover's chance after it less after the action taken


@dataclass
class PlayerReview:
    """A player's totals: the expected points lost, the decisions by class, the curve, the score."""

    player: int
    loss: float
    decisions: int
    classes: dict[str, int]
    curve: list[tuple[int, float]]  # (turn, expected final score at its first decision)
    score: int
    win_curve: list[tuple[int, float]] = field(default_factory=list)  # (turn, chance at its first decision)


@dataclass
class Review:
    """A game's review by one coach."""

    coach: str
    exact: bool
    over: bool
    decisions: list[Decision]
    players: list[PlayerReview]
    thresholds: dict[str, float] = field(default_factory=lambda: {name: bound for name, bound in CLASSES[:-1]})
    win: str | None = None  # how the chances are had (exact or estimated, and how), None: no chances
    win_exact: bool | None = None
    target: int | None = None  # the chances are of reaching this final total, not of winning

    def biggest(self, n: int = 5, player: int | None = None) -> list[Decision]:
        """The ``n`` decisions that lost most (of ``player``, or of everyone), largest first; losses of 0 left out."""
        chosen = [d for d in self.decisions if d.loss > BEST and (player is None or d.player == player)]
        return sorted(chosen, key=lambda d: -d.loss)[:n]

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-ready data."""
        data = asdict(self)
        for p in data["players"]:
            p["curve"] = [list(point) for point in p["curve"]]
            p["win_curve"] = [list(point) for point in p["win_curve"]]
        data["biggest"] = [d.index for d in self.biggest(10)]
        return data


def _decisions(lay: Layout, values: np.ndarray, actions: np.ndarray, player: np.ndarray, turn: np.ndarray,
               roll: np.ndarray, hands: np.ndarray, first: int = 0) -> list[Decision]:
    """Decisions valued ``values`` (n, A) where ``actions`` were taken (numbered from ``first``)."""
    rows = np.arange(len(actions))
    taken = values[rows, actions]
    best_action = np.argmax(values, axis=1)
    best = values[rows, best_action]
    loss = np.maximum(best - taken, 0.0)
    legal = np.isfinite(values).sum(axis=1)
    faces = lay.rules.dice.faces[hands]
    out = []
    for i in rows:
        a, b = int(actions[i]), int(best_action[i])
        if loss[i] <= BEST:  # the best decision: name the one played
            b = a
        out.append(Decision(
            index=first + int(i), player=int(player[i]), turn=int(turn[i]) // lay.players + 1, roll=int(roll[i]),
            dice=[int(f) for f in faces[i]], kind=kind_of(lay.n_cells, lay.n_keeps, a), action=a,
            played=lay.describe_action(a), value=float(taken[i]), best_action=b, best=lay.describe_action(b),
            best_value=float(best[i]), loss=float(loss[i]), label=classify(float(loss[i])),
            forced=bool(legal[i] == 1)))
    return out


def with_chances(decision: Decision, chances: DecisionChances, lay: Layout) -> Decision:
    """``decision`` with every player's chances before and after it, and its loss in the mover's chance."""
    best, mover = chances.best_action(), chances.mover
    loss = chances.loss(decision.action)
    decision.win_before = [float(v) for v in chances.before]
    decision.win_after = [float(v) for v in chances.after(decision.action)]
    decision.win_best = decision.played if loss <= BEST else lay.describe_action(best)
    decision.win_best_value = float(chances.actions[best, mover])
    decision.win_loss = loss
    return decision


def prejudge(game: Game, coach: Coach, finals: Finals | None = None,
             target: int | None = None) -> Callable[[int], Decision]:
    """``game``'s decision now valued by ``coach`` (and, with ``finals``, every player's chances: to win,
    or of reaching ``target``), before it is taken: the returned function gives the decision of taking
    an action (played since or not)."""
    batch = game.batch
    values = coach.values(batch, np.zeros(1, dtype=np.int64))
    chances = None if finals is None else decision_chances(finals, batch, 0, values[0], target)
    where = batch.player[:1].copy(), batch.turn[:1].copy(), batch.roll[:1].copy(), batch.dice[:1].copy()
    first, lay = len(game.history), game.layout

    def decision(action: int) -> Decision:
        judged = _decisions(lay, values, np.array([action]), *where, first=first)[0]
        return judged if chances is None else with_chances(judged, chances, lay)
    return decision


def judge(game: Game, action: int, coach: Coach) -> Decision:
    """The decision of playing ``action`` now in ``game`` (before it is played), valued by ``coach``."""
    return prejudge(game, coach)(action)


def final_chances(game: Game, target: int | None = None) -> np.ndarray:
    """(P,) each player's share of the win (or 1 for reaching ``target``, else 0) of a finished game."""
    scores = np.asarray(game.scores(), dtype=np.int64)
    finals = np.zeros((len(scores), int(scores.max(initial=0)) + 1))
    finals[np.arange(len(scores)), np.maximum(scores, 0)] = 1.0
    return chances_of(finals, target)


def review_game(game: Game, coach: Coach | None = None, finals: Finals | None = None,
                target: int | None = None) -> Review:
    """Every decision of ``game`` (its actions so far) valued by ``coach`` (default: ``make_coach``), and
    with ``finals`` every player's chances (to win, or of reaching ``target``) before and after each."""
    coach = coach or make_coach(game.layout)
    lay = game.layout
    positions = decision_batch(game)
    n = len(positions.actions)
    values = coach.values(positions.batch, np.arange(n)) if n else np.zeros((0, lay.n_actions))
    decisions = _decisions(lay, values, positions.actions, positions.player, positions.turn, positions.roll,
                           positions.batch.dice)
    if finals is not None:
        for i, d in enumerate(decisions):
            with_chances(d, decision_chances(finals, positions.batch, i, values[i], target), lay)
    scores = game.scores()
    ending = final_chances(game, target) if game.is_over() else None
    players = []
    for p in range(lay.players):
        mine = [d for d in decisions if d.player == p]
        curve: list[tuple[int, float]] = []
        win_curve: list[tuple[int, float]] = []
        for d in mine:
            if not curve or curve[-1][0] != d.turn:
                curve.append((d.turn, d.best_value))
                if d.win_before is not None:
                    win_curve.append((d.turn, d.win_before[p]))
        if game.is_over():
            curve.append((lay.turns_per_player + 1, float(scores[p])))
            if finals is not None:
                win_curve.append((lay.turns_per_player + 1, float(ending[p])))
        players.append(PlayerReview(
            player=p, loss=float(sum(d.loss for d in mine)), decisions=len(mine),
            classes={name: sum(d.label == name for d in mine) for name, _ in CLASSES},
            curve=curve, score=int(scores[p]), win_curve=win_curve))
    return Review(coach=coach.name, exact=coach.exact, over=game.is_over(), decisions=decisions, players=players,
                  win=None if finals is None else finals.method, win_exact=None if finals is None else finals.exact,
                  target=target)
