"""Evolution of neural players with DEAP."""
