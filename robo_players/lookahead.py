"""Look-ahead: a search player's endings valued with the next turn's best plan (two turns or more).

``expectimax`` (and every player built on its search: ``-played``, ``-exact``,
the search-guided networks) ends a turn in the cell of highest worth, the
change the fill makes to the estimated final total ``E(T)`` of the table
(``robo_players.cell_values``): filling cell ``c`` with hand ``h`` from table
``T`` is worth ``V(T, c, h) = E(T') - E(T)``, ``T'`` the table after the fill.
The look-ahead values the ending at

    V(T, c, h) + N(T'),   N(T') = the expected value, before its first roll, of the
                          next turn played by the same one-turn search from T',

``N(T')`` being the start value of the turn optimizer's plan over the endings
``V(T', c', h')`` of the next turn (all of its rules: hand cells after the first
roll, announcements, pure hands, jokers). Both terms are changes of the same
estimate, so they add: ``V(T, c, h) + V(T', c', h') = E(T'') - E(T)``, the open
row's expectation that ``V(T, c, h)`` subtracts for ``c`` is not subtracted
again, and the row filled next turn has its expectation replaced by its
score once. The last turn leaves a full table: ``N = 0`` and the player is the
one-turn search move for move. With ``turns`` > 2 the next turn is itself
played with the look-ahead of ``turns - 1`` (``NAME+lookahead3``: three turns).

``T'`` depends on the cell (one the columns' order allows this turn) and,
through the numbers bonus, on the score of a number row (its level, 0 to 5
dice of the face), and under Yahtzee's joker rules on whether the Yahtzee row
scored (extra Yahtzees earn a bonus only then). So each such cell has one
next table per level of a number row, two
for a joker table's Yahtzee row, and one for any other row, filled at its
row's expectation rounded (its score changes nothing else in the estimate,
except a difference row's spread, which this approximation holds at the
expectation). ``N`` of the distinct ones is planned 64 at a time in SIMD lanes
(``expected_scores.lanes``), once per turn, and handed to the search as the
fourth part of its correction (``expectimax._correct``): added to each level
of a number row, and to a later row as intercept (and, for the Yahtzee row, a
slope through its two scores, which is exact).

For a search-guided network ``V`` is the network-corrected value; the
corrections of the next tables come from one batched forward pass over them.
Players over exact column values (``expectimax-column(s)``, networks with
``exact`` columns) correct the next tables' cells by their exact columns too.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from numba import get_num_threads, njit, prange

from expected_scores.lanes import plan_lanes
from robo_players.base import Player
from robo_players.cell_values import LEVELS, column_values
from robo_players.column_exact import ColumnExactPlayer
from robo_players.expectimax import NO_AFTER, ExpectimaxPlayer, _correct, _fill_value
from robo_players.neural.features import encode
from robo_players.neural.guided import SearchGuidedPlayer
from robo_players.neural.player import Forward, forward_rows
from robo_players.neural.population import Population
from yamb import kernels
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

BLOCK = 64  # next tables planned together, one per lane
CHUNKS_PER_THREAD = 4
SUFFIX = "+lookahead"  # a player name with it: that player with the look-ahead
SEARCH_PLAYERS = (ExpectimaxPlayer, SearchGuidedPlayer, ColumnExactPlayer)  # those with corrections to look ahead with
GAMES_AT_ONCE = 256  # games whose next tables are built together (memory: the look-ahead of 3 turns)


@njit(cache=True, inline="always")
def _classes(r, has_jokers, yz_row):
    """Next tables of filling row ``r``: one per level of a number row, two for a joker table's
    Yahtzee row (scored or not), else one."""
    if r < N_NUMBER_ROWS:
        return LEVELS
    if has_jokers and r == yz_row:
        return 2
    return 1


@njit(cache=True, inline="always")
def _open_cells(filled, g, p, n_rows, popcount):
    """Open cells of player ``p`` in game ``g``."""
    n = 0
    for c in range(filled.shape[2]):
        n += n_rows - popcount[filled[g, p, c]]
    return n


@njit(cache=True)
def _next_tables(games, filled, cells, player, consts, expected, level_score, params):
    """The next tables of every cell ``games``' movers may fill this turn (the open cells their
    columns' order allows): the game (index into ``games``), cell, class and roll count of each,
    and its mover's table (filled (S, 1, C), cells (S, 1, C, R))."""
    order, n_rows, has_jokers, yz_row = consts[0], consts[1], consts[12], consts[14]
    rolls, last_turn_rolls, popcount = consts[16], consts[17], consts[20]
    n_cols = order.shape[0]
    one = np.uint32(1)
    rows = np.uint32(kernels.ROW_BITS)
    n = 0
    for i in range(len(games)):
        g = games[i]
        if _open_cells(filled, g, player[g], n_rows, popcount) == 1:
            continue  # the last turn: no next turn
        for c in range(n_cols):
            allowed = order[c, filled[g, player[g], c]] & rows
            for r in range(n_rows):
                if (allowed >> np.uint32(r)) & one:
                    n += _classes(r, has_jokers, yz_row)
    owner = np.empty(n, dtype=np.int64)
    cell = np.empty(n, dtype=np.int64)
    klass = np.empty(n, dtype=np.int64)
    layers = np.empty(n, dtype=np.int64)
    next_filled = np.empty((n, 1, n_cols), dtype=filled.dtype)
    next_cells = np.empty((n, 1, n_cols, n_rows), dtype=cells.dtype)
    s = 0
    for i in range(len(games)):
        g = games[i]
        p = player[g]
        open_cells = _open_cells(filled, g, p, n_rows, popcount)
        if open_cells == 1:
            continue
        for c in range(n_cols):
            allowed = order[c, filled[g, p, c]] & rows
            for r in range(n_rows):
                if not (allowed >> np.uint32(r)) & one:
                    continue
                for k in range(_classes(r, has_jokers, yz_row)):
                    owner[s], cell[s], klass[s] = i, c * n_rows + r, k
                    layers[s] = last_turn_rolls if open_cells == 2 else rolls
                    next_filled[s, 0] = filled[g, p]
                    next_filled[s, 0, c] |= one << np.uint32(r)
                    next_cells[s, 0] = cells[g, p]
                    if r < N_NUMBER_ROWS:
                        score = level_score[r, k]
                    elif has_jokers and r == yz_row:
                        score = params[7] * k
                    else:
                        score = round(expected[c, r])
                    next_cells[s, 0, c, r] = score
                    s += 1
    return owner, cell, klass, layers, next_filled, next_cells


