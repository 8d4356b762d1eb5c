"""Optuna sweeps over evolution's settings: the search spaces (``space``), where a sweep lives (``study``),
running its trials (``sweep``, ``worker``) and reporting them (``report``)."""
