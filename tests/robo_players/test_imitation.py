"""Imitation of a teacher by a direct network: recording, the loss, training, the CLI, the files."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from robo_players.base import play
from robo_players.measure.simulate import simulate
from robo_players.neural.build import neural_player
from robo_players.neural.direct import DirectPolicyPlayer
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import Population
from robo_players.registry import make_player
from robo_players.training.demonstrations import Demonstrations, engine_action, keep_candidates, record
from robo_players.training.imitation import ImitationLoss, TrainSettings, imitate, train
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules

YAMB = layout(rules("yamb"), None)
YAHTZEE_FORCED = layout(rules("yahtzee", joker="forced"), None)
TABLES = {
    "yamb": YAMB,
    "yamb-6d": layout(rules("yamb", dice=6), None),
    "jamb6": layout(rules("jamb6"), None),
    "yatzy": layout(rules("yatzy"), None),
    "yahtzee": layout(rules("yahtzee"), None),
    "yahtzee-forced": YAHTZEE_FORCED,
    "other columns": layout(rules("yamb"), ["hand", "middle", "late_announce", "updown", "announce"]),
}


def _replay(lay, demos: Demonstrations, seed: int, actions: np.ndarray) -> np.ndarray:
    """Final scores of the recorded games, stepping ``actions`` (one per decision) in recorded order."""
    n = int(demos.game.max()) + 1
    batch = GameBatch(lay, n, seed=seed)
    for step in range(int(demos.step.max()) + 1):
        rows = np.flatnonzero(demos.step == step)
        batch.step(actions[rows], demos.game[rows].astype(np.int64))
    assert batch.done.all()
    return batch.scores()[:, 0]


@pytest.mark.parametrize("lay", [YAMB, YAHTZEE_FORCED], ids=["yamb", "yahtzee-forced"])
def test_recorded_teacher_moves_replay_the_teachers_games(lay):
    teacher = make_player("expectimax", lay)
    cell_values = np.zeros(lay.n_cells)
    demos, scores = record(lay, teacher, 30, 11, cell_values)
    alone = simulate(lay, make_player("expectimax", lay), 30, seed=11)
    np.testing.assert_array_equal(scores, alone)  # recording does not change the teacher's play
    # the moves in the direct network's terms, mapped back to engine actions, are the teacher's moves
    mapped = engine_action(lay, demos.hand, demos.top, demos.keep)
    np.testing.assert_array_equal(mapped, demos.action)
    np.testing.assert_array_equal(_replay(lay, demos, 11, mapped), alone)
    assert (demos.keep >= 0).sum() > 0 and (demos.top >= lay.n_cells).sum() > 0
    # each recorded choice is legal for the direct network
    assert demos.legal[np.arange(len(demos)), demos.top].all()


def test_student_games_are_played_by_the_student_and_labelled_by_the_teacher():
    lay = TABLES["yatzy"]
    spec = NetSpec.for_layout("direct", lay, (4,))
    genome = spec.build().initial_genome(np.random.default_rng(3))
    student = neural_player(spec, Population(spec.build(), genome[None]), np.zeros((1, lay.n_cells)), "s")
    demos, scores = record(lay, make_player("greedy", lay), 12, 4, np.zeros(lay.n_cells),
                           student=student, student_games=5)
    n, seed = 12, 4
    batch = GameBatch(lay, n, seed=seed)
    both = play_split(batch, student, make_player("greedy", lay), 5)
    np.testing.assert_array_equal(scores, both)
    np.testing.assert_array_equal(_replay(lay, demos, seed, demos.action), both)
    teacher_rows = demos.game >= 5
    mapped = engine_action(lay, demos.hand, demos.top, demos.keep)
    np.testing.assert_array_equal(mapped[teacher_rows], demos.action[teacher_rows])


def play_split(batch: GameBatch, first, second, n_first: int) -> np.ndarray:
    """Games ``0 .. n_first-1`` played by ``first``, the rest by ``second`` (an independent loop)."""
    while not batch.done.all():
        active = np.flatnonzero(~batch.done)
        a, b = active[active < n_first], active[active >= n_first]
        actions = np.concatenate([first.act(batch, a) if len(a) else [], second.act(batch, b) if len(b) else []])
        batch.step(actions.astype(np.int64), np.concatenate([a, b]))
    return batch.scores()[:, 0]


def test_loss_of_one_decision_by_hand():
    lay = TABLES["yatzy"]
    spec = NetSpec.for_layout("direct", lay, (4,))
    dice = lay.rules.dice
    cr, n_top = lay.n_cells, 2 * lay.n_cells + 1
    rng = np.random.default_rng(0)
    outputs = torch.from_numpy(rng.standard_normal((1, spec.build().n_outputs)).astype(np.float32))
    hand = dice.index_of_dice([2, 2, 5, 6, 6])
    legal = np.zeros(n_top, dtype=bool)
    legal[[0, 3, 7, n_top - 1]] = True  # three fills and rolling
    teacher_keep = dice.keep_index(np.array([0, 2, 0, 0, 0, 2]))  # keep 2, 2, 6, 6
    cands = list(keep_candidates(dice)[hand])
    position = cands.index(teacher_keep)
    # by hand: the top softmax over the four legal choices, and over the 17 keeps of 2 2 5 6 6
    out = outputs[0].double().numpy()
    tops = out[[0, 3, 7, n_top - 1]]
    top_loss = -(tops[3] - math.log(np.exp(tops).sum()))
    counts = {2: 2, 5: 1, 6: 2}
    keep_scores = {}
    for kept in itertools.product(*(range(c + 1) for c in counts.values())):
        if sum(kept) == 5:
            continue
        per_face = dict(zip(counts, kept))
        keep_scores[tuple(per_face.get(f, 0) for f in range(1, 7))] = sum(
            out[n_top + (f - 1) * 6 + per_face.get(f, 0)] for f in range(1, 7))
    assert len(keep_scores) == 17
    keep_loss = -(keep_scores[(0, 2, 0, 0, 0, 2)] - math.log(np.exp(list(keep_scores.values())).sum()))
    loss, top_right, keep_right = ImitationLoss(spec)(
        outputs, torch.from_numpy(legal[None]), torch.tensor([hand]), torch.tensor([n_top - 1]),
        torch.tensor([position]))
    assert float(loss) == pytest.approx(top_loss + keep_loss, rel=1e-5)
    assert bool(top_right[0]) == (np.argmax(tops) == 3)
    assert bool(keep_right[0]) == (max(keep_scores, key=keep_scores.get) == (0, 2, 0, 0, 0, 2))
    assert cr == 15


def test_loss_argmax_is_the_direct_players_move():
    """The choices the loss scores highest are the moves the direct player makes."""
    lay = YAMB
    spec = NetSpec.for_layout("direct", lay, (8,))
    net = spec.build()
    genome = net.initial_genome(np.random.default_rng(5)) * 20  # large outputs: varied moves
    values = np.full((1, lay.n_cells), 10.0, dtype=np.float32)
    player = DirectPolicyPlayer(Population(spec.build(), genome[None]), values)
    demos, _ = record(lay, player, 20, 8, values[0])
    loss = ImitationLoss(spec)
    from robo_players.neural.population import load_genome

    net = load_genome(spec.build(), genome)
    with torch.no_grad():
        outputs = net(torch.from_numpy(demos.features))
    top_logits = outputs[:, : loss.n_top].masked_fill(~torch.from_numpy(demos.legal), -torch.inf)
    top = top_logits.argmax(dim=1).numpy()
    index = loss.keep_index[torch.from_numpy(demos.hand.astype(np.int64))]
    scores = torch.gather(outputs, 1, index.reshape(len(demos), -1)).reshape(index.shape).sum(-1)
    keep = scores.masked_fill(~loss.keep_valid[torch.from_numpy(demos.hand.astype(np.int64))], -torch.inf).argmax(1)
    np.testing.assert_array_equal(top, demos.top)
    rolls = demos.keep >= 0
    np.testing.assert_array_equal(keep.numpy()[rolls], demos.keep[rolls])


def _hand_made(spec: NetSpec) -> Demonstrations:
    """Eight decisions: two fills, an announcement and rolls keeping chosen dice."""
    lay = spec.layout()
    dice = lay.rules.dice
    n, cr = 8, lay.n_cells
    rng = np.random.default_rng(1)
    legal = np.ones((n, 2 * cr + 1), dtype=bool)
    hand = np.array([dice.index_of_dice(d) for d in ([1, 1, 2, 3, 4], [6, 6, 6, 5, 1])] * 4, dtype=np.int32)
    top = np.array([0, 5, cr + 2, 2 * cr, 2 * cr, 2 * cr, 2 * cr, 7], dtype=np.int16)
    keep = np.array([-1, -1, -1, 0, 3, 1, 2, -1], dtype=np.int16)
    return Demonstrations(rng.standard_normal((n, spec.build().n_inputs)).astype(np.float32), legal, hand, top,
                          keep, np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32))


@pytest.mark.slow
def test_training_lowers_the_loss_on_a_hand_made_case_and_repeats_for_a_seed():
    spec = NetSpec.for_layout("direct", TABLES["yatzy"], (16,))
    demos = _hand_made(spec)
    settings = TrainSettings(epochs=60, batch_size=4, learning_rate=0.01, validation=0.0, seed=2)
    history_losses = []
    genome, history = train(spec, demos, settings, progress=lambda r: history_losses.append(r.train_loss))
    first, last = history[0].train_loss, history[-1].train_loss
    assert last < 0.1 * first
    from robo_players.neural.population import load_genome
    from robo_players.training.imitation import evaluate

    _, top_accuracy, keep_accuracy = evaluate(load_genome(spec.build(), genome), ImitationLoss(spec), demos,
                                              np.arange(len(demos)))
    assert top_accuracy == 1.0 and keep_accuracy == 1.0
    again, _ = train(spec, demos, settings)
    np.testing.assert_array_equal(genome, again)
    assert history_losses == [r.train_loss for r in history]


def test_validation_split_keeps_whole_games_and_is_stable_as_games_are_added():
    from robo_players.training.imitation import split_games

    spec = NetSpec.for_layout("direct", TABLES["yatzy"], (4,))
    demos = _hand_made(spec)
    demos.game = np.repeat(np.arange(4), 2).astype(np.int32)
    train_rows, val_rows = split_games(demos, 0.5, 3)
    assert not set(demos.game[train_rows]) & set(demos.game[val_rows])
    more = Demonstrations.concatenate([demos, demos.take(np.arange(8))])
    more.game[8:] += 4
    _, val_more = split_games(more, 0.5, 3)
    np.testing.assert_array_equal(val_more[val_more < 8], val_rows)


@pytest.mark.parametrize("name", list(TABLES))
def test_trained_file_loads_and_plays_legal_games(name, tmp_path):
    from robo_players.neural.files import NeuralWeights, save_weights

    lay = TABLES[name]
    spec = NetSpec.for_layout("direct", lay, (8,))
    result = imitate(spec, make_player("greedy", lay), 6, TrainSettings(epochs=1, seed=1), dagger=1,
                     cell_games=6, check_games=4)
    path = save_weights(NeuralWeights(spec, result.genome, result.cell_values, {"fitness": 1.0}),
                        tmp_path / "imitated.safetensors")
    player = make_player(str(path), lay)
    batch = GameBatch(lay, 10, seed=2)
    scores = play(batch, [player], check=True)
    assert batch.done.all() and (scores >= 0).all()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "yamb", "imitate", *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["--hidden", "0"], "hidden layer sizes '0'"),
    (["--hidden", "16,x"], "hidden layer sizes '16,x'"),
    (["--hidden", ",".join(["4"] * 9)], "1 to 8 hidden layer sizes"),
    (["--games", "0"], "'0' is not a whole number from 1"),
    (["--epochs", "٣"], "'٣' is not a whole number"),
    (["--learning-rate", "-1"], "'-1' is not a learning rate above 0 and at most 1"),
    (["--learning-rate", "2"], "'2' is not a learning rate above 0 and at most 1"),
    (["--learning-rate", "nan"], "'nan' is not a learning rate above 0 and at most 1"),
    (["--validation", "1"], "'1' is not a number from 0 to 0.5"),
    (["--validation", "0.99"], "'0.99' is not a number from 0 to 0.5"),
    (["--cell-games", "0"], "'0' is not a whole number from 1"),
    (["--seed", str(2**64)], "is not a whole number from 0 to 2**64-1"),
    (["--out", "."], "is a directory, not a file"),
    pytest.param(["--out", "x.txt"], "unknown weights format 'txt'", marks=pytest.mark.slow),
    pytest.param(["--teacher", "nobody"], "unknown player 'nobody'", marks=pytest.mark.slow),
    pytest.param(["--preset", "poker"], "poker", marks=pytest.mark.slow),
    pytest.param(["--teacher", "missing.pt"], "missing.pt: no such weights file", marks=pytest.mark.slow),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    full = ["--out", str(tmp_path / "w.pt"), *args]
    done = _cli(*full)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert not (tmp_path / "w.pt").exists()


@pytest.mark.slow
def test_cli_writes_a_file_that_compare_and_evolve_accept(tmp_path):
    out = tmp_path / "imitated.pt"
    done = _cli("--preset", "yatzy", "--teacher", "greedy", "--games", "20", "--hidden", "8", "--epochs", "2",
                "--check-games", "20", "--seed", "4", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.is_file() and "evolve on with" in done.stdout
    compare = subprocess.run([sys.executable, "-m", "yamb", "compare", str(out), "greedy", "--preset", "yatzy",
                              "--games", "20", "--json"], capture_output=True, text=True)
    assert compare.returncode == 0, compare.stderr
    from evolution.config import from_recipe, with_settings
    from evolution.planning import plan
    from evolution.state import new_state
    from robo_players.neural.files import load_weights

    settings = {"game": "yatzy", "hidden": [8], "init": str(out), "elite": 1, "population": 4}
    config = with_settings(from_recipe("direct-imitation"), settings)
    state = new_state(plan(config))
    weights = load_weights(out)
    np.testing.assert_array_equal(state.population[0], weights.genome.astype(np.float64))
    np.testing.assert_array_equal(state.cell_values, weights.cell_values.astype(np.float64))
    # the file's recorded fitness is the mean of its check games, replayed here
    from robo_players.training.imitation import CHECK, derived_seed

    lay = layout(rules("yatzy"), None)
    check = simulate(lay, make_player(str(out), lay), 20, seed=derived_seed(4, CHECK))
    assert weights.info["fitness"] == pytest.approx(float(check.mean()))


def test_best_direct_is_the_shipped_direct_network():
    player = make_player("best-direct", YAMB)
    assert player.name == "best-direct" and isinstance(player, DirectPolicyPlayer)
    batch = GameBatch(YAMB, 50, seed=12345)
    scores = play(batch, [player], check=True)[:, 0]
    # a network alone that plays near expectimax, far above smart on the same dice (824 on 10,000 games)
    assert scores.mean() > simulate(YAMB, make_player("smart", YAMB), 50, seed=12345).mean() + 100
    from yamb.errors import YambError

    with pytest.raises(YambError, match="no shipped best-direct bot for yatzy-5d-free"):
        make_player("best-direct", TABLES["yatzy"])
