"""The luck of the dice: how much better each roll came out than a reference search expected.

A roll from keep ``k`` gives hand ``h`` with probability ``P(h | k)`` (``DiceTables.outcome_prob``;
a turn's first roll is the empty keep's). A reference search values every hand the roll could
give, ``V(h)``: the best of its endings now and its plan for the rest of the turn (the values
``expectimax`` and the guided players search with, ``robo_players.search``). The roll's luck is

    V(hand rolled) - sum over h of P(h | k) V(h),

which has mean zero whatever ``V`` is, since the hand is drawn from ``P(. | k)``. A game's
final score less the sum of its rolls' luck therefore has the score's expectation, and
when ``V`` follows the score (a good search does) a small part of its variance: the
*luck-adjusted score* (control variates, as backgammon programs' variance-reduced rollouts use;
on yamb the standard deviation of a game falls from about 100 points to about 16).
The player's own decisions are not luck: a worse move lowers the adjusted score as it
lowers the score.

``LuckCounter`` wraps a player and adds up each game's luck as it plays; ``roll_luck`` is the
kernel.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from robo_players.base import Player
from robo_players.registry import make_player
from robo_players.search.cell_values import ONE
from robo_players.search.correction import corrected_values, corrections_of
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lanes import BLOCK, gather_slots, new_lanes, new_queue, plan_slot_values
from robo_players.search.turn import _best_ending, _queue_turn, new_work
from robo_players.search.values import FILL, best_announcements, best_fills
from yamb import kernels
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError
from yamb.layout import Layout

CHUNKS_PER_THREAD = 4
FRESH = 0  # the keep of a roll of every die: the empty keep (``DiceTables.keeps[0]``)


@njit(cache=True, inline="always")
def _decision(g, p, h, state, consts, bits):
    """``kernels.decision`` of game ``g``'s player ``p`` holding hand ``h``, into ``bits[0]``."""
    return kernels.decision(
        state.filled, g, p, consts.order, bits, 0, state.roll[g], state.rolls_allowed[g], state.announced[g],
        state.answer[g], state.pure[g], consts.five_face[h], consts.n_rows, consts.pure_hand, consts.forced_joker,
        consts.yz_row)


@njit(cache=True)
def _hand_values(i, g, q, state, consts, tables, adjust, work, queue, best, may):
    """``best[h]``: the reference's value of holding hand ``h`` now in game ``g`` as far as its
    endings now go, its cell values corrected by row ``i`` of ``adjust``; ``may[h]``: whether the
    rules let it roll on, and then the turn is queued in slot ``q`` for its plan (``_plan_hands``).
    Returns whether it was queued."""
    filled, cells, player = state.filled, state.cells, state.player
    n_cols, n_rows = consts.order.shape[0], consts.n_rows
    lin, num, bits, ends = work.lin, work.num, work.bits, work.ends
    p = player[g]
    corrected_values(filled, cells, g, p, tables, adjust, i, lin, num)
    left = state.rolls_allowed[g] - state.roll[g]
    n_multisets = best.shape[0]
    any_roll = False
    if consts.has_jokers:  # the legal endings may depend on the hand (a joker's rules): hand by hand
        for h in range(n_multisets):
            must, may_roll = _decision(g, p, h, state, consts, bits)
            best[h], _ = _best_ending(g, p, h, left, bits[0], filled, cells, consts, tables, lin, num)
            may[h] = may_roll and not must
            any_roll = any_roll or may[h]
    else:  # the same endings for every hand, valued a row of hands at a time
        must, may_roll = _decision(g, p, state.dice[g], state, consts, bits)
        for h in range(n_multisets):
            best[h] = -np.inf
            may[h] = may_roll and not must
        any_roll = may_roll and not must
        n_ends = 0
        for c in range(n_cols):
            for r in range(n_rows):
                if (bits[0, 0, c] >> np.uint32(r)) & ONE:
                    ends[n_ends, 0] = c * n_rows + r
                    ends[n_ends, 1] = FILL
                    n_ends += 1
                if (bits[0, 1, c] >> np.uint32(r)) & ONE:
                    best_announcements(best, c, r, left, tables, lin, num)
        best_fills(best, best, ends, n_ends, g, p, filled, cells, consts, tables, lin, num)
    if not any_roll:
        return False
    target = state.announced[g] if state.announced[g] >= 0 else state.answer[g]
    m = state.dice[g]
    _queue_turn(q, g, p, m, left, best[m], target, state, consts, tables, queue, ends, lin, num)
    for h in range(n_multisets):
        queue.options[q, 0, h] = best[h]
    return True


@njit(cache=True, inline="always")
def _roll_luck(value, k, hand, outcome_prob):
    """The luck of rolling ``hand`` from keep ``k``: its value less the mean over the outcomes."""
    expected = 0.0
    for h in range(value.shape[0]):
        expected += outcome_prob[k, h] * value[h]
    return value[hand] - expected


@njit(cache=True)
def _plan_hands(n_queued, queue, lanes, tables, best, may, index, games, kept, state, outcome_prob, out):
    """Plan the ``n_queued`` queued turns, those of a roll count together in lanes; each hand the
    rules let roll on is worth its plan's value, and the luck of slot ``q``'s roll goes to
    ``out[index[q]]``."""
    for layers in range(2, queue.options.shape[1] + 1):
        n_lanes = gather_slots(queue, n_queued, layers, lanes)
        if n_lanes == 0:
            continue
        value = plan_slot_values(queue, lanes, n_lanes, layers, tables)
        for lane in range(n_lanes):
            q = lanes.slot[lane]
            for h in range(best.shape[1]):
                if may[q, h]:
                    best[q, h] = value[0, h, lane]
            i = index[q]
            out[i] = _roll_luck(best[q], kept[i], state.dice[games[i]], outcome_prob)


