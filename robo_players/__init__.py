"""Players of the batched engine: baselines, search, Monte Carlo, neural networks."""
