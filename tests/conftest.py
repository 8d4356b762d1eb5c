"""Set-up shared by every test module; the reference game of the rule book is ``tests/reference_game.py``."""

import pytest

import yamb  # noqa: F401  (first: it pins numpy's BLAS kernels before numpy loads, yamb/blas.py)

BENCHMARKS = "--benchmarks"


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory):
    """A solution cache of the module's own (``YAMB_CACHE``): each table is solved once in it."""
    path = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("YAMB_CACHE", str(path))
        yield path


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(BENCHMARKS, action="store_true",
                     help="also run the tests marked benchmark: the whole score-distribution tables built from nothing "
                          "and the shipped bots' strength measured on thousands of games (an hour or more)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption(BENCHMARKS):
        return
    skip = pytest.mark.skip(reason=f"a benchmark (a whole table built, or thousands of games): run with {BENCHMARKS}")
    for item in items:
        if "benchmark" in item.keywords:
            item.add_marker(skip)
