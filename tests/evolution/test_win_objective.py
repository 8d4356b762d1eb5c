"""The objective ``win``: members' fitness is their share of the wins against a field, seats rotated on common dice."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evolution.evaluate as evaluate_module
import yamb
from evolution.algorithms import evaluate, make_toolbox
from evolution.config import ConfigError, from_recipe, with_settings
from evolution.evaluate import GENERATION, dice_seed
from evolution.individual import Individual
from evolution.planning import plan
from evolution.run import evolve, resume, start
from evolution.run_dir import RunDir
from evolution.state import new_state
from evolution.verdict import verdict_lines
from robo_players.measure.match import play_match
from robo_players.neural.population import genome_size
from robo_players.random_player import RandomPlayer
from robo_players.registry import make_player
from robo_players.smart import SmartPlayer
from yamb.layout import layout
from yamb_app.cli import main

TINY = dict(game="yatzy", population=4, games=3, generations=2, hidden="2", final_games=4, hall_of_fame=1, elite=1)


def tiny(**settings):
    return with_settings(from_recipe("direct"), {**TINY, **settings})


class RiskGenome:
    """A population whose genome's first weight is its risk: below 0 every game is played by ``smart``
    (the higher mean), else the even deals by ``expectimax`` and the odd ones by ``random`` (a lower
    mean, a far wider spread). Member ``k`` plays games ``k * games ..`` of a batch, as a population does."""

    name = "risk"

    def __init__(self, genomes: np.ndarray) -> None:
        self.risky = np.asarray(genomes)[:, 0] >= 0
        self.safe, self.random = SmartPlayer(), RandomPlayer()
        self.strong = make_player("expectimax", layout(yamb.rules("yatzy")))

    def act(self, batch, games):
        games = np.asarray(games, dtype=np.int64)
        per_member = batch.n_games // len(self.risky)
        member, deal = games // per_member, games % per_member
        who = np.where(~self.risky[member], 0, np.where(deal % 2 == 0, 1, 2))
        actions = np.empty(len(games), dtype=np.int64)
        for code, player in enumerate((self.safe, self.strong, self.random)):
            mine = who == code
            if mine.any():
                actions[mine] = player.act(batch, games[mine])
        return actions


def _members(state, risks: list[float]) -> list[Individual]:
    size = genome_size(state.spec.build())
    members = []
    for risk in risks:
        genome = np.zeros(size)
        genome[0] = risk
        members.append(Individual(genome))
    return members


def test_the_objectives_choose_different_players(monkeypatch):
    """Against expectimax, the safe member (smart's mean, about 170) has the higher mean and almost never
    wins; the risky one (half expectimax, half random: about 145) wins a quarter of its games. Points
    select the safe member, wins the risky one; the fitness of a member is its share of the wins as
    ``play_match`` counts it on the same deals."""
    monkeypatch.setattr(evaluate_module, "population_player", lambda spec, genomes, cell_values: RiskGenome(genomes))
    chosen = {}
    for objective in ("points", "win"):
        extra = {"objective": objective, "field": "expectimax"} if objective == "win" else {}
        state = new_state(plan(tiny(games=60, **extra)))
        toolbox = make_toolbox(state)
        members = _members(state, [-1.0, 1.0])
        evaluate(toolbox, state, members)
        fitness = [m.fitness.values[0] for m in members]
        chosen[objective] = max(range(2), key=lambda i: fitness[i])
        if objective == "win":
            assert all(0 <= f <= 1 for f in fitness)
            seed = dice_seed(state.config.seed, GENERATION, 0)
            two = layout(state.spec.layout().rules, players=2)
            for i, member in enumerate(members):
                player = RiskGenome(np.asarray(member)[None])
                report = play_match(two, {"member": player, "field": make_player("expectimax", two)}, 60, seed)
                assert fitness[i] == pytest.approx(report.wins[:, 0].mean(), abs=1e-12)
    assert chosen == {"points": 0, "win": 1}


def test_a_win_run_resumes_exactly(tmp_path: Path):
    config = tiny(objective="win", field="greedy")
    whole = evolve(start(config, tmp_path / "whole"), tmp_path / "whole")

    class Stop(Exception):
        pass

    def stop(state, entry):
        raise Stop

    with pytest.raises(Stop):
        evolve(start(config, tmp_path / "cut"), tmp_path / "cut", stop)
    assert RunDir(tmp_path / "cut").load_checkpoint().generation == 1
    resumed = evolve(resume(tmp_path / "cut", {}), tmp_path / "cut")
    assert resumed["best"] == whole["best"]
    said = "\n".join(verdict_lines(whole["verdict"]))
    assert "shares of the wins against greedy" in said and " %" in said
    whole_log, cut_log = (pd.read_csv(tmp_path / run / "logbook.csv").filter(regex="^(?!.*seconds)")
                          for run in ("whole", "cut"))
    pd.testing.assert_frame_equal(whole_log, cut_log, check_exact=True)
    assert len(whole_log) == 2 and whole_log["expectimax"].between(0, 1).all()


@pytest.mark.parametrize(("settings", "message"), [
    ({"objective": "draw"}, "objective must be one of points, win, not 'draw'"),
    ({"objective": "win", "luck": "expectimax"}, "objective win cannot apply with luck"),
    ({"objective": "win", "player": "guided", "lookahead": 2}, "objective win cannot apply with lookahead"),
    ({"field": "greedy"}, "field and opponents apply to objective win only"),
    ({"objective": "win", "opponents": 9}, "opponents must be from 1 to 5"),
    ({"objective": "win", "field": "nobody"}, "field must be a registered player, a weights file or hall-of-fame, not 'nobody'"),
    ({"objective": "win", "field": "optimal", "game": "yamb"}, "field optimal does not play yamb"),
])
def test_where_the_objective_cannot_apply_it_is_refused(settings, message):
    with pytest.raises(ConfigError, match=message):
        plan(tiny(**settings))


def test_the_recipe_and_the_command_line(capsys):
    config = with_settings(from_recipe("win"), {"init": "best"}).validate()
    assert (config.objective, config.field, config.opponents) == ("win", "best", 1)
    assert main(["evolve", "--objective", "win", "--set", "luck=expectimax", "--preset", "yatzy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "objective win cannot apply with luck" in err


def test_the_progress_line_gives_the_shares_of_the_wins_in_per_cent(capsys, tmp_path: Path):
    """A share of the wins is near one half: its progress line gives it in per cent to a hundredth, where
    points would read ``best 0.5`` for every member."""
    args = ["evolve", "--recipe", "direct", "--objective", "win", "--preset", "yatzy", "--generations", "1",
            "--population", "4", "--games", "3", "--final-games", "4", "--hidden", "2", "--out", str(tmp_path / "run")]
    assert main(args) == 0, capsys.readouterr().err
    shares = r"\d{1,3}\.\d\d%"
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("gen "))
    assert re.match(rf"gen +1/1  best {shares}  mean {shares} ± {shares}  worst {shares}  expectimax {shares}  ",
                    line), line
