"""Every search player hands the search kernels its corrections in one type: each kernel compiles once."""

import numpy as np
import pytest

from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.build import population_player
from robo_players.neural.files import load_weights
from robo_players.registry import make_player
from robo_players.search.correction import NO_CORRECTION, corrections_of
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules


@pytest.mark.parametrize(("preset", "name"), [("yamb", "best"), ("yamb", "best+lookahead"), ("yatzy", "best"),
                                              ("yamb", "expectimax-columns"), ("yamb", "expectimax")])
def test_corrections_are_float64(preset: str, name: str) -> None:
    lay = layout(rules(preset))
    batch = GameBatch(lay, 3, seed=1)
    batch.step(batch.legal_actions().argmax(axis=1))  # a keep or a fill: the next decision sees a table
    adjust = corrections_of(make_player(name, lay), batch, np.arange(3))
    assert adjust.outputs.dtype == np.float64 and adjust.outputs.flags.c_contiguous


def test_a_population_s_corrections_are_float64() -> None:
    lay = layout(rules("yatzy"))
    weights = load_weights(BOTS_DIR / bot_name(lay))
    population = population_player(weights.spec, np.stack([weights.genome, weights.genome]),
                                   np.stack([weights.cell_values, weights.cell_values]))
    batch = GameBatch(lay, 4, seed=2)
    adjust = corrections_of(population, batch, np.arange(4))
    assert adjust.outputs.dtype == np.float64
    assert NO_CORRECTION.outputs.dtype == np.float64
