"""The batched engine: the state of N games as arrays, advanced by vectorized steps.

Every game is at a decision point after a roll. Its legal actions (see
``yamb.layout`` for the integer encoding) are fills, keeps-and-reroll and
announcements; ``GameBatch.step`` applies one action per game. Dice come from a
counter-based hash of (seed, stream, turn, roll), so a game's dice do not depend
on the batch it is played in, and games that share a stream share their luck
(common random numbers).
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np

from yamb import kernels
from yamb.batch_arrays import STATE_ARRAYS, BatchState, Constants
from yamb.checks import check_seed, is_int
from yamb.columns import ANNOUNCE_ROLL, ORDINARY_KINDS
from yamb.errors import IllegalMoveError, YambError
from yamb.layout import Layout

_NO_CELL = -1
PARALLEL_GAMES = 2_000  # kernels use all numba threads for at least this many games
COLUMN_CLASS = {
    **{kind: kernels.ORDINARY for kind in ORDINARY_KINDS},
    "hand": kernels.HAND,
    "announce": kernels.ANNOUNCE,
    "late_announce": kernels.LATE,
    "counter_announce": kernels.COUNTER,
}


@contextmanager
def single_thread() -> Iterator[None]:
    """Run numba kernels on the calling thread only.

    A small batch gains nothing from worker threads, and waking them costs
    milliseconds per call when the machine is busy.
    """
    saved = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(saved)


def threads_for(n_games: int) -> AbstractContextManager[None]:
    """Numba threads for kernels over ``n_games`` games: all of them for large batches,
    one for small ones (``single_thread``).

    Players that run their own parallel kernels can use it the same way:
    ``with threads_for(len(games)): my_kernel(...)``.
    """
    return nullcontext() if n_games >= PARALLEL_GAMES else single_thread()


def serial_copy(kernel: Any) -> Any:
    """A one-thread compiled copy of a ``parallel=True`` numba kernel (its ``prange`` runs as ``range``).

    Calling it never starts numba's threading layer (GNU OpenMP here, which
    forbids ``fork`` once started), so a process that played only small
    batches, a ``Game`` or a Gymnasium env, can fork workers. It is compiled and
    cached under its own name: numba's cache key does not include ``parallel``.
    """
    f = kernel.py_func
    copy = types.FunctionType(f.__code__, f.__globals__, f"{f.__name__}_serial", f.__defaults__, f.__closure__)
    copy.__qualname__ = f"{f.__qualname__}_serial"
    copy.__module__ = f.__module__
    copy.__doc__ = f.__doc__
    return numba.njit(cache=True)(copy)


class EngineKernels(NamedTuple):
    """The engine's kernels over games: ``legal``, ``illegal`` and ``apply`` (see ``yamb.kernels``)."""

    legal: Any
    illegal: Any
    apply: Any


PARALLEL_KERNELS = EngineKernels(kernels.legal, kernels.illegal, kernels.apply)
SERIAL_KERNELS = EngineKernels(*map(serial_copy, PARALLEL_KERNELS))


def kernels_for(n_games: int) -> EngineKernels:
    """The parallel kernels for at least ``PARALLEL_GAMES`` games, else their one-thread copies."""
    return PARALLEL_KERNELS if n_games >= PARALLEL_GAMES else SERIAL_KERNELS


def _bits_to_cells(bits: np.ndarray, n_rows: int) -> np.ndarray:
    """(N, C) row bitmasks to an (N, C * R) boolean cell mask."""
    rows = np.arange(n_rows, dtype=np.uint32)
    return ((bits[:, :, None] >> rows) & np.uint32(1)).astype(bool).reshape(len(bits), -1)


@dataclass
class Decisions:
    """What each game may do now: (n, C) row bitmasks and (n,) flags."""

    fill_bits: np.ndarray
    announce_bits: np.ndarray
    must_announce: np.ndarray
    may_roll: np.ndarray


