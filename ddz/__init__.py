"""ddz: Dou Dizhu for reinforcement learning, bots and the terminal.

The rules engine and environments are the ``ddz_env`` package; this package holds the
layers above it: :mod:`ddz.agents` (bots, the arena, the league, the terminal game),
:mod:`ddz.train` (Deep Monte Carlo training), :mod:`ddz.bench` (benchmarks) and
:mod:`ddz.cli` (the ``ddz`` command). It imports nothing itself, so each layer loads alone."""


def __getattr__(name: str) -> str:
    """``ddz.__version__``: the version of the installed distribution ``ddz`` (its metadata, set
    by ``version`` in pyproject.toml), read on first use; ``0+unknown`` from a source tree that
    was never installed."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ddz.common import project_version

    value = project_version()
    if value != "0+unknown":
        globals()[name] = value
    return value
