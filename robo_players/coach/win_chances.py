"""Each player's chance to win at any position of a game, and a player's chance of reaching a target.

A chance to win is a player's share of the wins, a tie shared equally among the tied players
(``expected_scores.distributions.win_utility`` counts it so), the players' final totals being
independent (every sheet is the player's own). A model gives each player's distribution of final
totals (``Finals``): at a position, and for the player to move after each legal action.

- ``ExactFinals`` (one free column of Yatzy or Yahtzee whose score tables are built): a player
  between turns (not to move, or finished) ends at their points plus the distribution of the rest
  of their game under expected-score optimal play (``ScoreTables.dist``); the player to move goes
  through the rest of the turn by the optimal player's plan (its keeps, its best row) from the
  dice held, and after an action, that action followed by the plan. **Exact** means: the
  probability of each player's winning (or reaching the target) when every player plays
  ``optimal`` from the position on (the mover from right after the action judged). It is not the
  chance under the best play for the win (``optimal-win`` wins a little more often), nor under
  the person's own later play.
- ``EstimatedFinals`` (every other table, and Yatzy or Yahtzee without the tables): each final
  total is a normal distribution (rounded to whole points) about the coach's expected final
  score (its value of each action for the mover, its estimate from the sheet for the others)
  plus ``Spread.bias[k]``, with standard deviation ``Spread.spread[k]``, ``k`` the cells the
  player has open (after a fill, one fewer): ``robo_players.coach.spread`` fits both once per
  table from games of the coach's own player. **Estimated**: the mean is the coach's, the shape
  is a normal's, the spread an average over the positions with ``k`` cells open.

A position's chances (``position_chances``) take the mover's distribution under the model's
policy; a decision's (``decision_chances``) give every legal action's chances, so that the
chance before, after the action taken and after the action that wins most can be read off.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np
from numba import njit
from scipy.special import ndtr

from expected_scores.distributions import Dice, Moves, ScoreTables, _move, _shift_into, cached_tables
from expected_scores.lanes import NO_HANDS, _keep_values, plan_lanes
from expected_scores.solitaire import SolitaireSolution, _fill_value, allowed_rows, params_of
from expected_scores.solve import cache_dir
from expected_scores.turn import STOP
from robo_players.coach.spread import Means, Spread, spread_for
from robo_players.coach.values import Coach, ExactCoach
from yamb.engine import GameBatch, single_thread
from yamb.errors import YambError
from yamb.layout import Layout

SPREAD_SDS = 8  # an estimated distribution spans its mean +- this many standard deviations


class Finals(Protocol):
    """Every player's distribution of final totals at a position, and the mover's after each action."""

    exact: bool
    method: str

    def values(self, batch: GameBatch, game: int) -> np.ndarray | None:
        """The coach's values of the mover's actions if the model reads them (else None)."""
        ...

    def position(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        """(P, L) each player's probability of each final total 0..L-1 (``values``: as ``values`` gives them,
        when known)."""
        ...

    def actions(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        """(A, L) the mover's distribution of final totals after each action (zeros where illegal)."""
        ...


def _pad(vectors: list[np.ndarray], length: int) -> np.ndarray:
    out = np.zeros((len(vectors), length))
    for i, v in enumerate(vectors):
        out[i, : len(v)] = v[:length]
    return out


def win_shares(finals: np.ndarray) -> np.ndarray:
    """(..., P) each player's share of the wins from (..., P, L) independent distributions of final totals:
    ``sum_f P(X_i = f) E[1 / (1 + ties) ; every other total at most f]``, each distribution taken to sum to 1
    (``_normalized``)."""
    finals = _normalized(finals)
    n_players = finals.shape[-2]
    below = np.cumsum(finals, axis=-1) - finals  # P(X < f)
    out = np.empty(finals.shape[:-1])
    for i in range(n_players):
        coef = [np.ones(finals.shape[:-2] + finals.shape[-1:])]  # coefficients of z^j in prod (below + z at)
        for q in range(n_players):
            if q == i:
                continue
            b, a = below[..., q, :], finals[..., q, :]
            nxt = [c * b for c in coef] + [np.zeros_like(b)]
            for j, c in enumerate(coef):
                nxt[j + 1] = nxt[j + 1] + c * a
            coef = nxt
        share = sum(c / (j + 1) for j, c in enumerate(coef))
        out[..., i] = (finals[..., i, :] * share).sum(axis=-1)
    return out


