"""Training a direct network to imitate a teacher: cross-entropy over its masked choices.

The loss of a decision (``robo_players.training.demonstrations``) follows how the
direct player chooses: a softmax over the legal top choices ``[fill CR |
announce CR | roll]`` (illegal ones masked out) against the teacher's
choice, plus, when the teacher rolled, a softmax over the legal keeps of the
dice, each scored ``sum_f keep[f, count_f]`` from the network's keep table,
against the teacher's keep. The argmax of both softmaxes is the direct
player's move, so a lower loss means closer play.

Training is deterministic for a seed: initial weights, the validation split
(whole games, so no game is on both sides) and the order of the minibatches
come from it, on one torch thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from robo_players.neural.networks import DirectPolicyNet, NetSpec
from robo_players.neural.population import genome_of, load_genome
from robo_players.training.demonstrations import Demonstrations, keep_candidates
from robo_players.training.descent import descend
from robo_players.training.rows import Rows
from yamb.dice import FACES
from yamb.errors import YambError


@dataclass(frozen=True)
class TrainSettings:
    """Adam on minibatches, the learning rate decayed by cosine to zero over ``epochs``."""

    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 3e-3
    weight_decay: float = 0.0
    validation: float = 0.1  # share of the games held out
    seed: int = 0


@dataclass(frozen=True)
class EpochResult:
    """Mean losses and accuracies after an epoch (top choice and keep, of the teacher's moves)."""

    epoch: int
    train_loss: float
    val_loss: float
    val_top_accuracy: float
    val_keep_accuracy: float


class ImitationLoss:
    """The cross-entropy of a direct network's choices against the teacher's, for one table."""

    def __init__(self, spec: NetSpec) -> None:
        lay = spec.layout()
        dice = lay.rules.dice
        self.n_top = 2 * lay.n_cells + 1
        cands = keep_candidates(dice)  # (M, S)
        counts = dice.keeps[np.maximum(cands, 0)]  # (M, S, 6)
        offsets = self.n_top + np.arange(FACES) * (dice.n_dice + 1)
        self.keep_index = torch.from_numpy(offsets + counts)  # (M, S, 6) positions in the outputs
        self.keep_valid = torch.from_numpy(cands >= 0)

    def __call__(self, outputs: torch.Tensor, legal: torch.Tensor, hand: torch.Tensor, top: torch.Tensor,
                 keep: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Mean loss of a minibatch, and per decision: top choice right, keep right (or no keep)."""
        top_logits = outputs[:, : self.n_top].masked_fill(~legal, -torch.inf)
        loss = torch.nn.functional.cross_entropy(top_logits, top, reduction="sum")
        top_right = top_logits.argmax(dim=1) == top
        keep_right = torch.ones_like(top_right)
        rolls = torch.nonzero(keep >= 0).squeeze(1)
        if len(rolls):
            index = self.keep_index[hand[rolls]]  # (r, S, 6)
            scores = torch.gather(outputs[rolls], 1, index.reshape(len(rolls), -1)).reshape(index.shape).sum(-1)
            scores = scores.masked_fill(~self.keep_valid[hand[rolls]], -torch.inf)
            loss = loss + torch.nn.functional.cross_entropy(scores, keep[rolls], reduction="sum")
            keep_right[rolls] = scores.argmax(dim=1) == keep[rolls]
        return loss / len(top), top_right, keep_right


def split_games(data: Rows, share: float, seed: int, stream: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the training and validation decisions: a game is held out when its own uniform draw
    (the seed's ``stream``, by game number) is below ``share``, so adding games moves no other game."""
    draws = np.random.default_rng([seed, stream]).random(int(data.game.max(initial=-1)) + 1)
    is_val = draws[data.game] < share
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def training_split(data: Rows, share: float, seed: int, stream: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``split_games``, or a ``YambError`` when the validation share left no game to train on."""
    train_rows, val_rows = split_games(data, share, seed, stream)
    if not len(train_rows):
        raise YambError(f"a validation share of {share:g} held out all {len(np.unique(data.game)):,} recorded "
                        f"games: none is left to train on; lower --validation or record more games")
    return train_rows, val_rows


def _tensors(demos: Demonstrations, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    return (torch.from_numpy(demos.features[rows]), torch.from_numpy(demos.legal[rows]),
            torch.from_numpy(demos.hand[rows].astype(np.int64)), torch.from_numpy(demos.top[rows].astype(np.int64)),
            torch.from_numpy(demos.keep[rows].astype(np.int64)))


def evaluate(net: DirectPolicyNet, loss_fn: ImitationLoss, demos: Demonstrations, rows: np.ndarray,
             chunk: int = 65536) -> tuple[float, float, float]:
    """Mean loss, top-choice accuracy and keep accuracy (over the teacher's rolls) of ``rows``."""
    total, top_right, keep_right, n_keeps = 0.0, 0, 0, 0
    with torch.no_grad():
        for start in range(0, len(rows), chunk):
            x, legal, hand, top, keep = _tensors(demos, rows[start : start + chunk])
            loss, top_ok, keep_ok = loss_fn(net(x), legal, hand, top, keep)
            total += float(loss) * len(top)
            top_right += int(top_ok.sum())
            keep_right += int(keep_ok[keep >= 0].sum())
            n_keeps += int((keep >= 0).sum())
    n = max(len(rows), 1)
    return total / n, top_right / n, keep_right / max(n_keeps, 1)


def train(
    spec: NetSpec,
    demos: Demonstrations,
    settings: TrainSettings,
    genome: np.ndarray | None = None,
    progress: Callable[[EpochResult], None] | None = None,
) -> tuple[np.ndarray, list[EpochResult]]:
    """The flat weights of a direct network of ``spec`` trained on ``demos`` (starting from
    ``genome``, or fresh weights drawn from the seed), and each epoch's losses."""
    torch.manual_seed(settings.seed)
    net = spec.build()
    if not isinstance(net, DirectPolicyNet):
        raise ValueError("imitation trains direct networks")
    start = net.initial_genome(np.random.default_rng(settings.seed)) if genome is None else genome
    load_genome(net, np.asarray(start, dtype=np.float32))
    loss_fn = ImitationLoss(spec)
    train_rows, val_rows = training_split(demos, settings.validation, settings.seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    steps = settings.epochs * -(-len(train_rows) // settings.batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * min(s / steps, 1))))
    rng = np.random.default_rng([settings.seed, 2])
    history = []

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        x, legal, hand, top, keep = _tensors(demos, np.sort(rows))
        return loss_fn(net(x), legal, hand, top, keep)[0]

    for epoch in range(1, settings.epochs + 1):
        train_loss = descend(loss_of, train_rows[rng.permutation(len(train_rows))], settings.batch_size, optimizer, schedule)
        val = evaluate(net, loss_fn, demos, val_rows) if len(val_rows) else (float("nan"),) * 3
        result = EpochResult(epoch, train_loss, *val)
        history.append(result)
        if progress is not None:
            progress(result)
    return genome_of(net), history


def derived_seed(seed: int, purpose: int) -> int:
    """An engine seed for one purpose of an imitation run with ``seed`` (cell values, rounds, check)."""
    return int(np.random.SeedSequence([seed, 7, purpose]).generate_state(1, dtype=np.uint64)[0])


CELL_VALUES, CHECK = 0, 1  # purposes of derived seeds; round r records with purpose 2 + r


@dataclass(frozen=True)
class ImitationResult:
    """The trained network's weights and cell values, each round's epochs, and play on fresh games."""

    genome: np.ndarray
    cell_values: np.ndarray
    rounds: list[list[EpochResult]]
    teacher_mean: float
    check_scores: np.ndarray


def imitate(
    spec: NetSpec,
    teacher: object,
    games: int,
    settings: TrainSettings,
    dagger: int = 0,
    cell_games: int = 2000,
    check_games: int = 1000,
    say: Callable[[str], None] = lambda text: None,
    advance: Callable[[int], None] | None = None,
    epoch_done: Callable[[EpochResult], None] | None = None,
    kept: Sequence[np.ndarray] = (),
    round_done: Callable[[list[np.ndarray]], None] | None = None,
) -> ImitationResult:
    """Train a direct network of ``spec`` on ``games`` games of ``teacher``, then ``dagger``
    rounds of ``games`` games played by the network and labelled by the teacher, each followed by
    training on everything recorded so far (from the weights reached). The cell values are the
    mean final cells of ``cell_games`` teacher games; ``check_games`` fresh games measure it.
    ``kept``: the weights the first rounds reached in a run stopped after them; their games are
    recorded again (they are the same) and their training skipped. ``round_done(weights)`` follows
    each round with the weights every round so far reached."""
    from robo_players.measure.simulate import simulate
    from robo_players.neural.build import network_player
    from robo_players.training.demonstrations import final_cells, record

    lay = spec.layout()
    say(f"cell values: the mean final cells of {cell_games:,} games of {getattr(teacher, 'name', 'the teacher')}")
    cell_values = final_cells(lay, teacher, cell_games, derived_seed(settings.seed, CELL_VALUES)).astype(np.float32)
    parts: list[Demonstrations] = []
    rounds: list[list[EpochResult]] = []
    genome = None
    reached: list[np.ndarray] = []  # the weights each round reached
    teacher_mean = float("nan")

    def student() -> object:
        return network_player(spec, genome, cell_values, "student")

    for r in range(dagger + 1):
        by = "the teacher" if r == 0 else "the network (labelled by the teacher)"
        say(f"round {r}: recording {games:,} games played by {by}")
        demos, scores = record(lay, teacher, games, derived_seed(settings.seed, 2 + r), cell_values,
                               student=None if r == 0 else student(), student_games=games if r else 0,
                               first_game=r * games, progress=advance)
        if r == 0:
            teacher_mean = float(scores.mean())
            say(f"teacher mean {teacher_mean:.2f} over {games:,} games, {len(demos):,} decisions")
        else:
            say(f"network mean {float(scores.mean()):.2f} over {games:,} games, {len(demos):,} decisions")
        parts.append(demos)
        if r < len(kept):
            say(f"round {r}: trained before, its weights kept")
            genome, history = kept[r], []
        else:
            genome, history = train(spec, Demonstrations.concatenate(parts), settings, genome, epoch_done)
        rounds.append(history)
        reached.append(genome)
        if round_done is not None and r >= len(kept):
            round_done(reached)
    check = simulate(lay, student(), check_games, seed=derived_seed(settings.seed, CHECK), check=True)
    return ImitationResult(genome, cell_values, rounds, teacher_mean, check)