@njit(cache=True, inline="always")
def _best_fills(s, c, r, row, filled, cells, consts, tables, lin, num):
    """``row[m]``: the larger of itself and the value of filling row ``r`` of column ``c`` of next
    table ``s`` with each hand ``m`` (contiguous rows of the tables; jokers after)."""
    scores, joker_scores, five_face, has_jokers, yz_row = consts[3], consts[4], consts[5], consts[12], consts[14]
    levels, params, scores_t, levels_t = tables[3], tables[5], tables[12], tables[13]
    if r < N_NUMBER_ROWS:
        for m in range(len(row)):
            row[m] = max(row[m], num[c, r, levels_t[r, m]])
    else:
        a, b = lin[c, r, 0], lin[c, r, 1]
        for m in range(len(row)):
            row[m] = max(row[m], a * scores_t[r, m] + b)
    if has_jokers:  # a joker scores more, and an extra Yahtzee earns its bonus
        for m in range(len(row)):
            if five_face[m] > 0:
                v = _fill_value(c, r, m, filled[s, 0, c], scores, joker_scores, five_face, has_jokers, params,
                                cells[s, 0, c, yz_row], levels, lin, num)
                row[m] = max(row[m], v)


@njit(cache=True, inline="always")
def _best_announcements(c, r, left, row, tables, lin, num):
    """``row[m]``: the larger of itself and the value of announcing row ``r`` of column ``c`` holding
    each hand ``m`` with ``left`` rolls left (``expectimax._announce_value``, hand by hand)."""
    sign, row_value, reach = tables[6], tables[7], tables[8]
    if r < N_NUMBER_ROWS:
        steps = np.empty(reach.shape[3])
        for k in range(len(steps)):
            steps[k] = num[c, r, k + 1] - num[c, r, k]
        for m in range(len(row)):
            v = num[c, r, 0]
            for k in range(len(steps)):
                v += reach[left, m, r, k] * steps[k]
            row[m] = max(row[m], v)
    else:
        a, b = lin[c, r, 0] * sign[r], lin[c, r, 1]
        for m in range(len(row)):
            row[m] = max(row[m], a * row_value[left, m, r] + b)


