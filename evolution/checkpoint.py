"""The checkpoint file's format: a header with the version and the payload's SHA-256, then the pickled state.

The header line is ``yamb-checkpoint <version> sha256 <hex digest>``; a payload that does not
match its digest (a damaged file) is refused before it is unpickled. Version 4 is version 3
with the strategies moved to ``evolution.strategies`` and the run recipe named ``recipe``: a
version-3 payload is read through ``MOVED`` (its classes' old module paths) and
``EvolveConfig.__setstate__`` (its settings' old names).
"""

from __future__ import annotations

import hashlib
import io
import pickle

from yamb.errors import YambError

CHECKPOINT_VERSION = 4  # 2: a header line with the payload's SHA-256; 3: play and CMA-ES the same on every
# machine; 4: the strategies in evolution.strategies, the run recipe named recipe
READS = (3, 4)  # versions this program resumes
CHECKPOINT_MAGIC = b"yamb-checkpoint"
MOVED = {  # module of a class pickled by version 3: where the class lives now
    "evolution.cma_es": "evolution.strategies.cma_es",
    "evolution.sep_cma": "evolution.strategies.sep_cma",
    "evolution.openai_es": "evolution.strategies.openai_es",
    "evolution.genes": "evolution.strategies.genes",
}


class CheckpointError(YambError):
    """A checkpoint that is missing, damaged, or from another version."""


class _Unpickler(pickle.Unpickler):
    """Reads the classes of earlier versions from their modules of today (``MOVED``)."""

    def find_class(self, module: str, name: str) -> object:
        return super().find_class(MOVED.get(module, module), name)


def dumps(state: object) -> bytes:
    """The checkpoint's bytes: its header, then ``state`` pickled."""
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    return b"%s %d sha256 %s\n" % (CHECKPOINT_MAGIC, CHECKPOINT_VERSION, hashlib.sha256(payload).hexdigest().encode())\
        + payload


def loads(data: bytes, where: str) -> object:
    """The state of a checkpoint's bytes (read from ``where``, named in errors), or a ``CheckpointError``."""
    header, _, payload = data.partition(b"\n")
    words = header.split()
    if len(words) != 4 or words[0] != CHECKPOINT_MAGIC or words[2] != b"sha256":
        raise CheckpointError(f"{where}: damaged checkpoint, or one of a version before {READS[0]} "
                              f"(no checksum); start a new run")
    if words[1] not in [str(version).encode() for version in READS]:
        raise CheckpointError(f"{where}: checkpoint version {words[1].decode(errors='replace')}, "
                              f"this program reads {' and '.join(map(str, READS))}")
    if hashlib.sha256(payload).hexdigest().encode() != words[3]:
        raise CheckpointError(f"{where}: damaged checkpoint (its content does not match its SHA-256)")
    try:
        return _Unpickler(io.BytesIO(payload)).load()
    except Exception as error:  # noqa: BLE001 - a payload that matches its digest but does not load
        raise CheckpointError(f"{where}: damaged checkpoint ({type(error).__name__})") from None
