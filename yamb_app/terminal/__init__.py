"""The terminal front end of ``yamb play``: the hand on screen, rendering, prompts and the game loop,
and ``HumanPlayer``, a person typing at a plain console."""
