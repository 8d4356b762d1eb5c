"""Teacher games recorded in the direct network's terms: what a ``direct`` player sees and may do
at each decision, and what the teacher did there.

The direct network (``robo_players.neural.direct``) chooses in two steps: the
best of the legal fills, the legal announcements and rolling again (its
*top* choice, ``2 CR + 1`` options: ``[fill CR | announce CR | roll]``), and
when it rolls, the best legal keep (a sub-multiset of the dice, not all of
them) by the additive score ``sum_f keep[f, count_f]``. Every engine action
is one of these: a fill, an announcement, or a keep, and an additive score
can make any one keep the best, so the teacher's action maps to the direct
network's choices exactly (no nearest action is needed) and back
(``engine_action``; tested by replaying recorded games).

``record`` plays a batch of games with the teacher (optionally some games
with a student, DAgger-style: the teacher labels the student's positions too)
and keeps at every decision the features (``features.encode`` with the
player's ``cell_values``), the legal top choices, the dice (the legal keeps
follow from them, ``keep_candidates``), the teacher's top choice and keep,
and the action played, for training (``robo_players.training.imitation``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from robo_players.base import Player
from robo_players.neural.features import encode
from robo_players.training.rows import Rows
from yamb.dice import DiceTables
from yamb.engine import GameBatch, _bits_to_cells
from yamb.layout import Layout


@dataclass
class Demonstrations(Rows):
    """Decisions of recorded games, one row each, in the order they were played.

    ``top`` indexes ``[fill CR | announce CR | roll]``; ``keep`` is the position
    of the kept dice among ``keep_candidates(dice)[hand]`` when ``top`` is the
    roll, else -1. ``game`` and ``step`` locate the decision (game index in its
    batch offset by ``first_game``, and the batch's step count); ``action`` is
    the engine action played there (the teacher's, or the student's in a game
    the student plays).
    """

    features: np.ndarray  # (n, F) float32
    legal: np.ndarray  # (n, 2CR+1) bool
    hand: np.ndarray  # (n,) int32 multiset index of the dice
    top: np.ndarray  # (n,) int16
    keep: np.ndarray  # (n,) int16
    game: np.ndarray  # (n,) int32
    step: np.ndarray  # (n,) int32
    action: np.ndarray  # (n,) int32


@cache
def _candidates(dice: DiceTables) -> np.ndarray:
    n_multisets, width = dice.sub_keeps.shape
    out = np.full((n_multisets, width), -1, dtype=np.int64)
    for m in range(n_multisets):
        subs = dice.sub_keeps[m, : dice.n_sub_keeps[m]]
        subs = subs[dice.keep_size[subs] < dice.n_dice]
        out[m, : len(subs)] = subs
    return out


def keep_candidates(dice: DiceTables) -> np.ndarray:
    """(M, S) the keeps a direct player may choose from each hand (every sub-multiset but the
    whole hand, in ``sub_keeps`` order, the order its ties are broken in), padded with -1."""
    return _candidates(dice)


def direct_choices(layout: Layout, hands: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Engine actions as the direct network's (top choice, keep position) (keep -1 if not a roll)."""
    cr, n_keeps = layout.n_cells, layout.n_keeps
    actions = np.asarray(actions, dtype=np.int64)
    top = np.where(actions < cr, actions, np.where(actions < cr + n_keeps, 2 * cr, actions - n_keeps))
    keep = np.full(len(actions), -1, dtype=np.int64)
    rolls = np.flatnonzero(top == 2 * cr)
    if len(rolls):
        cands = keep_candidates(layout.rules.dice)[hands[rolls]]
        match = cands == (actions[rolls] - cr)[:, None]
        if not match.any(axis=1).all():
            raise ValueError("a keep that is not a sub-multiset of the dice (or keeps them all)")
        keep[rolls] = match.argmax(axis=1)
    return top, keep


def engine_action(layout: Layout, hands: np.ndarray, top: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The engine actions of direct-network choices (the inverse of ``direct_choices``)."""
    cr, n_keeps = layout.n_cells, layout.n_keeps
    top = np.asarray(top, dtype=np.int64)
    kept = keep_candidates(layout.rules.dice)[np.asarray(hands), np.maximum(keep, 0)]
    return np.where(top < cr, top, np.where(top < 2 * cr, top + n_keeps, cr + kept))


def legal_top(batch: GameBatch, games: np.ndarray) -> np.ndarray:
    """(n, 2CR+1) the direct network's legal top choices: fills, announcements, rolling again."""
    d = batch.decisions(games)
    n_rows = batch.layout.n_rows
    return np.concatenate([_bits_to_cells(d.fill_bits, n_rows), _bits_to_cells(d.announce_bits, n_rows),
                           d.may_roll[:, None]], axis=1)


def record(
    layout: Layout,
    teacher: Player,
    games: int,
    seed: int,
    cell_values: np.ndarray,
    student: Player | None = None,
    student_games: int = 0,
    first_game: int = 0,
    progress: Callable[[int], None] | None = None,
) -> tuple[Demonstrations, np.ndarray]:
    """The decisions of ``games`` solitaire games (dice streams ``first_game ..``) and their scores.

    Games ``0 .. student_games - 1`` of the batch are played by ``student``, the
    others by ``teacher``; the teacher labels every decision of all of them.
    ``cell_values`` (CR,) are the direct player's values of open cells.
    """
    if layout.players != 1:
        raise ValueError("demonstrations are solitaire games")
    streams = np.arange(first_game, first_game + games, dtype=np.uint64)
    batch = GameBatch(layout, games, seed=seed, streams=streams)
    values = np.asarray(cell_values, dtype=np.float32)[None]
    parts: list[tuple[np.ndarray, ...]] = []
    step, finished = 0, 0
    while not batch.done.all():
        active = np.flatnonzero(~batch.done)
        hands = batch.dice[active].astype(np.int32)
        features = encode(batch, active, values, True)
        legal = legal_top(batch, active)
        actions = np.asarray(teacher.act(batch, active), dtype=np.int64)
        top, keep = direct_choices(layout, hands, actions)
        played = actions.copy()
        by_student = active < student_games
        if student is not None and by_student.any():
            played[by_student] = student.act(batch, active[by_student])
        parts.append((features, legal, hands, top.astype(np.int16), keep.astype(np.int16),
                      (active + first_game).astype(np.int32), np.full(len(active), step, dtype=np.int32),
                      played.astype(np.int32)))
        batch.step(played, active)
        step += 1
        if progress is not None and batch.done.sum() > finished:
            progress(int(batch.done.sum()) - finished)
            finished = int(batch.done.sum())
    columns = [np.concatenate(c) for c in zip(*parts)]
    return Demonstrations(*columns), batch.scores()[:, 0]


def final_cells(layout: Layout, teacher: Player, games: int, seed: int) -> np.ndarray:
    """(CR,) the mean final score of each cell in ``games`` games of ``teacher``: the direct
    player's cell values, as evolution sets them after a generation (the mean over its games)."""
    from robo_players.base import play

    batch = GameBatch(layout, games, seed=seed)
    play(batch, [teacher])
    return batch.cells[:, 0].reshape(games, -1).mean(axis=0)