class GameBatch:
    """N games of one layout, stepped together.

    Its arrays (``N`` games, ``P`` players, ``C`` columns, ``R`` rows) are
    attributes named as the fields of ``yamb.batch_arrays.BatchState``, which
    documents them; ``state`` gives them together, as the kernels take them, and
    ``constants`` the layout's ``Constants``.
    """

    def __init__(
        self,
        layout: Layout,
        n_games: int,
        seed: int = 0,
        streams: np.ndarray | None = None,
    ) -> None:
        if not is_int(n_games) or n_games < 0:
            raise YambError(f"a batch needs a whole number of games (0 or more), not {n_games!r}")
        self.layout = layout
        self.rules = layout.rules
        self.n_games = n_games = int(n_games)
        self.seed = seed = check_seed("seed", seed)
        n, p, c, r = n_games, layout.players, layout.n_columns, layout.n_rows
        self.streams = (
            np.arange(n, dtype=np.uint64) if streams is None else np.asarray(streams, dtype=np.uint64)
        )
        if self.streams.shape != (n,):
            raise YambError(f"streams must have shape ({n},), not {self.streams.shape}")
        self._base = kernels.stream_keys(np.uint64(seed), self.streams)
        self.filled = np.zeros((n, p, c), dtype=np.uint32)
        self.cells = np.zeros((n, p, c, r), dtype=np.int16)
        self.dice = np.zeros(n, dtype=np.int32)
        self.roll = np.zeros(n, dtype=np.int8)
        self.rolls_allowed = np.full(n, self.rules.rolls, dtype=np.int8)
        self.pure = np.ones(n, dtype=bool)
        self.announced = np.full(n, _NO_CELL, dtype=np.int32)
        self.answer = np.full(n, _NO_CELL, dtype=np.int32)
        self.player = np.zeros(n, dtype=np.int32)
        self.turn = np.zeros(n, dtype=np.int32)
        self.last_announced = np.full((n, p), _NO_CELL, dtype=np.int32)
        self.bonuses = np.zeros((n, p), dtype=np.int16)
        self.done = np.zeros(n, dtype=bool)
        self._rows = np.arange(n, dtype=np.int64)
        self.constants = self._constants()
        kernels_for(n).apply(self._rows, np.full(n, kernels.START_TURN), *self.state, self.constants)

    # ----------------------------------------------------------------- kernel plumbing
    @property
    def state(self) -> BatchState:
        """The batch's arrays as the kernels take them (views, not copies)."""
        return BatchState(*(getattr(self, name) for name in STATE_ARRAYS), self._base)

    def _constants(self) -> Constants:
        lay, rules = self.layout, self.rules
        dice = rules.dice
        kinds = np.array([COLUMN_CLASS[k] for k in lay.columns], dtype=np.uint32)
        order = lay.order_tables | (kinds[:, None] << np.uint32(kernels.KIND_SHIFT))
        return Constants(
            order, lay.n_rows, lay.players, rules.scores, rules.joker_scores,
            rules.five_alike_face, dice.keep_key, dice.keep_size.astype(np.int64),
            dice.roll_prefix_key, dice.key_to_keep, rules.n_dice, dice.n_keeps - dice.n_multisets,
            rules.has_jokers, rules.joker == "forced",
            rules.row_index("yahtzee") if rules.has_jokers else -1,
            rules.spec.pure_hand_announce, rules.rolls, rules.spec.last_turn_rolls,
            dice.sub_keeps, dice.n_sub_keeps, lay.popcount,
        )

    def _games(self, games: np.ndarray | None) -> np.ndarray:
        """Game indices as int64, checked: the kernels do not check bounds."""
        if games is None:
            return self._rows
        games = np.asarray(games, dtype=np.int64)
        if games.ndim != 1 or (len(games) and not 0 <= games.min() <= games.max() < self.n_games):
            raise YambError(f"games must be a 1-d array of indices from 0 to {self.n_games - 1}")
        return games

    def fork(self, games: np.ndarray, seed: int | None = None, streams: np.ndarray | None = None) -> GameBatch:
        """A new batch whose game i is a copy of game ``games[i]`` of this one, from where it stands.

        Its later dice come from ``seed`` and ``streams`` (default: the originals', so a fork rolls
        what the original would).
        """
        games = self._games(games)
        out = GameBatch(self.layout, len(games), seed=self.seed if seed is None else seed,
                        streams=self.streams[games] if streams is None else streams)
        for key in STATE_ARRAYS:
            getattr(out, key)[:] = getattr(self, key)[games]
        return out

    # ----------------------------------------------------------------- random numbers
    def uniform(self, games: np.ndarray | None = None, salt: int = 1) -> np.ndarray:
        """Uniform floats in [0, 1), one per game, reproducible from (seed, stream, turn, roll)."""
        games = self._games(games)
        out = np.empty(len(games))
        kernels.uniforms(games, self.state, salt, out)
        return out

    # ----------------------------------------------------------------- legal actions
    def decisions(self, games: np.ndarray | None = None) -> Decisions:
        """Legal fills, announcements and rolls of ``games`` (default: all)."""
        games = self._games(games)
        n, c = len(games), self.layout.n_columns
        bits = np.zeros((n, 2, c), dtype=np.uint32)
        out = Decisions(
            fill_bits=bits[:, 0],
            announce_bits=bits[:, 1],
            must_announce=np.zeros(n, dtype=bool),
            may_roll=np.zeros(n, dtype=bool),
        )
        kernels_for(n).legal(games, self.state, self.constants, bits, out.must_announce, out.may_roll)
        done = self.done[games]
        out.fill_bits[done] = 0
        out.announce_bits[done] = 0
        out.may_roll[done] = False
        return out

    def legal_actions(self, games: np.ndarray | None = None) -> np.ndarray:
        """(n, A) boolean mask of every legal action (see ``yamb.layout``)."""
        games = self._games(games)
        lay = self.layout
        d = self.decisions(games)
        dice = self.rules.dice
        mask = np.zeros((len(games), lay.n_actions), dtype=bool)
        mask[:, : lay.n_cells] = _bits_to_cells(d.fill_bits, lay.n_rows)
        mask[:, lay.n_cells + lay.n_keeps :] = _bits_to_cells(d.announce_bits, lay.n_rows)
        rolling = np.flatnonzero(d.may_roll)
        hands = self.dice[games[rolling]]
        subs = dice.sub_keeps[hands]  # keeps inside each hand, padded with -1
        rows = np.broadcast_to(rolling[:, None], subs.shape)
        inside = subs >= 0
        mask[rows[inside], lay.n_cells + subs[inside]] = True
        mask[rolling, lay.n_cells + dice.keep_of_multiset[hands]] = False  # keeping all is no roll
        return mask

    # ----------------------------------------------------------------- actions
    def step(self, actions: np.ndarray, games: np.ndarray | None = None, check: bool = True) -> None:
        """Apply one action to each game in ``games`` (default: every game not done).

        With ``check`` an illegal action raises ``IllegalMoveError`` naming the rule
        it breaks, before any game is changed; without it only the actions' range
        is checked (an action outside ``0 .. n_actions - 1`` would never end its
        game), not the rules, nor even the game indices.
        """
        if games is None:
            games = np.flatnonzero(~self.done)
            actions = np.asarray(actions)[games]
        games = self._games(games) if check else np.asarray(games, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64).reshape(games.shape)
        if check:
            self._check(games, actions)
        elif len(actions) and not 0 <= actions.min() <= actions.max() < self.layout.n_actions:
            bad = actions[(actions < 0) | (actions >= self.layout.n_actions)][0]
            raise IllegalMoveError(f"action {bad} is out of range 0..{self.layout.n_actions - 1}")
        kernels_for(len(games)).apply(games, actions, *self.state, self.constants)

    def _check(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Raise ``IllegalMoveError`` for the first illegal action, if any."""
        n = len(games)
        increasing = bool((games[1:] > games[:-1]).all())
        if not increasing and len(np.unique(games)) != n:
            raise IllegalMoveError("each game may take only one action per step")
        bad = np.zeros(n, dtype=bool)
        scratch = np.empty((n, 2, self.layout.n_columns), dtype=np.uint32)
        kernels_for(n).illegal(games, actions, self.state, self.constants, scratch, bad)
        if bad.any():
            i = int(np.argmax(bad))
            raise IllegalMoveError(self.explain_illegal(int(games[i]), int(actions[i])))

    def explain_illegal(self, game: int, action: int) -> str:
        """One sentence naming the rule that ``action`` breaks in ``game``."""
        lay = self.layout
        if self.done[game]:
            return "the game is over"
        if not 0 <= action < lay.n_actions:
            return f"action {action} is out of range 0..{lay.n_actions - 1}"
        return f"cannot {lay.describe_action(action)}: {self._broken_rule(game, action)}"

    def _broken_rule(self, game: int, action: int) -> str:
        lay = self.layout
        d = self.decisions(np.array([game]))
        announced, answer = int(self.announced[game]), int(self.answer[game])
        if action >= lay.n_cells + lay.n_keeps:
            c, r = divmod(action - lay.n_cells - lay.n_keeps, lay.n_rows)
            kind = lay.columns[c]
            if announced >= 0:
                return f"{lay.cell_name(announced)} is already announced"
            if answer >= 0:
                return f"this turn must answer {lay.cell_name(answer)}"
            if kind not in ANNOUNCE_ROLL:
                return f"a {kind} column is never announced"
            if self.filled[game, self.player[game], c] >> r & 1:
                return "the cell is already filled"
            if kind == "counter_announce" and self.roll[game] == 1:
                return "a counter_announce row is announced only when no other cell is open"
            when = "second" if ANNOUNCE_ROLL[kind] == 2 else "first"
            return f"a {kind} row is announced right after the {when} roll"
        if d.must_announce[0]:
            return "no cell can be filled without an announcement, so a row must be announced first"
        if action >= lay.n_cells:
            if self.rules.dice.keep_size[action - lay.n_cells] == self.rules.n_dice:
                return "keeping all the dice is not a roll"
            if self.roll[game] >= self.rolls_allowed[game]:
                return f"no rolls left this turn ({self.rolls_allowed[game]} rolls)"
            if not d.may_roll[0]:
                return "no cell could be filled after another roll"
            return "the dice do not contain those faces"
        c, r = divmod(action, lay.n_rows)
        kind = lay.columns[c]
        if self.filled[game, self.player[game], c] >> r & 1:
            return "the cell is already filled"
        if announced >= 0:
            return f"the turn must fill the announced {lay.cell_name(announced)}"
        if answer >= 0:
            return f"the turn must answer the counter-announcement {lay.cell_name(answer)}"
        if kind == "hand":
            return "a hand column is filled only with the first roll of a turn"
        if kind == "announce" and self.rules.spec.pure_hand_announce:
            return ("an announce cell is filled after announcing it, or with a pure hand "
                    "(every die thrown by the latest roll) while other cells are open")
        if kind in ANNOUNCE_ROLL:
            return f"a cell of the {kind} column is filled only by announcing it"
        if self.rules.joker == "forced" and self.rules.five_alike_face[self.dice[game]]:
            return "the forced joker rule decides where this Yahtzee goes"
        return f"the {kind} column's order does not allow that row now"

    # ----------------------------------------------------------------- results
    def totals(self) -> dict[str, np.ndarray]:
        """Computed rows of every column: arrays of shape (N, P, C)."""
        return self.rules.column_totals(self.cells)

    def scores(self) -> np.ndarray:
        """(N, P) current total of each player, Yahtzee bonuses included."""
        totals = self.totals()["total"].sum(axis=-1)
        return totals + self.rules.spec.extra_yahtzee_bonus * self.bonuses.astype(np.int64)
