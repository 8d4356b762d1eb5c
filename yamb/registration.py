"""Register ``Yamb-v0`` with Gymnasium, without importing the environment (done on ``import yamb``).

Gymnasium 1.0 dropped its ``gymnasium.envs`` entry-point plugins, so an
installed package cannot register itself before it is imported. After
``import yamb`` (or with no import at all, through ``gymnasium.make("yamb:Yamb-v0")``,
which imports ``yamb`` first) ``gymnasium.make("Yamb-v0")`` works.
"""

from __future__ import annotations

ENV_ID = "Yamb-v0"


def register_envs() -> None:
    """Add ``Yamb-v0`` (``yamb.env:YambEnv``) to Gymnasium's registry unless it is there."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="yamb.env:YambEnv")
