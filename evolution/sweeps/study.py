"""Where a sweep lives: its settings file, its Optuna storage, its study and its pruner.

A sweep directory holds ``sweep.json`` (the settings the sweep was started
with), ``sweep.db`` (the default SQLite storage) and one evolution run
directory per trial under ``trials/``. The study is named after the directory,
and the name is kept in ``sweep.json``: workers on other machines that point
at the same shared storage from a directory of the same name join the same
study (``join_study``).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import optuna
from sqlalchemy.exc import SQLAlchemyError

from evolution.backends import CLUSTER_EXTRA
from evolution.run_files import SWEEP_SETTINGS_FILE
from evolution.sweeps.space import SearchSpace, search_space
from robo_players.neural.files import write_atomically
from yamb.atomic import holds_files
from yamb.checks import MAX_SEED
from yamb.errors import YambError
from yamb.parsing import ParseError, parse_json, unreadable

# heartbeats and retries are "experimental" in Optuna 5, and the sweep relies on them knowingly
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

OBJECTIVE = "final check mean score"  # the study's metric: a complete trial's value (a pruned one has none)
DEFAULT_DB = "sweep.db"
PRUNERS = ("median", "hyperband", "none")
HEARTBEAT_SECONDS = 10  # a running trial's worker writes a heartbeat this often (RDB storages) ...
GRACE_HEARTBEATS = 3  # ... and a trial whose heartbeat is 3 beats old (30 s) is failed, then retried
HEARTBEAT_VARIABLE = "YAMB_SWEEP_HEARTBEAT"  # environment variable: another heartbeat, in whole seconds
RECIPE_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_RETRIES = 2  # a failed trial is retried (same parameters, resumed run) at most this often


class SweepError(YambError):
    """A sweep directory, storage or setting that cannot be used."""


@dataclass(frozen=True)
class SweepSettings:
    """What a sweep was started with, its search space included; a resumed sweep keeps them."""

    space: SearchSpace
    recipe: str = "quick"  # the name ``space`` was taken from (``preset`` in the sweep.json of earlier versions)
    pruner: str = "median"
    seed: int = 0
    storage: str | None = None  # None: sweep.db in the sweep directory
    study: str = ""  # the Optuna study name: the sweep directory's name when it was started

    def __post_init__(self) -> None:
        if self.pruner not in PRUNERS:
            raise SweepError(f"unknown pruner {self.pruner!r}; choose from {', '.join(PRUNERS)}")
        if not isinstance(self.recipe, str) or not RECIPE_NAME.fullmatch(self.recipe):  # a label: the space is kept
            raise SweepError(f"recipe must be a name of letters, digits, '.', '_' and '-', not {self.recipe!r}")
        if type(self.seed) is not int or not 0 <= self.seed <= MAX_SEED:
            raise SweepError(f"seed must be a whole number from 0 to 2**64-1, not {self.seed!r}")


def settings_path(directory: Path) -> Path:
    return Path(directory) / SWEEP_SETTINGS_FILE


def read_settings(directory: Path) -> SweepSettings | None:
    """The settings of an existing sweep directory, or None for a new one."""
    path = settings_path(directory)
    if not path.exists():
        return None
    try:
        data = parse_json(path.read_bytes())
        if "preset" in data:  # a sweep.json of an earlier version
            data["recipe"] = data.pop("preset")
        return SweepSettings(**{**data, "space": SearchSpace.from_dict(data["space"])})
    except (ValueError, TypeError, KeyError) as error:
        raise SweepError(f"{path} is not a sweep settings file: {error}") from None


def settle_settings(
    directory: Path, asked: dict[str, object], fixed: dict[str, str] | None = None
) -> SweepSettings:
    """The stored settings of ``directory`` (checked against what was asked) or new ones.

    ``asked`` maps setting names to the values the user gave (None: not given);
    ``fixed`` holds evolution settings every trial keeps (``--set``). A resumed
    sweep refuses a value that differs from the one it was started with.
    """
    given = {key: value for key, value in asked.items() if value is not None}
    stored = read_settings(directory)
    if stored is None and holds_files(directory):
        raise SweepError(f"{directory} holds other files and no sweep (no {SWEEP_SETTINGS_FILE}); "
                         "name a new or empty directory")
    if stored is None:
        space = search_space(given.get("recipe", SweepSettings.recipe))
        return SweepSettings(space=replace(space, settings=fixed or {}), **given,
                             study=Path(directory).resolve().name)
    if fixed and fixed != stored.space.settings:
        raise SweepError(f"sweep {directory} was started with fixed settings {stored.space.settings}, not {fixed}")
    for key, value in given.items():
        kept = getattr(stored, key)
        if key == "storage":
            kept, value = without_password(kept), without_password(value)
        if kept != value:
            raise SweepError(f"sweep {directory} was started with {key} {kept!r}, not {value!r}")
    return replace(stored, storage=given["storage"]) if "storage" in given else stored  # its password, if any


def write_settings(directory: Path, settings: SweepSettings) -> None:
    """Write ``sweep.json`` atomically, the storage URL without its password."""
    data = asdict(settings)
    data["storage"] = without_password(settings.storage)
    text = json.dumps(data, indent=2) + "\n"
    write_atomically(settings_path(directory), lambda tmp: tmp.write_text(text))


def storage_url(directory: Path, settings: SweepSettings) -> str:
    """The storage URL, or journal file path, the sweep's study lives in."""
    if settings.storage is not None:
        return settings.storage
    return f"sqlite:///{(Path(directory) / DEFAULT_DB).resolve()}"


