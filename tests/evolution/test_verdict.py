"""A run's verdict: its statistics, the player it started from, and the quick preset's run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evolution.config import from_recipe, with_settings
from evolution.planning import plan
from evolution.run import evolve, resume, start
from evolution.run_dir import RunDir
from evolution.state import new_state
from evolution.verdict import SIGNIFICANCE, starting_genome, verdict_lines, verdict_of
from robo_players.measure.compare import paired_difference
from robo_players.measure.simulate import simulate
from robo_players.neural.build import load_player
from tests.evolution.test_evolution import Interrupted, assert_same, outputs, stop_after


def test_paired_statistics_of_a_hand_made_case() -> None:
    a = np.array([10, 20, 30, 40, 50])
    b = np.array([7, 21, 26, 35, 46])
    # differences 3, -1, 4, 5, 4: mean 3, deviations 0 -4 1 2 1, variance 22 / 4, sem sqrt(5.5 / 5)
    d = paired_difference(a, b)
    sem = np.sqrt(5.5 / 5)
    assert d["mean"] == pytest.approx(3.0) and d["sem"] == pytest.approx(sem)
    # t = 3 / sem = 2.8604 on 4 degrees of freedom: two-sided p from Student's t, and scipy's paired t-test
    assert d["p"] == pytest.approx(2 * stats.t.sf(3 / sem, df=4))
    assert d["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert 0.04 < d["p"] < 0.05
    assert paired_difference(a, a)["p"] == 1.0 and paired_difference(a + 2, a)["p"] == 0.0
    # luck-adjusted scores of the same play, the luck valued over other batches: rounding, not a difference
    noise = np.random.default_rng(0).normal(0, 1e-4, len(a))
    assert paired_difference(a + noise, a) == {"mean": 0.0, "sem": 0.0, "p": 1.0}
    assert paired_difference(a + 0.05 + noise, a)["mean"] == pytest.approx(0.05, abs=1e-3)


def test_the_verdict_pairs_the_evolved_player_with_both_references() -> None:
    rng = np.random.default_rng(4)
    start_scores = rng.normal(1000, 100, 400).round()
    evolved = start_scores + rng.normal(20, 30, 400).round()
    expectimax = start_scores + rng.normal(-5, 30, 400).round()
    v = verdict_of(evolved, start_scores, expectimax)
    for key, other in (("evolved_minus_start", start_scores), ("evolved_minus_expectimax", expectimax)):
        t = stats.ttest_rel(evolved, other)
        diff = evolved - other
        assert v[key]["mean"] == pytest.approx(diff.mean())
        assert v[key]["sem"] == pytest.approx(diff.std(ddof=1) / 20)
        assert v[key]["p"] == pytest.approx(t.pvalue)
    assert v["evolved"]["mean"] == pytest.approx(evolved.mean())
    lines = verdict_lines({**v, "games": 400, "start_player": "expectimax", "play": "yamb play --bot x.pt"})
    assert v["evolved_minus_start"]["p"] < SIGNIFICANCE and lines[2].endswith(": better")
    assert lines[-1] == "play against it: yamb play --bot x.pt"


@pytest.mark.parametrize("algorithm", ["ga", "cma", "sep-cma", "es"])
def test_the_starting_genome_is_generation_zeros(algorithm: str) -> None:
    config = with_settings(from_recipe("direct"), dict(algorithm=algorithm, game="yatzy", hidden="2",
                                                       population=4, seed=9))
    state = new_state(plan(config))
    genome, values = starting_genome(state)
    first = state.strategy.centroid if algorithm != "ga" else state.population[0]
    assert np.array_equal(genome, np.asarray(first)) and np.array_equal(values, state.cell_values)


QUICK = dict(population=4, games=3, generations=3, final_games=8, workers=1)


@pytest.mark.slow
def test_the_quick_preset_resumes_exactly_and_its_verdict_is_played_on_common_dice(tmp_path: Path) -> None:
    config = with_settings(from_recipe("quick"), QUICK)
    assert config.player == "guided" and config.played == 0  # starts exactly at expectimax
    whole = evolve(start(config, tmp_path / "whole"), tmp_path / "whole")
    cut = tmp_path / "cut"
    with pytest.raises(Interrupted):
        evolve(start(config, cut), cut, stop_after(2))
    resumed = evolve(resume(cut, {}), cut)
    assert_same(outputs(tmp_path / "whole"), outputs(cut))
    same = {"seconds": 0, "play": ""}  # the time taken and the run directory differ
    assert resumed["verdict"] | same == whole["verdict"] | same

    v = json.loads((cut / "summary.json").read_text())["verdict"]
    assert v["start_player"] == "expectimax"
    # the zero network plays exactly like expectimax, so on common dice the two rows are the same games
    assert v["start"] == v["expectimax"] and v["evolved_minus_start"] == v["evolved_minus_expectimax"]
    lay = RunDir(cut).load_checkpoint().spec.layout()
    alone = simulate(lay, load_player(cut / "best.pt", lay), v["games"], seed=v["seed"])
    assert v["evolved"]["mean"] == pytest.approx(alone.mean())
    assert v["play"] == f"yamb play --bot {cut}/best.pt"