def reach_chances(finals: np.ndarray, target: int) -> np.ndarray:
    """(..., P) each player's chance of a final total of at least ``target`` (``_normalized``)."""
    return _normalized(finals)[..., max(int(target), 0):].sum(axis=-1)


def _normalized(finals: np.ndarray) -> np.ndarray:
    """``finals`` (float64) with each distribution divided by its sum (zeros left as they are): the stored
    score tables round each probability to float32, so that a sum is 1 only to about 1e-8."""
    finals = np.asarray(finals, dtype=np.float64)
    total = finals.sum(axis=-1, keepdims=True)
    return np.divide(finals, total, out=np.zeros_like(finals), where=total > 0)


def chances_of(finals: np.ndarray, target: int | None = None) -> np.ndarray:
    """Each player's chance to win (``target`` None) or of reaching ``target``."""
    return win_shares(finals) if target is None else reach_chances(finals, target)


# ----------------------------------------------------------------------------- exact
@njit(cache=True)
def _turn_finals(mask, u, y, hand, left, moves, params, dice, dist, tail):
    """The points still to come of the player to move in state ``(mask, u, y)`` holding multiset ``hand``
    with ``left`` rerolls, under the optimal player's plan: ``(now, fills, keeps)``, ``now`` from here,
    ``fills[r]`` after filling row ``r`` (zeros where not allowed), ``keeps[k]`` after keeping ``k`` and
    rolling (no rows when ``left`` is 0). Each vector's last entry is ``E[(rest - cap)+]`` (``_shift_into``)."""
    scores, five_face = moves.scores, moves.five_face
    n_multisets, n_rows = scores.shape[0], params.n_rows
    n_keeps = dice.add_die.shape[0]
    rolls = left + 1
    points = np.zeros((n_multisets, n_rows), dtype=np.int64)
    nxt = np.full((n_multisets, n_rows), -1, dtype=np.int64)
    best_row = np.full(n_multisets, -1, dtype=np.int64)
    options = np.empty((rolls, n_multisets, 1))
    width = 1
    for m in range(n_multisets):
        allowed = allowed_rows(mask, five_face[m], params)
        best = -np.inf
        for r in range(n_rows):
            if (allowed >> r) & 1:
                points[m, r], nxt[m, r] = _move(mask, u, y, m, r, moves, params)
                ns = nxt[m, r]
                width = max(width, points[m, r] + dist.lo[ns] + dist.start[ns + 1] - dist.start[ns])
                v = _fill_value(mask, u, y, m, r, scores, moves.joker_scores, five_face, moves.values, params)
                if v > best:
                    best, best_row[m] = v, r
        for t in range(rolls):
            options[t, m, 0] = best
    width = min(width, moves.cap + 1)
    fills = np.zeros((n_rows, width + 1))
    for r in range(n_rows):
        if nxt[hand, r] >= 0:
            _shift_into(dist, tail, nxt[hand, r], points[hand, r], fills[r], moves.cap)
    if rolls == 1:
        return fills[best_row[hand]].copy(), fills, np.zeros((0, width + 1))
    no_pure = np.empty((0, 1, 1))
    value = np.empty((rolls, n_multisets, 1))
    keep = np.empty((rolls, n_multisets, 1), dtype=np.int16)
    plan_lanes(options, no_pure, dice.add_die, dice.remove_die, dice.first_prob, value, keep,
               np.empty((n_keeps, 1)), np.empty((n_keeps, 1)), np.empty((n_keeps, 1), dtype=np.int32),
               NO_HANDS, dice.sub_keeps)
    layer = np.empty((rolls, n_multisets, width + 1))
    for m in range(n_multisets):
        r = best_row[m]
        _shift_into(dist, tail, nxt[m, r], points[m, r], layer[rolls - 1, m], moves.cap)
    kv = np.empty((n_keeps, width + 1))
    for t in range(rolls - 2, -1, -1):
        _keep_values(t, layer, no_pure, dice.add_die, dice.first_prob, layer, kv)
        if t == 0:
            break
        for m in range(n_multisets):
            k = keep[t, m, 0]
            src = layer[rolls - 1, m] if k == STOP else kv[k]
            for x in range(width + 1):
                layer[t, m, x] = src[x]
    k = keep[0, hand, 0]
    now = layer[rolls - 1, hand].copy() if k == STOP else kv[k].copy()
    return now, fills, kv


