"""The game people play (``ddz play``): the table, the screens, the input loop, the player's
statistics and the translations. It uses the bots of :mod:`ddz.agents`, never the arena."""
