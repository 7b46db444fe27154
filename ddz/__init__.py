"""ddz: Dou Dizhu for reinforcement learning, bots and the terminal.

The rules engine and environments are the ``ddz_env`` package; this package holds the
layers above it: :mod:`ddz.agents` (bots, the arena, the league, the terminal game),
:mod:`ddz.train` (Deep Monte Carlo training), :mod:`ddz.bench` (benchmarks) and
:mod:`ddz.cli` (the ``ddz`` command). It imports nothing itself, so each layer loads alone."""