@njit(cache=True, inline="always")
def _options(s, q, filled, cells, layers, consts, tables, adjust, values, lin, num, bits, q_options, q_pure):
    """The next turn's endings from next table ``s``, roll by roll, into queue slot ``q``: the
    options of every hand, and those open to a freshly thrown hand only (``pure``).

    ``values``: the uncorrected cell values of each column and the table they were computed
    for (tables of one game follow each other and differ in one column).

    The legal endings after each roll come from the engine's rules (``kernels.decision``);
    under the forced joker rule the hands of five alike are valued again with their own.
    """
    order, n_rows, five_face = consts[0], consts[1], consts[5]
    forced_joker, yz_row, pure_hand = consts[13], consts[14], consts[15]
    expected, variance, bonus_levels, levels, level_score, params = tables[:6]
    n_cols = order.shape[0]
    n_multisets = levels.shape[0]
    full = (1 << n_rows) - 1
    one = np.uint32(1)
    plain_lin, plain_num, source = values
    for c in range(n_cols):
        own = filled[s, 0, c]
        if own == full:
            continue
        k = source[c]  # a column as the table valued last left it keeps its values
        same = k >= 0 and filled[k, 0, c] == own
        for r in range(n_rows):
            same = same and cells[k, 0, c, r] == cells[s, 0, c, r]
        if not same:
            column_values(filled, cells, s, 0, c, expected, variance, bonus_levels, level_score, params,
                          plain_lin, plain_num)
            source[c] = s
        lin[c] = plain_lin[c]
        num[c] = plain_num[c]
        if adjust[0].shape[0]:
            _correct(adjust, s, c, own, lin, num)
    n_layers = layers[s]
    q_options[q, :n_layers] = -np.inf
    if pure_hand:
        q_pure[q, :n_layers] = -np.inf
    for t in range(n_layers):
        left = n_layers - 1 - t
        for face in range(7 if forced_joker else 1):
            _, may_roll = kernels.decision(filled, s, 0, order, bits, 0, t + 1, n_layers, -1, -1, False, face,
                                           n_rows, pure_hand, forced_joker, yz_row)
            if pure_hand:
                kernels.decision(filled, s, 0, order, bits, 1, t + 1, n_layers, -1, -1, True, face,
                                 n_rows, pure_hand, forced_joker, yz_row)
            same = t > 0 and face == 0 and not forced_joker
            for c in range(n_cols):
                same = same and bits[0, 1, c] == 0 and bits[2, 1, c] == 0 and bits[0, 0, c] == bits[2, 0, c] and (
                    not pure_hand or bits[1, 0, c] == bits[3, 0, c])
            if same:  # the endings of the roll before
                q_options[q, t] = q_options[q, t - 1]
                if pure_hand:
                    q_pure[q, t] = q_pure[q, t - 1]
            else:
                row = q_options[q, t]
                pure_row = q_pure[q, t] if pure_hand else row
                if face > 0:  # only the hands of five of this face, valued with their own endings
                    row = np.full(n_multisets, -np.inf)
                    pure_row = np.full(n_multisets, -np.inf)
                for c in range(n_cols):
                    for r in range(n_rows):
                        bit = one << np.uint32(r)
                        if bits[0, 0, c] & bit:
                            _best_fills(s, c, r, row, filled, cells, consts, tables, lin, num)
                        elif pure_hand and bits[1, 0, c] & bit:
                            _best_fills(s, c, r, pure_row, filled, cells, consts, tables, lin, num)
                        if bits[0, 1, c] & bit:
                            _best_announcements(c, r, left, row, tables, lin, num)
                if face > 0:
                    for m in range(n_multisets):
                        if five_face[m] == face:
                            q_options[q, t, m] = row[m]
                            if pure_hand:
                                q_pure[q, t, m] = pure_row[m]
        bits[2:] = bits[:2]
        if not may_roll:
            break


