"""Measuring players: many games played reproducibly (``simulate``), players compared on the same
dice (``compare``) and the luck of the dice a reference search sees (``luck``)."""
