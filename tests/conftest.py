"""Set-up shared by every test module; the reference game of the rule book is ``tests/reference_game.py``."""

import pytest

import yamb  # noqa: F401  (first: it pins numpy's BLAS kernels before numpy loads, yamb/blas.py)

FULL_BUILDS = "--full-builds"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(FULL_BUILDS, action="store_true",
                     help="also run the tests marked full_build: whole score-distribution tables built from nothing "
                          "(about an hour of CPU on two cores for Yatzy and Yahtzee)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption(FULL_BUILDS):
        return
    skip = pytest.mark.skip(reason=f"a whole table built from nothing: run with {FULL_BUILDS}")
    for item in items:
        if "full_build" in item.keywords:
            item.add_marker(skip)