@njit(cache=True)
def _plan_block(n_queued, queued, n_layers, q_options, q_pure, tables, sub_keeps, work, out):
    """Plan the ``n_queued`` next turns of the queue (all of ``n_layers`` rolls) in lanes; their
    start values go to ``out[queued[q]]``."""
    add_die, remove_die, first_prob = tables[9], tables[10], tables[11]
    lane_options, lane_pure, lane_value, lane_keep, kv, best, arg = work
    n_multisets = q_options.shape[2]
    n_keeps = add_die.shape[0]
    lanes = n_queued
    size = n_layers * n_multisets * lanes
    options = lane_options[:size].reshape((n_layers, n_multisets, lanes))
    has_pure = q_pure.shape[1] > 0
    pure = lane_pure[:size if has_pure else 0].reshape((n_layers if has_pure else 0, n_multisets, lanes))
    for lane in range(lanes):
        for t in range(n_layers):
            for m in range(n_multisets):
                options[t, m, lane] = q_options[lane, t, m]
                if has_pure:
                    pure[t, m, lane] = q_pure[lane, t, m]
    value = lane_value[:size].reshape((n_layers, n_multisets, lanes))
    keep = lane_keep[:size].reshape((n_layers, n_multisets, lanes))
    plan_lanes(options, pure, add_die, remove_die, first_prob, value, keep,
               kv[: n_keeps * lanes].reshape((n_keeps, lanes)), best[: n_keeps * lanes].reshape((n_keeps, lanes)),
               arg[: n_keeps * lanes].reshape((n_keeps, lanes)), np.empty(0, dtype=np.int64), sub_keeps)
    for lane in range(lanes):
        start = 0.0
        for m in range(n_multisets):
            start += first_prob[m] * value[0, m, lane]
        out[queued[lane]] = start


@njit(cache=True)
def _values_range(start, stop, filled, cells, layers, consts, tables, adjust, out):
    """The next-turn values of next tables ``start`` to ``stop``, ``BLOCK`` at a time."""
    n_rows, pure_hand, sub_keeps = consts[1], consts[15], consts[18]
    n_cols = consts[0].shape[0]
    n_multisets = tables[3].shape[0]
    n_keeps = tables[9].shape[0]
    most = max(consts[16], consts[17])
    lane_size = most * n_multisets * BLOCK
    work = (np.empty(lane_size), np.empty(lane_size if pure_hand else 0), np.empty(lane_size),
            np.empty(lane_size, dtype=np.int16), np.empty(n_keeps * BLOCK), np.empty(n_keeps * BLOCK),
            np.empty(n_keeps * BLOCK, dtype=np.int32))
    q_options = np.empty((BLOCK, most, n_multisets))
    q_pure = np.empty((BLOCK, most if pure_hand else 0, n_multisets))
    queued = np.empty(BLOCK, dtype=np.int64)
    lin = np.zeros((n_cols, n_rows, 2))
    num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    values = (np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS)),
              np.full(n_cols, -1, dtype=np.int64))
    bits = np.zeros((4, 2, n_cols), dtype=np.uint32)  # this roll's endings, then the last roll's
    n_queued = 0
    n_layers = 0
    for s in range(start, stop):
        if n_queued and (n_queued == BLOCK or layers[s] != n_layers):
            _plan_block(n_queued, queued, n_layers, q_options, q_pure, tables, sub_keeps, work, out)
            n_queued = 0
        n_layers = layers[s]
        _options(s, n_queued, filled, cells, layers, consts, tables, adjust, values, lin, num, bits, q_options,
                 q_pure)
        queued[n_queued] = s
        n_queued += 1
    if n_queued:
        _plan_block(n_queued, queued, n_layers, q_options, q_pure, tables, sub_keeps, work, out)


@njit(cache=True, parallel=True)
def _next_values(filled, cells, layers, consts, tables, adjust, n_chunks, out):
    """``out[s]``: the start value of the next turn's one-turn plan from next table ``s``."""
    for chunk in prange(n_chunks):
        start = chunk * len(layers) // n_chunks
        stop = (chunk + 1) * len(layers) // n_chunks
        _values_range(start, stop, filled, cells, layers, consts, tables, adjust, out)


