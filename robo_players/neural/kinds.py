"""The kinds of neural player, a name each (their networks are in ``robo_players.neural.networks``;
this module loads no network library, so that settings can be checked without one)."""

KINDS = ("direct", "guided")  # a network that plays alone; a network that corrects a search's cell values
