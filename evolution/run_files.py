"""The names of a run directory's files (``evolution.run_dir`` reads and writes them) and of a sweep
directory's settings, importable without the rest of evolution (the web app lists runs by them, and
``yamb sweep report`` checks a directory, before anything else is loaded)."""

CONFIG_FILE = "config.toml"
CHECKPOINT = "checkpoint.pkl"
LOGBOOK_FILE = "logbook.csv"
BEST_FILE = "best.pt"
HALL_OF_FAME_FILE = "hall_of_fame.npz"
SUMMARY_FILE = "summary.json"
FITNESS_PLOT = "fitness.png"
SCORES_PLOT = "scores.png"
LOCK_FILE = ".lock"
SWEEP_SETTINGS_FILE = "sweep.json"  # a sweep directory's settings (evolution.sweeps.study)