def _distinct(filled: np.ndarray, cells: np.ndarray, members: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The first of each distinct table (filled (S, 1, C), cells (S, 1, C, R)), of each member of
    a population if ``members`` (S,) is given, and, for each table, the index of its own among those."""
    if not len(filled):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    n = len(filled)
    parts = [filled.reshape(n, -1).view(np.uint8), cells.reshape(n, -1).view(np.uint8)]
    if members is not None:
        parts.append(np.ascontiguousarray(members, dtype=np.int64).reshape(n, 1).view(np.uint8))
    keys = np.ascontiguousarray(np.hstack(parts))
    rows = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first)  # in the order they came: a game's tables together
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


@dataclass(frozen=True)
class NextTables:
    """The movers' next tables, shaped as a batch for the network's features (``encode``)."""

    layout: Layout
    rules: Rules
    filled: np.ndarray  # (S, 1, C)
    cells: np.ndarray  # (S, 1, C, R)

    @property
    def n_games(self) -> int:
        return len(self.filled)

    @property
    def dice(self) -> np.ndarray:
        return np.zeros(self.n_games, dtype=np.int32)

    @property
    def roll(self) -> np.ndarray:
        return np.ones(self.n_games, dtype=np.int8)

    @property
    def rolls_allowed(self) -> np.ndarray:
        return np.full(self.n_games, self.rules.rolls, dtype=np.int8)

    @property
    def player(self) -> np.ndarray:
        return np.zeros(self.n_games, dtype=np.int32)


class LookaheadPlayer:
    """A search player (``ExpectimaxPlayer`` or a single ``SearchGuidedPlayer``) whose endings are
    worth their one-turn value plus the value of the next turn's plan from the table they leave."""

    def __init__(self, base: ExpectimaxPlayer, layout: Layout, turns: int = 2) -> None:
        """``turns``: the turns planned, this one included (2: this turn and the next)."""
        if type(base) not in SEARCH_PLAYERS:
            raise YambError(f"{getattr(base, 'name', base)!r} has no turn search to look ahead with; "
                            f"look-ahead works with expectimax, expectimax-played, expectimax-exact, "
                            f"expectimax-column(s)(-played), best and guided weight files")
        self.members = len(base.cell_values) if isinstance(base, SearchGuidedPlayer) else 1
        if self.members > 1 and not isinstance(base.forward, Population):  # type: ignore[union-attr]
            raise YambError("look-ahead plays a population of networks given as a Population only")
        if turns < 2:
            raise YambError(f"look-ahead plans 2 turns or more, not {turns}")
        self.base = base
        self.layout = layout
        self.turns = turns
        self.name = f"{base.name}{SUFFIX}{turns if turns != 2 else ''}"
        self._after: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()
        self._networks: dict[int, Forward] = {}

    def _cache(self, batch: GameBatch) -> tuple[np.ndarray, np.ndarray]:
        """The next-turn values of ``batch``'s games (C, R, LEVELS each) and the turn they hold."""
        if batch not in self._after:
            lay = batch.layout
            self._after[batch] = (np.zeros((batch.n_games, lay.n_columns, lay.n_rows, LEVELS)),
                                  np.full(batch.n_games, -1, dtype=np.int64))
        return self._after[batch]

    def _network(self, filled: np.ndarray, cells: np.ndarray, members: np.ndarray | None) -> tuple:
        """The base's corrections of the next tables as ``_correct`` reads them (none for expectimax):
        its network's and its exact columns', computed as for the tables in play; ``members``: the
        population member whose game left each table (None: one network)."""
        base = self.base
        if type(base) is ExpectimaxPlayer:
            return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64), 1.0
        tables = NextTables(self.layout, self.layout.rules, filled, cells)
        games = np.arange(len(filled), dtype=np.int64)
        if members is None:  # one network, or none: as for the tables in play
            return base.corrections(tables, games)  # type: ignore[arg-type]
        x = encode(tables, None, base.cell_values[members], False)  # type: ignore[arg-type]
        out = np.empty((len(filled), 2 * self.layout.n_cells), dtype=np.float32)
        for m in np.unique(members):  # each member's tables through its own network
            rows = np.flatnonzero(members == m)
            out[rows] = forward_rows(self._member(int(m)), x[rows])
        return base.compose(tables, games, out, games)

    def _member(self, m: int) -> Forward:
        """The network of population member ``m`` alone."""
        if m not in self._networks:
            self._networks[m] = self.base.forward.member(m)  # type: ignore[union-attr]
        return self._networks[m]

    def _ahead(self, games: np.ndarray, filled: np.ndarray, cells: np.ndarray, player: np.ndarray,
               consts: tuple, turns: int, members: np.ndarray | None) -> np.ndarray:
        """(n, C, R, LEVELS): what each ending of ``games``' current turns gains from the next
        ``turns`` turns, as ``_correct`` adds it: by level of a number row, else as intercept (and
        the Yahtzee row's slope). ``members``: each game's population member (None: one network)."""
        tables = self.base.tables
        expected, level_score, params = tables[0], tables[4], tables[5]
        owner, cell, klass, layers, next_filled, next_cells = _next_tables(
            games, filled, cells, player, consts, expected, level_score, params)
        # equal next tables (of games at the same point, or reached in either order) planned once,
        # for each member of a population
        next_members = None if members is None else members[owner]
        first, inverse = _distinct(next_filled, next_cells, next_members)
        values = np.zeros(len(first))
        layers, next_filled, next_cells = layers[first], next_filled[first], next_cells[first]
        if len(first):
            next_members = None if next_members is None else next_members[first]
            adjust = (*self._network(next_filled, next_cells, next_members), NO_AFTER)
            if turns > 1:  # the next turn looks ahead too
                n = len(first)
                outputs = adjust[0] if len(adjust[0]) else np.zeros((n, 2 * self.layout.n_cells), dtype=np.float32)
                later = self._ahead(np.arange(n), next_filled, next_cells, np.zeros(n, dtype=player.dtype),
                                    consts, turns - 1, next_members)
                adjust = (outputs, np.arange(n, dtype=np.int64), adjust[2], later)
            chunks = min(-(-len(first) // BLOCK), CHUNKS_PER_THREAD * get_num_threads())
            _next_values(next_filled, next_cells, layers, consts, tables, adjust, chunks, values)
        values = values[inverse]
        n_rows = self.layout.n_rows
        c, r = cell // n_rows, cell % n_rows
        after = np.zeros((len(games), self.layout.n_columns, n_rows, LEVELS))
        number = r < N_NUMBER_ROWS
        after[owner[number], c[number], r[number], klass[number]] = values[number]
        other = ~number & (klass == 0)
        after[owner[other], c[other], r[other], 0] = values[other]
        scored = ~number & (klass == 1)  # a joker table's Yahtzee row: the line through its two scores
        o, cs, rs = owner[scored], c[scored], r[scored]
        after[o, cs, rs, 1] = (values[scored] - after[o, cs, rs, 0]) / params[7]
        return after

    def next_values(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """(n, C, R, LEVELS): what each ending of ``games``' current turns gains from the turns
        looked ahead (see ``_ahead``), ``GAMES_AT_ONCE`` games at a time; a population's member by
        member, so that a member's chunks do not depend on the others."""
        games = np.asarray(games, dtype=np.int64)
        lay = self.layout
        out = np.zeros((len(games), lay.n_columns, lay.n_rows, LEVELS))
        groups: list[tuple[np.ndarray, int | None]] = [(np.arange(len(games)), None)]
        if self.members > 1:
            members = games // (batch.n_games // self.members)
            groups = [(np.flatnonzero(members == m), int(m)) for m in np.unique(members)]
        for index, member in groups:
            for i in range(0, len(index), GAMES_AT_ONCE):
                chunk = index[i:i + GAMES_AT_ONCE]
                who = None if member is None else np.full(len(chunk), member, dtype=np.int64)
                out[chunk] = self._ahead(games[chunk], batch.filled, batch.cells, batch.player, batch.constants,
                                         self.turns - 1, who)
        return out

    @property
    def tables(self) -> tuple:
        """The base search's tables (the look-ahead searches with them)."""
        return self.base.tables

    def corrections(self, batch: GameBatch, games: np.ndarray) -> tuple:
        """What the search of ``games`` adds to the cell values, a row per game: the base's
        corrections and the next turns' values (``_correct``'s four parts); the latter are kept
        for the rest of each game's turn."""
        games = np.asarray(games, dtype=np.int64)
        after, turn = self._cache(batch)
        stale = np.unique(games[turn[games] != batch.turn[games]])
        if len(stale):
            after[stale] = self.next_values(batch, stale)
            turn[stale] = batch.turn[stale]
        base = self.base
        if type(base) is not ExpectimaxPlayer:
            outputs, rows, scale = base.corrections(batch, games)
            outputs = outputs[rows]
        else:
            outputs, scale = np.zeros((len(games), 2 * self.layout.n_cells), dtype=np.float32), 1.0
        return outputs, np.arange(len(games), dtype=np.int64), scale, after[games]

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        with threads_for(len(games)):
            return self.base.search(batch, games, self.corrections(batch, games))


def split_name(name: str) -> tuple[str, int] | None:
    """``(base, turns)`` of a player name ``BASE+lookahead`` (2 turns) or ``BASE+lookaheadN``
    (N turns), else None."""
    head, sep, tail = name.rpartition(SUFFIX)
    if not sep or not head or not (tail == "" or tail.isdigit()):
        return None
    return head, int(tail or 2)


def lookahead_player(base: Player, layout: Layout, turns: int = 2) -> LookaheadPlayer:
    """``base`` with ``turns`` turns of look-ahead (``LookaheadPlayer``)."""
    return LookaheadPlayer(base, layout, turns)  # type: ignore[arg-type]
