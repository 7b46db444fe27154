"""Evaluation: the match loop, the arena (``ddz eval``), the league (``ddz league``), the referee
that keeps bots to the rules and the clock, and the worker pools that run them (local processes
or a Ray cluster)."""