def heartbeat_seconds() -> int:
    """The heartbeat interval: ``$YAMB_SWEEP_HEARTBEAT`` or ``HEARTBEAT_SECONDS``."""
    text = os.environ.get(HEARTBEAT_VARIABLE, str(HEARTBEAT_SECONDS))
    if not text.isdigit() or int(text) < 1:
        raise SweepError(f"{HEARTBEAT_VARIABLE}={text!r}: the heartbeat is a whole number of seconds >= 1")
    return int(text)


def retry_callback() -> optuna.storages.RetryHeartbeatStaleTrialCallback:
    """Queues a failed trial again (same parameters, user attributes and reported values)."""
    return optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=MAX_RETRIES, inherit_intermediate_values=True)


def check_journal(path: Path) -> None:
    """Refuse an existing file that is not an Optuna journal (its first line a JSON object with an
    ``op_code``): the journal would append its records to it, then fail to read it back."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb") as file:
        first = file.readline(1 << 20)
    try:
        record = parse_json(first)
    except ParseError:  # not JSON, not UTF-8, too deep or too long to read
        record = None
    if not isinstance(record, dict) or "op_code" not in record:
        raise SweepError(f"{path} is not an Optuna journal file; name a new file or a sweep's journal "
                         f"(or a database URL) for --storage")


def open_storage(url: str) -> optuna.storages.BaseStorage:
    """An Optuna storage: an RDB URL (``sqlite:///...``, ``postgresql://...``) or a journal file path.

    RDB storages get a heartbeat, so the trial of a killed worker is failed
    after the grace period (``GRACE_HEARTBEATS`` heartbeats) and retried with
    the same parameters.
    """
    if "://" not in url:
        path = Path(url)
        check_journal(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with storage_failures(str(path)):
            return optuna.storages.JournalStorage(CheckedJournal(str(path)))
    engine = {"connect_args": {"timeout": 60}} if url.startswith("sqlite") else None
    shown = hide_password(url)
    try:
        return optuna.storages.RDBStorage(
            url, engine_kwargs=engine, heartbeat_interval=heartbeat_seconds(),
            grace_period=GRACE_HEARTBEATS * heartbeat_seconds(),
            heartbeat_stale_trial_callback=retry_callback(),
        )
    except ImportError as error:
        fix = CLUSTER_EXTRA if url.startswith("postgresql") else f"install it ({error})"
        raise SweepError(f"storage {shown!r} needs a database driver that is not installed: {fix}") from None
    except (ValueError, SQLAlchemyError) as error:
        raise SweepError(f"cannot open storage {shown!r}: {str(error).splitlines()[0]}") from None


class CheckedJournal(optuna.storages.journal.JournalFileBackend):
    """Optuna's journal file, whose records that Python's JSON reader fails on (a damaged line, nesting
    too deep, an integer too long) are a ``SweepError`` naming the file."""

    def read_logs(self, log_number_from: int) -> Generator[dict, None, None]:
        try:
            yield from super().read_logs(log_number_from)
        except (ValueError, RecursionError) as error:
            reason = unreadable(error) or "a line cut short"
            raise SweepError(f"the journal {self._file_path} is damaged (a record: {reason})") from None


@contextmanager
def storage_failures(where: str) -> Iterator[None]:
    """A storage's failure inside (a damaged database, a full disk) as one ``SweepError`` line naming
    ``where`` (a database URL without its password) and the first cause."""
    try:
        yield
    except (optuna.exceptions.StorageInternalError, SQLAlchemyError) as error:
        cause: BaseException = error
        while cause.__cause__ is not None or cause.__context__ is not None:
            cause = cause.__cause__ or cause.__context__
        reason = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
        raise SweepError(f"the storage {hide_password(where)} failed: {reason}") from None


def without_password(url: str | None) -> str | None:
    """``url`` with no password: ``sweep.json`` keeps none; a sweep resumed without ``--storage`` gets it the
    database's own ways (``PGPASSWORD``, ``~/.pgpass``)."""
    from sqlalchemy.engine import URL, make_url
    from sqlalchemy.exc import ArgumentError

    if url is None:
        return None
    try:
        u = make_url(url)
    except ArgumentError:
        return url
    if u.password is None:
        return url
    bare = URL.create(u.drivername, u.username, None, u.host, u.port, u.database, u.query)
    return bare.render_as_string(hide_password=False)


def hide_password(url: str) -> str:
    """``url`` with its password, if any, as ``***``."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def make_pruner(name: str, max_generations: int) -> optuna.pruners.BasePruner:
    """The median or Hyperband pruner over generations (or none)."""
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=2)  # steps: generations done
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=max_generations, reduction_factor=3)
    return optuna.pruners.NopPruner()


def join_study(study: optuna.Study, settings: SweepSettings) -> None:
    """Record the search space and the runs' seed in a new study; refuse a study that searches another space.

    Workers on other machines keep their own ``sweep.json``: the study is where
    they agree. Their ``--seed`` seeds their sampler; every run takes the
    study's seed, so that all trials play the same dice.
    """
    space = json.loads(json.dumps(asdict(settings.space)))
    if study.metric_names is None:
        study.set_metric_names([OBJECTIVE])
    if "space" not in study.user_attrs:
        study.set_user_attr("space", space)
        study.set_user_attr("run_seed", settings.seed)
    elif study.user_attrs["space"] != space:
        raise SweepError(f"study {study.study_name!r} searches another space than sweep.json "
                         "(another --recipe, --preset or --set); use another storage or study")


def open_study(directory: Path, settings: SweepSettings) -> optuna.Study:
    """The existing study of ``directory`` (to report on it): a ``SweepError`` when its storage or the study
    in it is missing, never a new one made."""
    url = storage_url(directory, settings)
    shown = hide_password(url)
    if "://" not in url or url.startswith("sqlite:///"):
        file = Path(url.removeprefix("sqlite:///"))
        if not file.is_file() or file.stat().st_size == 0:
            raise SweepError(f"sweep {directory} has no storage {shown} (it has not started, or its storage "
                             "was moved away); nothing to report")
    storage = open_storage(url)
    try:
        return optuna.load_study(study_name=settings.study, storage=storage)
    except KeyError:
        raise SweepError(f"storage {shown} holds no study {settings.study!r} (sweep {directory} has not "
                         "started, or its sweep.json names another study); nothing to report") from None


def load_study(directory: Path, settings: SweepSettings) -> optuna.Study:
    """Create or load the study of ``directory`` (maximizing the final check's mean score)."""
    return optuna.create_study(
        storage=open_storage(storage_url(directory, settings)), study_name=settings.study,
        direction="maximize", load_if_exists=True,
    )
