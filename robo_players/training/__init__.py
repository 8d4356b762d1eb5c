"""Fitting networks to play: what makes the neural players, never loaded to play them.

- ``rows``: recorded rows, a dataclass of equal-length arrays.
- ``descent``: one epoch of minibatch gradient descent, the loop every fit runs.
- ``demonstrations`` and ``imitation``: a direct network trained to imitate a teacher.
- ``returns``: a search-guided network fitted to the returns of play (policy iteration).
- ``value_fit``: a state-value network fitted to play (``best-values``).
- ``afterstates``: an after-state network fitted to the returns of play.
- ``kept_rounds``: the rounds a fit has finished, kept so that a stopped fit goes on.
- ``check``: the fitted player against the one it started from, on fresh games.
"""
