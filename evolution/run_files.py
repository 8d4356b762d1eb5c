"""The names of a run directory's files (``evolution.run_dir`` reads and writes them), importable
without the rest of evolution (the web app lists runs by them before anything else is loaded)."""

CONFIG_FILE = "config.toml"
CHECKPOINT = "checkpoint.pkl"
LOGBOOK_FILE = "logbook.csv"
BEST_FILE = "best.pt"
HALL_OF_FAME_FILE = "hall_of_fame.npz"
SUMMARY_FILE = "summary.json"
FITNESS_PLOT = "fitness.png"
SCORES_PLOT = "scores.png"
LOCK_FILE = ".lock"
