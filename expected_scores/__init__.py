"""Exact expected scores and whole-game solvers."""

from expected_scores.tables import load_distribution, load_table

__all__ = ["load_distribution", "load_table"]
