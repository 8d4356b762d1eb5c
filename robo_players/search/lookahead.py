"""Look-ahead: a search player's endings valued with the next turn's best plan (two turns or more).

``expectimax`` (and every player built on its search: ``-played``, ``-exact``,
the search-guided networks) ends a turn in the cell of highest worth, the
change the fill makes to the estimated final total ``E(T)`` of the table
(``robo_players.search.cell_values``): filling cell ``c`` with hand ``h`` from table
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
``after`` part of its correction (``robo_players.search.correction``): added to each level
of a number row, and to a later row as intercept (and, for the Yahtzee row, a
slope through its two scores, which is exact).

A ``leaf`` (``robo_players.neural.afterstate_values``) gives ``N`` of the distinct next tables
instead of their next turn's plan: a network's value of the rest of the game beyond ``E``.

For a search-guided network ``V`` is the network-corrected value; the
corrections of the next tables come from one batched forward pass over them.
Players over exact column values (``expectimax-column(s)``, networks with
``exact`` columns) correct the next tables' cells by their exact columns too.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import get_num_threads

from robo_players.base import Player
from robo_players.neural.features import encode
from robo_players.neural.guided import SearchGuidedPlayer
from robo_players.neural.player import Forward, network_outputs
from robo_players.neural.population import Population
from robo_players.search.cell_values import LEVELS, YZ_SCORE
from robo_players.search.column_exact import ColumnExactPlayer
from robo_players.search.correction import NO_CORRECTION, Correction
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lanes import BLOCK
from robo_players.search.next_turn import (
    CHUNKS_PER_THREAD,
    Successors,
    fill_gaps,
    next_tables,
    next_values,
)
from robo_players.search.tables import SearchTables
from yamb.batch_arrays import Constants
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

SUFFIX = "+lookahead"  # a player name with it: that player with the look-ahead
SEARCH_PLAYERS = (ExpectimaxPlayer, SearchGuidedPlayer, ColumnExactPlayer)  # those with corrections to look ahead with
MOST_TURNS = 4  # a fifth turn planned would need tens of GB (yamb: 1 GB at 3 turns, 1.7 at 4, 17 s a game)
MARGIN = float("inf")  # look ahead from fills within this many points of a hand's best one-turn fill
GAMES_AT_ONCE = 256  # games whose next tables are built together (memory: the look-ahead of 3 turns)


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


Leaf = Callable[[NextTables], np.ndarray]  # (S,) float64: a value N of each next table, in place of its turn's plan


@dataclass
class _TurnCache:
    """A batch's games' next-turn values (n, C, R, LEVELS), the base's corrections of their tables
    (a row each, at ``scale``), and the turn both are for."""

    after: np.ndarray
    turn: np.ndarray
    outputs: np.ndarray | None = None
    scale: float = 1.0


class LookaheadPlayer:
    """A search player (``ExpectimaxPlayer`` or a single ``SearchGuidedPlayer``) whose endings are
    worth their one-turn value plus the value of the next turn's plan from the table they leave."""

    def __init__(self, base: ExpectimaxPlayer, layout: Layout, turns: int = 2, margin: float = MARGIN,
                 leaf: Leaf | None = None) -> None:
        """``turns``: the turns planned, this one included (2: this turn and the next); ``margin``:
        look ahead only from fills within it of the best fill for some hand (``inf``: from all);
        ``leaf``: the next tables valued by it (``N`` of each) instead of by the next turn's plan."""
        if type(base) not in SEARCH_PLAYERS:
            raise YambError(f"{getattr(base, 'name', base)!r} has no turn search to look ahead with; "
                            f"look-ahead works with expectimax, expectimax-played, expectimax-exact, "
                            f"expectimax-column(s)(-played), best and guided weight files")
        self.members = len(base.cell_values) if isinstance(base, SearchGuidedPlayer) else 1
        if self.members > 1 and not isinstance(base.forward, Population):  # type: ignore[union-attr]
            raise YambError("look-ahead plays a population of networks given as a Population only")
        if not 2 <= turns <= MOST_TURNS:
            raise YambError(f"look-ahead plans 2 to {MOST_TURNS} turns, not {turns}")
        if not margin >= 0:
            raise YambError(f"the look-ahead's margin is a number of points, 0 or more, not {margin}")
        if leaf is not None and turns != 2:
            raise YambError(f"a look-ahead with a leaf value plans this turn and values the next tables: 2 turns, not {turns}")
        self.base = base
        self.layout = layout
        self.turns = turns
        self.leaf = leaf
        self.margin = float(margin)
        self.name = f"{base.name}{SUFFIX}{turns if turns != 2 else ''}" + (f"@{margin:g}" if margin != MARGIN else "")
        self._kept: weakref.WeakKeyDictionary[GameBatch, _TurnCache] = weakref.WeakKeyDictionary()
        self._networks: dict[int, Forward] = {}

    def _cache(self, batch: GameBatch) -> _TurnCache:
        """What ``batch``'s games keep for their turns (``_TurnCache``)."""
        if batch not in self._kept:
            lay = batch.layout
            self._kept[batch] = _TurnCache(np.zeros((batch.n_games, lay.n_columns, lay.n_rows, LEVELS)),
                                            np.full(batch.n_games, -1, dtype=np.int64))
        return self._kept[batch]

    def _network(self, state: GameBatch | NextTables, games: np.ndarray, members: np.ndarray | None,
                 exact: np.ndarray | None) -> Correction:
        """The base's corrections of ``games``' tables in ``state`` (none for expectimax): its
        network's and its exact columns' (``exact``, (n, 2, C, R)), a row per game; ``members``:
        the population member whose game left each next table (None: the base's own network, or
        a population playing ``state``)."""
        base = self.base
        if type(base) is ExpectimaxPlayer:
            return NO_CORRECTION
        rows = np.arange(len(games), dtype=np.int64)
        if type(base) is ColumnExactPlayer:
            return Correction(exact.reshape(len(games), -1), rows, 1.0)  # type: ignore[union-attr]
        if members is None and self.members > 1:  # a population's tables in play, as it plays them
            own = base.corrections(state, games)  # type: ignore[arg-type]
            return Correction(own.outputs, own.rows, own.scale)
        if members is None:  # one network
            out, at = network_outputs(base.forward, state, games, base.cell_values, False)  # type: ignore[arg-type]
            return base.compose(state, games, out, at, exact)  # type: ignore[arg-type]
        x = encode(state, None, base.cell_values[members], False)  # type: ignore[arg-type]
        out = np.empty((len(games), 2 * self.layout.n_cells), dtype=np.float32)
        for m in np.unique(members):  # each member's tables through its own network
            at = np.flatnonzero(members == m)
            out[at] = self._member(int(m))(x[at][None])[0]
        return base.compose(state, games, out, rows, exact)  # type: ignore[arg-type]

    def _exact_after(self, nexts: Successors, which: np.ndarray, before: np.ndarray | None) -> np.ndarray | None:
        """(len(which), 2, C, R): the exact columns' corrections of next tables ``which``, those of
        their game's table (``before``, a row per game) with the column filled computed again;
        None without exact columns."""
        if before is None:
            return None
        lay = self.layout
        tables = NextTables(lay, lay.rules, nexts.filled[which], nexts.cells[which])
        return self.base.exact.corrections_after(  # type: ignore[union-attr]
            tables, np.arange(len(which), dtype=np.int64), nexts.cell[which] // lay.n_rows,
            before[nexts.owner[which]])

    def _member(self, m: int) -> Forward:
        """The network of population member ``m`` alone."""
        if m not in self._networks:
            self._networks[m] = self.base.forward.member(m)  # type: ignore[union-attr]
        return self._networks[m]

    def _ahead(self, games: np.ndarray, filled: np.ndarray, cells: np.ndarray, player: np.ndarray,
               consts: Constants, turns: int, members: np.ndarray | None, adjust: Correction,
               exact: np.ndarray | None) -> np.ndarray:
        """(n, C, R, LEVELS): what each ending of ``games``' current turns gains from the next
        ``turns`` turns, as ``Correction.after`` adds it: by level of a number row, else as
        intercept (and the Yahtzee row's slope). ``members``: each game's population member
        (None: one network); ``adjust``: the corrections of ``games``' tables, a row per game
        (what the margin compares fills by); ``exact``: their exact columns' part (None:
        none)."""
        tables = self.base.tables
        nexts = next_tables(games, filled, cells, player, consts, tables)
        ahead = self._near_best(nexts, games, filled, cells, player, consts, adjust)
        # equal next tables (of games at the same point, or reached in either order) planned once,
        # for each member of a population
        next_members = None if members is None else members[nexts.owner]
        first, inverse = _distinct(nexts.filled[ahead], nexts.cells[ahead],
                                   None if next_members is None else next_members[ahead])
        values = np.zeros(len(first))
        which = np.flatnonzero(ahead)[first]
        if len(which) and self.leaf is not None:
            values[:] = self.leaf(NextTables(self.layout, self.layout.rules, nexts.filled[which], nexts.cells[which]))
        elif len(which):
            values[:] = self._start_values(nexts.layers[which], nexts.filled[which], nexts.cells[which], consts,
                                           turns, None if next_members is None else next_members[which],
                                           self._exact_after(nexts, which, exact))
        every = np.empty(len(nexts.owner))
        every[ahead] = values[inverse]
        if not ahead.all():  # a fill not looked ahead from: the least of its game's next values
            least = np.full(len(games), np.inf)
            np.minimum.at(least, nexts.owner[ahead], every[ahead])
            every[~ahead] = least[nexts.owner[~ahead]]
        return self._as_after(len(games), nexts, every, tables)

    def _near_best(self, nexts: Successors, games: np.ndarray, filled: np.ndarray, cells: np.ndarray,
                   player: np.ndarray, consts: Constants, adjust: Correction) -> np.ndarray:
        """(S,) bool: the next tables looked ahead from, those of fills whose one-turn value is
        within ``margin`` of the best fill for some hand (``fill_gaps``); every one if the margin
        is infinite."""
        if np.isinf(self.margin):
            return np.ones(len(nexts.owner), dtype=bool)
        gaps = self._gaps(games, filled, cells, player, consts, adjust)
        n_rows = self.layout.n_rows
        return gaps[nexts.owner, nexts.cell // n_rows, nexts.cell % n_rows, nexts.klass] <= self.margin

    def _start_values(self, layers: np.ndarray, filled: np.ndarray, cells: np.ndarray, consts: Constants,
                      turns: int, members: np.ndarray | None, exact: np.ndarray | None) -> np.ndarray:
        """The start value of the next turn from each of these distinct next tables (their exact
        columns' corrections ``exact``, see ``_network``), that turn looking ahead ``turns - 1``
        turns more."""
        n = len(layers)
        adjust = self._network(NextTables(self.layout, self.layout.rules, filled, cells), np.arange(n), members,
                               exact)
        if turns > 1:  # the next turn looks ahead too
            outputs = adjust.outputs if len(adjust.outputs) else np.zeros((n, 2 * self.layout.n_cells))
            later = self._ahead(np.arange(n), filled, cells, np.zeros(n, dtype=np.int32), consts, turns - 1, members,
                                adjust, exact)
            adjust = Correction(outputs, np.arange(n, dtype=np.int64), adjust.scale, later)
        values = np.zeros(n)
        chunks = min(-(-n // BLOCK), CHUNKS_PER_THREAD * get_num_threads())
        next_values(filled, cells, layers, consts, self.base.tables, adjust, chunks, values)
        return values

    def _as_after(self, n: int, nexts: Successors, values: np.ndarray, tables: SearchTables) -> np.ndarray:
        """(n, C, R, LEVELS): the next tables' ``values`` where ``Correction.after`` adds them."""
        n_rows = self.layout.n_rows
        c, r, klass, owner = nexts.cell // n_rows, nexts.cell % n_rows, nexts.klass, nexts.owner
        after = np.zeros((n, self.layout.n_columns, n_rows, LEVELS))
        number = r < N_NUMBER_ROWS
        after[owner[number], c[number], r[number], klass[number]] = values[number]
        other = ~number & (klass == 0)
        after[owner[other], c[other], r[other], 0] = values[other]
        scored = ~number & (klass == 1)  # a joker table's Yahtzee row: the line through its two scores
        o, cs, rs = owner[scored], c[scored], r[scored]
        after[o, cs, rs, 1] = (values[scored] - after[o, cs, rs, 0]) / tables.params[YZ_SCORE]
        return after

    def gaps(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """(n, C, R, LEVELS): how far each fill ``games``' movers may make this turn falls below the
        best one-turn fill, for the hand of each class it falls least below (``fill_gaps``)."""
        games = np.asarray(games, dtype=np.int64)
        return self._gaps(games, batch.filled, batch.cells, batch.player, batch.constants,
                          self._own(batch, games)[0])

    def _gaps(self, games: np.ndarray, filled: np.ndarray, cells: np.ndarray, player: np.ndarray,
              consts: Constants, adjust: Correction) -> np.ndarray:
        lay = self.layout
        gaps = np.empty((len(games), lay.n_columns, lay.n_rows, LEVELS))
        fill_gaps(games, filled, cells, player, consts, self.base.tables, adjust, gaps)
        return gaps

    def _own(self, batch: GameBatch, games: np.ndarray) -> tuple[Correction, np.ndarray | None]:
        """The base's corrections of ``games``' tables (none for expectimax), and their exact
        columns' part (n, 2, C, R) (None: no exact columns)."""
        exact = getattr(self.base, "exact", None)
        exact_part = None if exact is None else exact.corrections(batch, games)
        return self._network(batch, games, None, exact_part), exact_part

    def next_values(self, batch: GameBatch, games: np.ndarray,
                    own: tuple[Correction, np.ndarray | None] | None = None) -> np.ndarray:
        """(n, C, R, LEVELS): what each ending of ``games``' current turns gains from the turns
        looked ahead (see ``_ahead``), ``GAMES_AT_ONCE`` games at a time; a population's member by
        member, so that a member's chunks do not depend on the others. ``own``: the base's
        corrections of ``games`` and their exact columns' part (``_own``), computed here if not
        given."""
        games = np.asarray(games, dtype=np.int64)
        adjust, exact = self._own(batch, games) if own is None else own
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
                rows = adjust.rows[chunk] if len(adjust.rows) else adjust.rows
                out[chunk] = self._ahead(games[chunk], batch.filled, batch.cells, batch.player, batch.constants,
                                         self.turns - 1, who, adjust._replace(rows=rows),
                                         None if exact is None else exact[chunk])
        return out

    @property
    def tables(self) -> SearchTables:
        """The base search's tables (the look-ahead searches with them)."""
        return self.base.tables

    def corrections(self, batch: GameBatch, games: np.ndarray) -> Correction:
        """What the search of ``games`` adds to the cell values, a row per game: the base's
        corrections and the next turns' values (``Correction.after``), both computed at a
        game's first step of a turn and kept for the rest of it (they depend on its table only)."""
        games = np.asarray(games, dtype=np.int64)
        kept = self._cache(batch)
        stale = np.flatnonzero(kept.turn[games] != batch.turn[games])
        stale = games[stale[np.unique(games[stale], return_index=True)[1]]]  # the stale games, each once
        if len(stale):
            own, exact = self._own(batch, stale)
            kept.after[stale] = self.next_values(batch, stale, (own, exact))
            kept.turn[stale] = batch.turn[stale]
            if len(own.rows):
                outputs, kept.scale = own.outputs[own.rows], own.scale
            else:
                outputs = np.zeros((len(stale), 2 * self.layout.n_cells))
            if kept.outputs is None:
                kept.outputs = np.zeros((batch.n_games, outputs.shape[1]), dtype=outputs.dtype)
            kept.outputs[stale] = outputs
        return Correction(kept.outputs[games], np.arange(len(games), dtype=np.int64), kept.scale, kept.after[games])

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        with threads_for(len(games)):
            return self.base.search(batch, games, self.corrections(batch, games))


def split_name(name: str) -> tuple[str, int, float] | None:
    """``(base, turns, margin)`` of a player name ``BASE+lookahead`` (2 turns) or
    ``BASE+lookaheadN`` (N turns), either followed by ``@MARGIN`` (points, or ``inf``: look ahead
    from every fill; default ``MARGIN``), else None."""
    head, sep, tail = name.rpartition(SUFFIX)
    tail, at, margin = tail.partition("@")
    if not sep or not head or not (tail == "" or tail.isdigit()):
        return None
    if at:
        try:
            value = float(margin)
        except ValueError:
            raise YambError(f"the look-ahead's margin in {name!r} is a number of points or inf, not {margin!r}") from None
        if not value >= 0:
            raise YambError(f"the look-ahead's margin in {name!r} is 0 or more, not {margin}")
        return head, int(tail or 2), value
    return head, int(tail or 2), MARGIN


def lookahead_player(base: Player, layout: Layout, turns: int = 2, margin: float = MARGIN) -> LookaheadPlayer:
    """``base`` with ``turns`` turns of look-ahead from the fills within ``margin`` of the best
    (``LookaheadPlayer``)."""
    return LookaheadPlayer(base, layout, turns, margin)  # type: ignore[arg-type]
