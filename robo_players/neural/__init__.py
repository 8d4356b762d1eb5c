"""Neural players: networks that play, from genomes (a population in evolution) or from files.

- ``features``: what a network sees of a game (table, dice, roll);
- ``networks``: ``DirectPolicyNet`` (kind ``direct``) and ``CellValueNet``
  (kind ``guided``), and ``NetSpec``, their picklable description;
- ``dense``: the networks' forward pass, the same bits on every machine;
- ``population``: genomes and a population evaluated in one batched pass;
- ``player``: what both kinds share; ``direct`` and ``guided``: the two players;
- ``weights``, ``files``, ``onnx_meta`` and ``build``: weight files (pt, safetensors, onnx,
  npz) and players made from genomes or files; ``bots``: the shipped ones (``best``);
- ``value_nets``: value networks and their files; ``state_values`` (``best-values``) and
  ``afterstate_values``: the players over them.

Fitting them lives in ``robo_players.training``.
"""