class ExactFinals:
    """Final totals under optimal play from the score tables (one free column of Yatzy or Yahtzee)."""

    exact = True

    def __init__(self, solution: SolitaireSolution, tables: ScoreTables) -> None:
        self.solution, self.tables = solution, tables
        rules = solution.rules
        self.moves = Moves(rules.scores, rules.joker_scores, rules.five_alike_face, solution.values, tables.index,
                           tables.cap)
        d = rules.dice
        self.dice = Dice(d.add_die, d.remove_die, d.outcome_prob[0], d.sub_keeps, rules.rolls)
        self.params = params_of(rules)
        self._last: tuple[tuple[int, ...], tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None = None
        self.method = (f"exact: each player playing optimal from here on (the {rules.name} score tables, "
                       f"the rest of the turn by the optimal plan)")

    def _between(self, batch: GameBatch, game: int, player: int) -> np.ndarray:
        points = int(batch.scores()[game, player])
        if batch.filled[game, player, 0] == (1 << batch.rules.n_rows) - 1:
            out = np.zeros(points + 1)
            out[points] = 1.0
            return out
        mask, upper, y = (int(v[0]) for v in self.solution.state_of(batch, np.array([game]), np.array([player])))
        rest = self.tables.distribution(self.tables.state(mask, upper, y))
        return np.concatenate([np.zeros(points), rest])

    def _turn(self, batch: GameBatch, game: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """The mover's points and rest of the turn (``_turn_finals``); the last turn's kept, since a decision
        reads it twice (its position and its actions)."""
        mask, upper, y = (int(v[0]) for v in self.solution.state_of(batch, np.array([game])))
        left = int(batch.rolls_allowed[game] - batch.roll[game])
        key = (mask, upper, y, int(batch.dice[game]), left, int(batch.scores()[game, batch.player[game]]))
        last = self._last  # read once: the web app's threads share the model
        if last is None or last[0] != key:
            now, fills, keeps = _turn_finals(mask, upper, y, key[3], left, self.moves, self.params, self.dice,
                                             self.tables.dist, self.tables.tail)
            last = self._last = key, (key[-1], now[:-1], fills[:, :-1], keeps[:, :-1])
        return last[1]

    def values(self, batch: GameBatch, game: int) -> None:
        return None

    def position(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        mover = -1 if batch.done[game] else int(batch.player[game])
        vectors = []
        for p in range(batch.layout.players):
            if p == mover:
                points, now, _, _ = self._turn(batch, game)
                vectors.append(np.concatenate([np.zeros(points), now]))
            else:
                vectors.append(self._between(batch, game, p))
        return _pad(vectors, max(len(v) for v in vectors))

    def actions(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        lay = batch.layout
        points, _, fills, keeps = self._turn(batch, game)
        out = np.zeros((lay.n_actions, points + fills.shape[1]))
        legal = batch.legal_actions(np.array([game]))[0]
        out[: lay.n_rows, points:] = fills
        if len(keeps):
            out[lay.n_cells: lay.n_cells + lay.n_keeps, points:] = keeps
        out[~legal] = 0.0
        return out


# ----------------------------------------------------------------------------- estimated
def _normal(mean: np.ndarray, sd: np.ndarray, length: int) -> np.ndarray:
    """(n, length) each normal rounded to whole points 0..length-1 (the ends holding the tails)."""
    edges = np.arange(length + 1) - 0.5
    z = (edges[None, :] - mean[:, None]) / np.maximum(sd, 1e-9)[:, None]
    cdf = ndtr(z)
    cdf[:, 0], cdf[:, -1] = 0.0, 1.0
    return np.diff(cdf, axis=1)


class EstimatedFinals:
    """Final totals estimated: a normal about the coach's expected final score, its spread fitted by cells open."""

    exact = False

    def __init__(self, coach: Coach, lay: Layout, spread: Spread, why: str = "") -> None:
        self.coach, self.layout, self.spread = coach, lay, spread
        self.means = Means(coach)
        self.method = (f"estimated{why}: a normal about the {coach.name} coach's expected final score, its spread "
                       f"fitted to {spread.games:,} games of {spread.player} by the cells left open")

    def _open(self, batch: GameBatch, game: int) -> np.ndarray:
        cells = np.unpackbits(batch.filled[game].view(np.uint8)).reshape(batch.layout.players, -1).sum(axis=1)
        return batch.layout.n_cells - cells

    def _spread(self, means: np.ndarray, k: np.ndarray, done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.clip(k, 0, len(self.spread.bias) - 1)
        mean = np.where(done, np.round(means), means + self.spread.bias[k])
        sd = np.where(done, 0.0, self.spread.spread[k])
        return mean, sd

    def _length(self, mean: np.ndarray, sd: np.ndarray) -> int:
        return int(np.ceil(max(0.0, (mean + SPREAD_SDS * sd).max())) + 2)

    def _between(self, batch: GameBatch, game: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        players = np.arange(batch.layout.players)
        means = self.means(batch, np.full(len(players), game), players)
        k = self._open(batch, game)
        return means, k, k == 0

    def values(self, batch: GameBatch, game: int) -> np.ndarray:
        with single_thread():
            return self.coach.values(batch, np.array([game]))[0]

    def position(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        means, k, done = self._between(batch, game)
        if not batch.done[game]:
            p = int(batch.player[game])
            means[p] = (self.values(batch, game) if values is None else values).max()
        mean, sd = self._spread(means, k, done)
        return _normal(mean, sd, self._length(mean, sd))

    def actions(self, batch: GameBatch, game: int, values: np.ndarray | None = None) -> np.ndarray:
        lay = batch.layout
        values = self.values(batch, game) if values is None else values
        legal = np.isfinite(values)
        k = int(self._open(batch, game)[batch.player[game]])
        ks = np.where(np.arange(lay.n_actions) < lay.n_cells, k - 1, k)
        mean, sd = self._spread(values[legal], ks[legal], ks[legal] == 0)
        out = np.zeros((lay.n_actions, self._length(mean, sd) if legal.any() else 1))
        out[legal] = _normal(mean, sd, out.shape[1])
        return out


# ----------------------------------------------------------------------------- the model of a table
_mapped: dict[tuple[str, str | None, str], ScoreTables] = {}


def _tables(preset: str, joker: str | None) -> ScoreTables | None:
    """The score tables mapped from the cache, kept once found (not while they are not built)."""
    key = (preset, joker, str(cache_dir()))
    if key not in _mapped:
        tables = cached_tables(preset, joker)
        if tables is None:
            return None
        _mapped[key] = tables
    return _mapped[key]


def finals_for(coach: Coach, lay: Layout) -> Finals:
    """The model of ``lay``'s table for ``coach``: exact where the coach is exact and the score tables are
    built (``cached_tables``), else estimated (the spread fitted on first use, cached)."""
    if isinstance(coach, ExactCoach):
        rules = lay.rules
        tables = _tables(rules.name, rules.joker)
        if tables is not None:
            return ExactFinals(coach.solution, tables)
        return EstimatedFinals(coach, lay, spread_for(coach, lay), f" (the {rules.name} score tables are not built)")
    return EstimatedFinals(coach, lay, spread_for(coach, lay))


# ----------------------------------------------------------------------------- chances
class DecisionChances(NamedTuple):
    """Every player's chance at a decision (to win, or to reach ``target``): before it and after each action."""

    before: np.ndarray  # (P,) at the position, the mover playing on by the model's policy
    actions: np.ndarray  # (A, P) after each action (NaN where illegal)
    mover: int
    exact: bool
    target: int | None

    def after(self, action: int) -> np.ndarray:
        return self.actions[action]

    def best_action(self) -> int:
        """The action after which the mover's chance is highest (the first of equals)."""
        return int(np.nanargmax(self.actions[:, self.mover]))

    def loss(self, action: int) -> float:
        """The mover's chance after the best action less after ``action`` (0 or more)."""
        return float(max(self.actions[self.best_action(), self.mover] - self.actions[action, self.mover], 0.0))


def position_chances(model: Finals, batch: GameBatch, game: int, target: int | None = None) -> np.ndarray:
    """(P,) each player's chance to win (or of reaching ``target``) at ``game``'s position."""
    return chances_of(model.position(batch, game), target)


def decision_chances(model: Finals, batch: GameBatch, game: int, values: np.ndarray | None = None,
                     target: int | None = None) -> DecisionChances:
    """The chances at ``game``'s decision before it and after each legal action (``values``: the coach's)."""
    if batch.done[game]:
        raise YambError("the game is over: no decision to judge")
    mover = int(batch.player[game])
    values = model.values(batch, game) if values is None else values
    position = model.position(batch, game, values)
    after = model.actions(batch, game, values)
    legal = after.sum(axis=1) > 0
    length = max(position.shape[1], after.shape[1])
    position, after = _pad(list(position), length), _pad(list(after), length)
    every = np.repeat(position[None], len(after), axis=0)
    every[:, mover] = after
    actions = np.full((len(after), len(position)), np.nan)
    actions[legal] = chances_of(every[legal], target)
    return DecisionChances(chances_of(position, target), actions, mover, model.exact, target)
