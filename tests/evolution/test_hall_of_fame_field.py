"""The objective win against the hall of fame (``field = "hall-of-fame"``): the field is the run's start
player until the hall has a member, then its best members; the same seed gives the same run in one process,
in two, on Ray and across a resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evolution import win_objective
from evolution.algorithms import field_of, ga_generation, make_toolbox
from evolution.config import from_recipe, with_settings
from evolution.evaluate import GENERATION, Task, dice_seed, play_task
from evolution.planning import plan
from evolution.run import evolve, resume, start
from evolution.run_dir import RunDir
from evolution.state import new_state
from evolution.verdict import start_strength, verdict_lines
from evolution.win_objective import hall_field, match_of
from robo_players.measure.match import play_match
from robo_players.neural.build import population_player
from tests.evolution.test_backends import assert_same_run, yamb
from tests.programs import error_lines, require_binary
from tests.servers import loopback_network
from yamb.layout import layout
from yamb_app.cli import main

# three-player games (two seats of the field, two hall members), three generations, a resume after the first
RUN = ["--recipe", "direct", "--preset", "yatzy", "--objective", "win", "--set", "field=hall-of-fame",
       "--set", "opponents=2", "--set", "hall_of_fame=2", "--population", "4", "--games", "3", "--generations", "3",
       "--hidden", "2", "--final-games", "4", "--set", "elite=1", "--seed", "7"]


def network(state, genome, cell_values):
    """One network of the run's spec, as a match's player."""
    return population_player(state.spec, np.asarray(genome, dtype=np.float32)[None],
                             np.asarray(cell_values, dtype=np.float32)[None])


def test_the_field_is_the_start_until_the_hall_has_members_then_its_best():
    """Generation 1 plays the start, generation 2 the hall's best; each member's fitness is its share of
    the wins against that network as ``play_match`` counts it on the same deals, a player at a time."""
    config = with_settings(from_recipe("direct"), dict(game="yatzy", population=4, games=6, generations=2, hidden="2",
                                                       final_games=4, hall_of_fame=1, elite=1, objective="win",
                                                       field="hall-of-fame", seed=3))
    state = new_state(plan(config))
    toolbox = make_toolbox(state)
    two = layout(state.spec.layout().rules, players=2)
    fields = []
    for index in range(2):
        if index:
            genome, values = state.hall_of_fame[0], state.hall_of_fame[0].cell_values
        else:
            genome, values = state.start.genome, state.start.cell_values
        fields.append(field_of(state))
        assert np.array_equal(fields[-1].genomes, np.asarray(genome, dtype=np.float32)[None])
        members = list(state.population)
        ga_generation(state, toolbox)
        assert state.field.digest == fields[-1].digest and len(state.hall_of_fame) == 1
        seed = dice_seed(config.seed, GENERATION, index)
        for member in members:
            report = play_match(two, {"member": network(state, member, member.cell_values),
                                      "field": network(state, genome, values)}, config.games, seed)
            assert member.fitness.values[0] == pytest.approx(report.wins[:, 0].mean(), abs=1e-12)
    assert fields[0].digest != fields[1].digest


def test_the_same_seed_gives_the_same_run_in_one_process_in_two_and_across_a_resume(tmp_path: Path):
    for name, extra in (("one", []), ("again", []), ("two", ["--workers", "2"])):
        assert main(["evolve", *RUN, *extra, "--out", str(tmp_path / name)]) == 0
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert "the shares of the wins against the run's hall of fame" in verdict_lines(summary["verdict"])[0]
    assert_same_run(tmp_path / "one", tmp_path / "again")
    assert_same_run(tmp_path / "one", tmp_path / "two")

    class Stop(Exception):
        pass

    def stop(state, entry):
        raise Stop

    cut = tmp_path / "cut"
    config = RunDir(tmp_path / "one").read_config()
    with pytest.raises(Stop):
        evolve(start(config, cut), cut, stop)
    assert RunDir(cut).load_checkpoint().generation == 1
    evolve(resume(cut, {}), cut)
    assert_same_run(tmp_path / "one", cut)


def test_the_fields_players_are_made_once_per_distinct_hall(monkeypatch: pytest.MonkeyPatch):
    """Tasks of the same field make its players once; a field of other weights makes its own."""
    made = []

    def counted(spec, genomes, cell_values):
        made.append(genomes.copy())
        return population_player(spec, genomes, cell_values)

    monkeypatch.setattr(win_objective, "population_player", counted)
    monkeypatch.setattr(win_objective, "_HALL_PLAYERS", {})
    config = with_settings(from_recipe("direct"), dict(game="yatzy", population=2, games=2, hidden="2", elite=1,
                                                       objective="win", field="hall-of-fame", opponents=2))
    state = new_state(plan(config))
    genomes = np.asarray(state.population, dtype=np.float32)
    values = np.tile(state.cell_values, (2, 1)).astype(np.float32)
    start_field = field_of(state)
    other = hall_field(state.spec, [(genomes[1], values[1])], 2)
    for hall, seed in ((start_field, 1), (start_field, 2), (other, 1), (start_field, 3)):
        play_task(Task(state.spec, genomes, values, 2, seed, match=match_of(config, hall)))
    assert len(made) == 2 * 2  # a player per seat, for each of the two fields
    assert all(np.array_equal(m[0], g) for m, g in zip(made, [*start_field.genomes, *other.genomes]))


def test_the_start_plays_itself_before_the_first_generation():
    """Against copies of itself on the same dice, a seat-blind player wins exactly its share by symmetry."""
    config = with_settings(from_recipe("win"), dict(game="yatzy", init="best", field="hall-of-fame", opponents=2,
                                                    final_games=10))
    state = new_state(plan(config))
    line = start_strength(state, make_toolbox(state))[0]
    assert "scores 0.33 ± 0.00" in line and "against itself in the other seats" in line and "1/3" in line, line


def test_field_hall_of_fame_plays_for_wins_only(capsys: pytest.CaptureFixture):
    assert main(["evolve", "--preset", "yatzy", "--set", "field=hall-of-fame"]) == 2
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and "field and opponents apply to objective win only" in err[0], err


@pytest.mark.slow
def test_ray_gives_the_same_run(tmp_path: Path):
    require_binary("ray")
    assert main(["evolve", *RUN, "--out", str(tmp_path / "one")]) == 0
    with loopback_network():  # the local Ray instance listens on 127.0.0.1 only
        done = yamb("evolve", *RUN, "--backend", "ray", "--workers", "2", "--out", str(tmp_path / "ray"))
    assert done.returncode == 0, done.stderr
    assert_same_run(tmp_path / "one", tmp_path / "ray")
