"""What a program outside Python needs to play an exported ONNX player: the sidecar description.

``player_description(w)`` is a JSON-ready dict: the table (rows and columns in
order, cell numbering), the dice (multisets and the score of each in each
row, so no scoring rule needs re-implementing), the numbers the features use
(score scale, bonus threshold, the player's cell values), the input and
output layout of the graph with every feature defined, and what the file can
and cannot do alone. ``yamb export --format onnx`` writes it next to the
graph as ``<file>.onnx.json`` and into the ONNX metadata properties (one
property per top-level key, JSON-encoded); the sidecar adds ``onnx_sha256``,
the SHA-256 of the ``.onnx`` file it belongs with, and a reader refuses a
sidecar that names another (``check_sidecar``). docs/neural_players.md explains
the recipe; ``tests/js`` follows it with onnxruntime-web under Node.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from robo_players.neural.features import dice_size, score_scale, table_size
from robo_players.neural.weights import NeuralWeights, WeightsFileError
from yamb.dice import FACES
from yamb.parsing import ParseError, parse_json
from yamb.rules import N_NUMBER_ROWS

SIDECAR_FORMAT = "yamb-onnx-player"
SIDECAR_VERSION = 2  # 2: onnx_sha256


def sidecar_path(onnx_path: Path) -> Path:
    """``best.onnx`` -> ``best.onnx.json``."""
    return onnx_path.with_name(onnx_path.name + ".json")


def check_sidecar(onnx_path: Path, data: bytes) -> None:
    """Refuse the sidecar of ``onnx_path`` (whose bytes are ``data``), if there is one, unless it names
    that file's SHA-256 (sidecars of version 1 name none)."""
    path = sidecar_path(onnx_path)
    if not path.exists():
        return
    try:
        side = parse_json(path.read_bytes())
    except OSError as error:
        raise WeightsFileError(f"{path}: not a readable sidecar ({error.strerror or error})") from None
    except ParseError as error:  # not JSON, too deep or too long to read
        raise WeightsFileError(f"{path}: not a readable sidecar ({error})") from None
    if not isinstance(side, dict) or side.get("format") != SIDECAR_FORMAT:
        raise WeightsFileError(f"{path}: not the sidecar of a yamb ONNX player")
    if side.get("format_version", 1) != 1 and side.get("onnx_sha256") != hashlib.sha256(data).hexdigest():
        raise WeightsFileError(f"{path} belongs with another {onnx_path.name} (its onnx_sha256 is not the "
                               f"file's SHA-256); export the player again")


def _segments(parts: list[tuple[str, int, str]]) -> list[dict]:
    """Consecutive named ranges of a vector: name, start, length and definition."""
    out, start = [], 0
    for name, length, definition in parts:
        out.append({"name": name, "start": start, "length": length, "definition": definition})
        start += length
    return out


def input_layout(w: NeuralWeights) -> list[dict]:
    """The ``features`` vector, segment by segment (``robo_players.neural.features``)."""
    lay = w.spec.layout()
    cr, c, r = lay.n_cells, lay.n_columns, lay.n_rows
    value = ("value(cell) = the cell's score if filled, else cell_values[cell]; "
             "all of the player to move's table")
    parts = [
        ("filled", cr, "1 if cell c*R+r is filled, else 0"),
        ("cell_value", cr, f"value(cell) / score_scale; {value}"),
        ("numbers_margin", c, f"column c: (sum of value(cell) over its rows 0..{N_NUMBER_ROWS - 1} - "
                              "bonus_threshold) / bonus_threshold"),
        ("numbers_filled", c, f"column c: sum of the filled cells' scores of rows 0..{N_NUMBER_ROWS - 1} / "
                              "bonus_threshold"),
        ("open_rows", c, "column c: open cells / R"),
        ("open_cells", 1, "open cells of the table / (C*R)"),
    ]
    if w.spec.kind == "direct":
        parts += [
            ("gain", cr, "open cell: (scores[m][r] - value(cell)) / score_scale, where m is the dice's multiset "
                         "index and r the cell's row; filled cell: 0"),
            ("dice", FACES, "count of dice showing face f (1..6) / dice"),
            ("row_score", r, "scores[m][r] / score_scale for each row r"),
            ("first_roll", 1, "1 right after the turn's first roll, else 0"),
            ("last_roll", 1, "1 when no roll is left this turn, else 0"),
            ("rolls_left", 1, "rolls left this turn / 2"),
        ]
    segments = _segments(parts)
    assert segments[-1]["start"] + segments[-1]["length"] == table_size(lay) + (
        dice_size(lay) if w.spec.kind == "direct" else 0)
    return segments


