"""Weight files of neural players: ``pt``, ``safetensors``, ``onnx`` and ``npz``, with metadata.

Every file holds the network's weights, the player's ``cell_values`` and a
metadata dictionary: the file format's name and version, the network spec
(kind, preset, table, dice, joker, hidden sizes), what the run says about
the player (fitness, seed, run preset, project version), and ``sha256``, a
checksum of the rest of the metadata and the weights (``weights_sha256``).
``pt``, ``safetensors`` and ``npz`` store the ``state_dict`` tensors; ``onnx``
stores the network as a graph (features in, outputs out) run by onnxruntime,
with the metadata, cell values and player description as metadata properties
(its checksum covers the serialized graph, initializers included, the cell
values and the description), and beside it the sidecar ``<file>.onnx.json``,
which names the SHA-256 of the ``.onnx`` file it belongs with; the two are
written together (``yamb.atomic.write_together``). The same player written
twice gives the same bytes.

``load_weights`` and ``onnx_network`` refuse a file that is not one of
these, was written for a different network, is damaged (its content does not
match its checksum) or holds NaN or infinite numbers, and an ONNX file whose
sidecar belongs with another, with a ``WeightsFileError`` naming the file.
Files of version 1, written before the checksum, are read without it; files
of version 2 have a checksum of the spec and the weights only.
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
import zipfile
from pathlib import Path

import numpy as np
import torch

from robo_players.neural.networks import NetSpec
from robo_players.neural.onnx_meta import check_sidecar, onnx_properties, player_description, sidecar_path
from robo_players.neural.population import genome_of
from robo_players.neural.weights import FILE_KIND, FILE_VERSION, NeuralWeights, WeightsFileError
from yamb.atomic import remove_temporaries, write_atomically, write_together
from yamb.parsing import ParseError, parse_json, read_npz

FORMATS = ("pt", "safetensors", "onnx", "npz")
READABLE_VERSIONS = (1, 2, 3)  # version 1: no checksum; 2: a checksum of the spec and the weights only
METADATA_KEY = "yamb"
CELL_VALUES = "cell_values"


def weights_sha256(spec: dict, arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of a network spec (as in the metadata) and named arrays: each array's name,
    dtype, shape and little-endian bytes, in name order."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    for name in sorted(arrays):
        array = np.asarray(arrays[name])
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def content_sha256(meta: dict, arrays: dict[str, np.ndarray]) -> str:
    """The checksum a file's metadata ``meta`` carries: of its arrays and of its metadata but the
    checksum itself (version 2: of its spec)."""
    covered = meta["spec"] if meta.get("file_version") == 2 else {k: v for k, v in meta.items() if k != "sha256"}
    return weights_sha256(covered, arrays)


def _onnx_arrays(graph: bytes, cell_values: np.ndarray, properties: dict[str, str], version: object) -> dict:
    """What an ONNX file's checksum covers: the serialized graph, the cell values and (from version 3)
    the metadata properties of the player description."""
    arrays = {"graph": np.frombuffer(graph, dtype=np.uint8), CELL_VALUES: cell_values}
    if version != 2:
        arrays["properties"] = np.frombuffer(json.dumps(properties, sort_keys=True).encode(), dtype=np.uint8)
    return arrays


def format_of(path: Path) -> str:
    """The format named by a file's suffix, or a precise error."""
    fmt = Path(path).suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise WeightsFileError(f"{path}: unknown weights format {fmt!r}; use .pt, .safetensors, .onnx or .npz")
    return fmt


def _tensors(w: NeuralWeights) -> dict[str, torch.Tensor]:
    tensors = {k: v.detach().clone() for k, v in w.network().state_dict().items()}
    tensors[CELL_VALUES] = torch.from_numpy(np.asarray(w.cell_values, dtype=np.float32).copy())
    return tensors


def _stamped(w: NeuralWeights, arrays: dict[str, np.ndarray]) -> dict:
    """The metadata of ``w`` with the checksum of itself and ``arrays``."""
    meta = w.metadata("")
    del meta["sha256"]
    return {**meta, "sha256": content_sha256(meta, arrays)}


