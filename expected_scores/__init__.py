"""Exact expected scores and whole-game solvers."""