def output_layout(w: NeuralWeights) -> list[dict]:
    """The ``outputs`` vector, segment by segment, with how the player uses it."""
    lay = w.spec.layout()
    cr, n = lay.n_cells, lay.rules.n_dice
    if w.spec.kind == "guided":
        return _segments([
            ("value_correction", cr, "d: the search values open cell c*R+r at (1 + w) * v + d * score_scale, "
                                     "v being the cell's value in the expectimax search"),
            ("weight_correction", cr, "w: see value_correction"),
        ])
    return _segments([
        ("fill", cr, "score of filling cell c*R+r"),
        ("announce", cr, "score of announcing cell c*R+r"),
        ("roll", 1, "score of rolling again"),
        ("keep", FACES * (n + 1), f"keep[f][k] at index f*{n + 1}+k (face f = 0..5 for 1..6, k = 0..{n} dice "
                                  "kept): a keep's score is the sum over faces of keep[f][count of face f kept]"),
    ])


def choosing(w: NeuralWeights) -> str:
    """How the outputs become a move, and what the file cannot do alone."""
    if w.spec.kind == "guided":
        return ("This file cannot play alone. It computes, from the table only, a correction of every open "
                "cell's value; the moves come from the project's expectimax search (robo_players.search.expectimax: "
                "the exact turn optimizer over keeps and rerolls, and cell values aware of the numbers bonus and "
                "the difference row), which is not part of the file. Outside Python the outputs can rank or "
                "inspect cells, not reproduce the player.")
    return ("This file plays alone, given the legal moves of the current position (the rules of the game "
            "decide them; yamb's Game.action_mask lists them). Take the highest score among: the legal fills "
            "(outputs fill), the legal announcements (outputs announce) and, when another roll is allowed, "
            "rolling (output roll). Ties prefer filling, then announcing, then the lower cell index. To roll, "
            "keep the sub-multiset of the dice (not all of them) with the highest keep score; ties prefer the "
            "lower index in dice_keeps, then reroll the others.")


def player_description(w: NeuralWeights) -> dict:
    """The sidecar: everything needed to compute the inputs and read the outputs."""
    lay = w.spec.layout()
    rules = lay.rules
    dice = rules.dice
    spec = rules.spec
    return {
        "format": SIDECAR_FORMAT,
        "format_version": SIDECAR_VERSION,
        "kind": w.spec.kind,
        "preset": rules.name,
        "dice": rules.n_dice,
        "joker": rules.joker,
        "columns": list(lay.columns),
        "rows": list(rules.rows),
        "cells": "cell index c*R+r for column c (0..C-1) and row r (0..R-1), C = len(columns), R = len(rows)",
        "rolls_per_turn": rules.rolls,
        "score_scale": score_scale(lay),
        "bonus_threshold": spec.bonus_threshold,
        "bonus": spec.bonus,
        "number_rows": list(rules.rows[:N_NUMBER_ROWS]),
        "cell_values": [float(v) for v in np.asarray(w.cell_values, dtype=np.float32)],
        "dice_multisets": dice.multisets.astype(int).tolist(),
        "dice_keeps": dice.keeps.astype(int).tolist(),
        "scores": rules.scores.astype(int).tolist(),
        "scores_note": ("scores[m][r]: the score of dice multiset m (dice_multisets[m] counts faces 1..6) in "
                        "row r, joker rules aside"),
        "input": {"name": "features", "shape": ["games", table_size(lay) + (
            dice_size(lay) if w.spec.kind == "direct" else 0)], "type": "float32", "layout": input_layout(w)},
        "output": {"name": "outputs", "shape": ["games", w.spec.build().n_outputs], "type": "float32",
                   "layout": output_layout(w)},
        "playing": choosing(w),
    }


def onnx_properties(w: NeuralWeights, stored: tuple[str, ...]) -> dict[str, str]:
    """The description as ONNX metadata properties: one per key, JSON-encoded (keys in ``stored``,
    which the file already holds, left out)."""
    return {key: json.dumps(value) for key, value in player_description(w).items() if key not in stored}