@njit(cache=True)
def _luck_range(start, stop, games, kept, state, consts, tables, outcome_prob, adjust, out):
    """``roll_luck`` of ``games[start:stop]``, with one chunk's work buffers: the turns that may
    roll on planned ``BLOCK`` at a time."""
    n_cols, n_rows = consts.order.shape[0], consts.n_rows
    n_multisets = tables.levels.shape[0]
    rolls = max(consts.rolls, consts.last_turn_rolls)
    work = new_work(n_cols, n_rows, 1)
    queue = new_queue(rolls, n_multisets, consts.pure_hand)
    lanes = new_lanes(rolls, n_multisets, len(consts.keep_size), consts.pure_hand)
    best = np.empty((BLOCK, n_multisets))
    may = np.empty((BLOCK, n_multisets), dtype=np.bool_)
    index = np.empty(BLOCK, dtype=np.int64)  # the game (index into ``games``) of each queue slot
    n_queued = 0
    for i in range(start, stop):
        g = games[i]
        if not _hand_values(i, g, n_queued, state, consts, tables, adjust, work, queue, best[n_queued],
                            may[n_queued]):
            out[i] = _roll_luck(best[n_queued], kept[i], state.dice[g], outcome_prob)
            continue
        index[n_queued] = i
        n_queued += 1
        if n_queued == BLOCK:
            _plan_hands(n_queued, queue, lanes, tables, best, may, index, games, kept, state, outcome_prob, out)
            n_queued = 0
    _plan_hands(n_queued, queue, lanes, tables, best, may, index, games, kept, state, outcome_prob, out)


@njit(cache=True, parallel=True)
def roll_luck(games, kept, state, consts, tables, outcome_prob, adjust, out, n_chunks):
    """``out[i]``: the luck of the roll that gave ``games[i]`` its hand, rolled from keep
    ``kept[i]`` (``FRESH`` for every die): the reference's value of the hand less its mean value
    over ``outcome_prob[kept[i]]`` (the module's docstring). In ``n_chunks`` parallel chunks."""
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        _luck_range(start, stop, games, kept, state, consts, tables, outcome_prob, adjust, out)


def luck_reference(name: str, layout: Layout) -> ExpectimaxPlayer:
    """The search player ``name`` (``expectimax``, ``best``, a guided network's file) to value
    rolls with, or a ``YambError`` saying why it cannot."""
    return searching(make_player(name, layout))


def searching(player: Player) -> ExpectimaxPlayer:
    """``player`` if it is a search player (it values hands), else a ``YambError``."""
    if not isinstance(player, ExpectimaxPlayer):
        raise YambError(f"the luck of a roll is valued by a search player (expectimax, best, a guided network), "
                        f"not {player.name}")
    return player


def luck_of(reference: ExpectimaxPlayer, batch: GameBatch, games: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """(n,) the luck of the roll that gave each of ``games`` its hand, rolled from keep ``kept``
    (``FRESH``: every die), as ``reference`` values the hands (``roll_luck``)."""
    games, kept = np.asarray(games, dtype=np.int64), np.asarray(kept, dtype=np.int64)
    out = np.empty(len(games))
    with threads_for(len(games)):
        adjust = corrections_of(reference, batch, games)
        roll_luck(games, kept, batch.state, batch.constants, reference.tables, batch.rules.dice.outcome_prob,
                  adjust, out, min(len(games), CHUNKS_PER_THREAD * get_num_threads()))
    return out


class LuckCounter:
    """``player``, adding up the luck of each roll its games get (``luck``, (N, P) by game and
    seat), as ``reference`` (a search player: ``expectimax``, a guided network) values hands.

    Each roll is counted once, at the first decision after it; a keep is remembered from the
    action that rolled it. Use one counter per batch.
    """

    def __init__(self, player: Player, reference: ExpectimaxPlayer, batch: GameBatch) -> None:
        self.player, self.reference, self.batch = player, searching(reference), batch
        self.name = player.name
        lay = batch.layout
        self.luck = np.zeros((batch.n_games, lay.players))
        self._counted = np.full(batch.n_games, -1, dtype=np.int64)  # the (turn, roll) last counted
        self._kept = np.full(batch.n_games, FRESH, dtype=np.int64)  # the keep of each game's last roll

    def count(self, games: np.ndarray) -> None:
        """Add the luck of ``games``' rolls not counted yet."""
        batch = self.batch
        games = np.asarray(games, dtype=np.int64)
        rolls = max(batch.rules.rolls, batch.rules.spec.last_turn_rolls)
        now = batch.turn[games].astype(np.int64) * (rolls + 1) + batch.roll[games]
        new = now != self._counted[games]
        games, now = games[new], now[new]
        if not len(games):
            return
        kept = np.where(batch.roll[games] == 1, FRESH, self._kept[games])
        out = luck_of(self.reference, batch, games, kept)
        self.luck[games, batch.player[games]] += out
        self._counted[games] = now

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        if batch is not self.batch:
            raise YambError("a LuckCounter counts the games of the batch it was made for")
        self.count(games)
        actions = np.asarray(self.player.act(batch, games), dtype=np.int64)
        lay = batch.layout
        keeps = (actions >= lay.n_cells) & (actions < lay.n_cells + lay.n_keeps)
        self._kept[np.asarray(games)[keeps]] = actions[keeps] - lay.n_cells
        return actions
