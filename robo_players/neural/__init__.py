"""Neural players, evolved by ``evolution``: weights as ``nn.Module``s and as flat genomes.

- ``features``: what a network sees of a game (table, dice, roll);
- ``networks``: ``DirectPolicyNet`` (kind ``direct``) and ``CellValueNet``
  (kind ``guided``), and ``NetSpec``, their picklable description;
- ``population``: genomes and a population evaluated in one batched pass;
- ``direct``: the direct-policy player;
- ``files`` and ``build``: weight files (pt, safetensors, onnx, npz) and players
  made from genomes or files.
"""