def _onnx_bytes(w: NeuralWeights) -> bytes:
    """The ONNX file of ``w``: its graph, with the metadata, cell values and description as properties."""
    import onnx

    net = w.network().eval()
    example = torch.zeros(2, net.n_inputs)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (example,), buffer, input_names=["features"], output_names=["outputs"],
                          dynamic_axes={"features": {0: "games"}, "outputs": {0: "games"}}, dynamo=False)
    model = onnx.load_from_string(buffer.getvalue())
    cell_values = np.asarray(w.cell_values, dtype=np.float32)
    properties = onnx_properties(w, (METADATA_KEY, CELL_VALUES))
    meta = _stamped(w, _onnx_arrays(model.graph.SerializeToString(), cell_values, properties, FILE_VERSION))
    for key, value in {METADATA_KEY: json.dumps(meta), CELL_VALUES: json.dumps(cell_values.tolist()),
                       **properties}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model.SerializeToString()


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` with every entry dated 1980-01-01, so that the same arrays give the same bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(zipfile.ZipInfo(f"{name}.npy"), "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(array), allow_pickle=False)


def save_weights(w: NeuralWeights, path: Path, fmt: str | None = None) -> Path:
    """Write ``w`` to ``path`` (format from ``fmt`` or the suffix), atomically."""
    path = Path(path)
    fmt = fmt or format_of(path)
    if fmt not in FORMATS:
        raise WeightsFileError(f"unknown weights format {fmt!r}; choose from {', '.join(FORMATS)}")
    check_finite(path, w.genome, w.cell_values)
    if fmt == "onnx":
        graph = _onnx_bytes(w)
        description = {**player_description(w), "onnx_sha256": hashlib.sha256(graph).hexdigest()}
        write_together([(path, lambda tmp: tmp.write_bytes(graph)),
                        (sidecar_path(path), lambda tmp: tmp.write_text(json.dumps(description, indent=1) + "\n"))])
        return path
    tensors = _tensors(w)
    meta = _stamped(w, {k: v.numpy() for k, v in tensors.items()})

    def write(tmp: Path) -> None:
        if fmt == "pt":
            with open(tmp, "wb") as f:  # a file object: the archive is named "archive", not after tmp
                torch.save({"metadata": meta, "tensors": tensors}, f)
        elif fmt == "safetensors":
            from safetensors.torch import save_file

            save_file(tensors, str(tmp), metadata={METADATA_KEY: json.dumps(meta)})
        else:
            write_npz(tmp, {**{k: v.numpy() for k, v in tensors.items()}, METADATA_KEY: np.array(json.dumps(meta))})

    write_atomically(path, write)
    return path


def _read(path: Path, fmt: str) -> tuple[dict, dict[str, np.ndarray]]:
    """Metadata and named arrays of a pt, safetensors or npz file."""
    if fmt == "pt":
        data = torch.load(path, map_location="cpu", weights_only=True)
        return data["metadata"], {k: v.numpy() for k, v in data["tensors"].items()}
    if fmt == "safetensors":
        from safetensors import safe_open

        with safe_open(str(path), framework="np") as f:
            meta = parse_json(f.metadata()[METADATA_KEY])
            return meta, {k: f.get_tensor(k) for k in f.keys()}
    arrays = read_npz(path)
    return parse_json(str(arrays.pop(METADATA_KEY))), arrays


def check_finite(path: Path, genome: np.ndarray, cell_values: np.ndarray) -> None:
    """Refuse NaN or infinite weights or cell values: such a network plays no legal move."""
    for name, values in (("weights", genome), ("cell values", cell_values)):
        bad = int(np.size(values) - np.isfinite(values).sum())
        if bad:
            raise WeightsFileError(f"{path}: {bad} of the {name} are NaN or infinite")


def _check_checksum(path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Refuse a file (of version 2 or later) whose content does not match the checksum in its metadata."""
    if meta.get("file_version") != 1 and meta.get("sha256") != content_sha256(meta, arrays):
        raise WeightsFileError(f"{path}: the content does not match its SHA-256 checksum (the file is damaged)")


def _check_metadata(path: Path, meta: object) -> NetSpec:
    if not isinstance(meta, dict) or meta.get("file") != FILE_KIND:
        raise WeightsFileError(f"{path}: not a yamb neural player file")
    if meta.get("file_version") not in READABLE_VERSIONS:
        raise WeightsFileError(
            f"{path}: file version {meta.get('file_version')!r}, this program reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))}"
        )
    try:
        return NetSpec.from_dict(meta["spec"])
    except (KeyError, TypeError, ValueError) as error:
        raise WeightsFileError(f"{path}: the network description is damaged ({error})") from None


def _check_cell_values(path: Path, spec: NetSpec, values: object) -> np.ndarray:
    n_cells = spec.layout().n_cells
    values = None if values is None else np.asarray(values, dtype=np.float32)
    if values is None or values.shape != (n_cells,):
        raise WeightsFileError(f"{path}: the cell values are missing or not {n_cells} numbers")
    check_finite(path, np.zeros(0), values)
    return values


def _from_arrays(path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> NeuralWeights:
    spec = _check_metadata(path, meta)
    _check_checksum(path, meta, arrays)
    net = spec.build()
    cell_values = _check_cell_values(path, spec, arrays.pop(CELL_VALUES, None))
    try:
        net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in arrays.items()})
    except RuntimeError as error:
        first = str(error).strip().splitlines()[-1].strip()
        raise WeightsFileError(f"{path}: weights do not fit a {spec.kind} network {list(spec.hidden)}: {first}") from None
    info = {k: v for k, v in meta.items() if k in ("fitness", "seed", "run_preset", "generation", "games")}
    genome = genome_of(net)
    check_finite(path, genome, cell_values)
    return NeuralWeights(spec, genome, cell_values, info)


def check_is_file(path: Path) -> None:
    """A ``WeightsFileError`` unless ``path`` is a file (a folder, or nothing, named in one line)."""
    if path.is_dir():
        raise WeightsFileError(f"{path} is a directory, not a weights file")
    if not path.is_file():
        raise WeightsFileError(f"{path}: no such weights file")


def load_weights(path: Path) -> NeuralWeights:
    """A ``pt``, ``safetensors`` or ``npz`` weights file, checked against its own metadata."""
    path = Path(path)
    fmt = format_of(path)
    if fmt == "onnx":
        raise WeightsFileError(f"{path}: an ONNX file holds a graph, not weights; load it with load_player")
    check_is_file(path)
    try:
        meta, arrays = _read(path, fmt)
    except ParseError as error:  # a damaged archive, metadata too deep or too long to read
        raise WeightsFileError(f"{path}: not a readable {fmt} weights file ({error})") from None
    except Exception as error:  # noqa: BLE001 - any failure to parse a user's file is bad input
        raise WeightsFileError(f"{path}: not a readable {fmt} weights file ({type(error).__name__})") from None
    return _from_arrays(path, meta, arrays)


class OnnxForward:
    """An ONNX session as a ``Forward``: one network, (1, G, features) to (1, G, outputs)."""

    def __init__(self, session: object) -> None:
        self.session = session

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(["outputs"], {"features": np.ascontiguousarray(x[0])})[0][None]


def import_onnxruntime() -> object:
    """The ``onnxruntime`` module, imported with ``$TMPDIR`` pointing at a folder of its own, deleted
    after: its import writes a session file (``.ses``) into the temporary folder and never removes it."""
    import os
    import shutil
    import sys
    import tempfile

    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    private = tempfile.mkdtemp(prefix="yamb-onnxruntime-")
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = private
    try:
        import onnxruntime
    finally:
        if before is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = before
        shutil.rmtree(private, ignore_errors=True)
    return onnxruntime


def onnx_network(path: Path) -> tuple[NetSpec, OnnxForward, np.ndarray]:
    """The spec, the onnxruntime network and the cell values of an ONNX file."""
    import onnx
    from onnx import numpy_helper

    onnxruntime = import_onnxruntime()

    path = Path(path)
    check_is_file(path)
    remove_temporaries(path.parent)  # finishes an interrupted write of the file and its sidecar
    try:
        data = path.read_bytes()
        model = onnx.load_from_string(data)
        props = {p.key: p.value for p in model.metadata_props}
        meta = parse_json(props[METADATA_KEY])
        values = parse_json(props[CELL_VALUES])
        graph = model.graph.SerializeToString()
        weights = [numpy_helper.to_array(t) for t in model.graph.initializer]
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except ParseError as error:  # its metadata too deep or too long to read
        raise WeightsFileError(f"{path}: its metadata is {error}") from None
    except Exception as error:  # noqa: BLE001 - any failure to parse a user's file is bad input
        raise WeightsFileError(f"{path}: not a readable onnx weights file ({type(error).__name__})") from None
    spec = _check_metadata(path, meta)
    if isinstance(meta.get("spec"), dict) and isinstance(values, list):
        description = {k: v for k, v in props.items() if k not in (METADATA_KEY, CELL_VALUES)}
        _check_checksum(path, meta, _onnx_arrays(graph, np.asarray(values, dtype=np.float32), description,
                                                 meta.get("file_version")))
    check_sidecar(path, data)
    check_finite(path, np.concatenate([w.ravel() for w in weights] or [np.zeros(0)]).astype(np.float64), np.zeros(0))
    net = spec.build()
    shapes = [(i.name, i.shape[-1]) for i in session.get_inputs()] + [(o.name, o.shape[-1]) for o in session.get_outputs()]
    if shapes != [("features", net.n_inputs), ("outputs", net.n_outputs)]:
        raise WeightsFileError(f"{path}: the graph does not fit a {spec.kind} network of {spec.table.describe()}")
    return spec, OnnxForward(session), _check_cell_values(path, spec, values)
