"""Monte Carlo and human players: legal play, reproducible rollouts, typed commands."""

from __future__ import annotations

import numpy as np
import pytest

from robo_players.base import play
from robo_players.greedy import GreedyPlayer
from robo_players.measure.simulate import simulate
from robo_players.montecarlo import MonteCarloPlayer
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.terminal.human import HumanPlayer


@pytest.mark.parametrize(
    ("preset", "joker", "columns", "players"),
    [
        ("yamb", None, ("hand", "late_announce", "middle", "updown"), 1),
        ("yamb", None, ("counter_announce", "free"), 2),
        ("jamb6", None, None, 1),
        ("yahtzee", "forced", None, 1),
    ],
)
def test_montecarlo_makes_only_legal_moves(preset: str, joker: str | None, columns: tuple | None,
                                           players: int) -> None:
    lay = layout(rules(preset, joker=joker), columns, players)
    player = MonteCarloPlayer(lay, base=GreedyPlayer(), rollouts=3, horizon=2, quantile=0.25)
    batch = GameBatch(lay, 2, seed=1)
    play(batch, [player] * players, check=True)
    assert (batch.filled == lay.full_mask).all()


def test_montecarlo_is_reproducible_and_can_differ_from_its_base() -> None:
    lay = layout(rules("yatzy"))
    player = MonteCarloPlayer(lay, base=GreedyPlayer(), rollouts=3, horizon=2)
    first = simulate(lay, player, 3, seed=2)
    assert (first == simulate(lay, player, 3, seed=2)).all()
    assert (first != simulate(lay, GreedyPlayer(), 3, seed=2)).any()


def test_montecarlo_with_a_one_turn_horizon_takes_the_best_estimate() -> None:
    """After one turn nothing is rolled: each fill's value is the column estimate, computed here by hand."""
    lay = layout(rules("yamb"), ("free", "down"))
    batch = GameBatch(lay, 1, seed=3)
    while batch.turn[0] < 9:
        batch.step(GreedyPlayer().act(batch, np.array([0])), np.array([0]))
    batch.roll[0] = batch.rolls_allowed[0]  # no rolls left: the turn ends in a fill
    player = MonteCarloPlayer(lay, base=GreedyPlayer(), rollouts=2, horizon=1)
    legal = np.flatnonzero(batch.legal_actions(np.array([0]))[0])
    assert len(legal) > 2
    estimates = {}
    for cell in legal:
        copy = batch.fork(np.array([0]))
        copy.step(np.array([cell]), np.array([0]))
        open_rows = ~((copy.filled[0, 0][:, None] >> np.arange(lay.n_rows)) & 1).astype(bool)
        cells = np.where(open_rows, player.expected, copy.cells[0, 0])
        estimates[int(cell)] = lay.rules.column_totals(cells)["total"].sum()
    action = int(player.act(batch, np.array([0]))[0])
    assert estimates[action] == max(estimates.values())
    assert len(set(estimates.values())) > 1


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"rollouts": 0}, "rollouts"), ({"horizon": 0}, "horizon"), ({"quantile": 1.5}, "quantile")],
)
def test_montecarlo_refuses_bad_parameters(kwargs: dict, needle: str) -> None:
    with pytest.raises(YambError, match=needle):
        MonteCarloPlayer(layout(rules("yatzy")), **kwargs)


def _one_game(preset: str, columns: tuple | None = None) -> GameBatch:
    return GameBatch(layout(rules(preset), columns), 1, seed=6)


def test_human_commands_parse_to_actions() -> None:
    batch = _one_game("yamb")
    lay = batch.layout
    human = HumanPlayer()
    assert human.parse(batch, "fill free yamb") == lay.cell("free", "yamb")
    assert human.parse(batch, "f fr two_p") == lay.cell("free", "two_pairs")
    assert human.parse(batch, "announce ann full") == lay.n_cells + lay.n_keeps + lay.cell("announce", "full_house")
    keep = human.parse(batch, "keep 6 6 5")
    assert tuple(lay.rules.dice.keeps[keep - lay.n_cells]) == (0, 0, 0, 0, 1, 2)
    assert human.parse(batch, "roll") == lay.n_cells + int(np.flatnonzero(lay.rules.dice.keep_size == 0)[0])
    for text, needle in (("dance", "unknown command"), ("keep 7", "faces 1 to 6"), ("fill nowhere yamb", "column")):
        with pytest.raises(YambError, match=needle):
            human.parse(batch, text)


def test_human_retries_until_legal_and_explains() -> None:
    batch = _one_game("yamb")
    typed = iter(["?", "jump", "fill down yamb", "announce announce yamb"])
    shown: list[str] = []
    human = HumanPlayer(read=lambda prompt: next(typed), write=shown.append)
    action = int(human.act(batch, np.array([0]))[0])
    lay = batch.layout
    assert action == lay.n_cells + lay.n_keeps + lay.cell("announce", "yamb")
    text = "\n".join(shown)
    assert "roll 1 of 3" in text
    assert "fill down:ones (+" in text  # the legal moves, with scores
    assert "unknown command 'jump'" in text
    assert "order does not allow" in text  # the engine's reason why down:yamb is illegal


def test_human_plays_a_whole_game_by_typing() -> None:
    lay = layout(rules("yatzy"))
    batch = GameBatch(lay, 1, seed=8)
    typed = iter([f"fill {row}" for row in lay.rules.rows])
    human = HumanPlayer(read=lambda prompt: next(typed), write=lambda text: None)
    scores = play(batch, [human], check=True)
    assert batch.done[0]
    assert scores[0, 0] == batch.rules.column_totals(batch.cells[0, 0])["total"].sum()
