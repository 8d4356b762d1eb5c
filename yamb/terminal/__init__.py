"""The terminal front end of ``yamb play``: the hand on screen, rendering, prompts and the game loop."""
