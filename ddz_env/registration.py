"""Registers the environments with Gymnasium, lazily.

* ``"ddz/DouDizhu-v0"``: :class:`ddz_env.single.DouDizhuEnv`, one learner seat against
  opponents (``gymnasium.make``); ``gymnasium.make_vec("ddz/DouDizhu-v0", num_envs=n)`` makes
  ``n`` of them in a ``gymnasium.vector.SyncVectorEnv`` (:func:`single_seat_vector_env`, its
  vector entry point; ``vectorization_mode="sync"`` or ``"async"`` make the same envs with
  Gymnasium's own vectorizers), so the reward of every sub-env is its learner seat's;
* ``"ddz/DouDizhuSelfPlay-v0"``: :class:`ddz_env.vector.DouDizhuVectorEnv`, ``num_envs`` games
  in one batched engine where the caller acts for the seat to act in each game and the rewards
  are seat ``learner_seat``'s (``gymnasium.make_vec(..., num_envs=256)`` only).

Before, ``make_vec`` of the single-seat id made the batched self-play env. That stays
reachable for one release, with a ``FutureWarning`` naming the self-play id:
``gymnasium.make_vec("ddz/DouDizhu-v0", num_envs=n, self_play=True)``, or any call that
passes ``learner_seat`` (an option of the self-play env only).

``import ddz_env`` must stay light, so it does not import Gymnasium. Instead :func:`install`
registers at once when Gymnasium is already imported, and otherwise waits: a small import hook
registers the environment right after ``import gymnasium`` runs. Either way
``gymnasium.make("ddz/DouDizhu-v0")`` works after ``import ddz_env``.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

ENV_ID = "ddz/DouDizhu-v0"
ENTRY_POINT = "ddz_env.single:DouDizhuEnv"
VECTOR_ENV_ID = "ddz/DouDizhuSelfPlay-v0"
VECTOR_ENTRY_POINT = "ddz_env.vector:DouDizhuVectorEnv"
#: What ``gymnasium.make_vec`` of the single-seat id builds.
SINGLE_VECTOR_ENTRY_POINT = "ddz_env.registration:single_seat_vector_env"


def single_seat_vector_env(num_envs: int = 1, self_play: bool = False, **kwargs):
    """``num_envs`` single-seat envs (``gymnasium.make("ddz/DouDizhu-v0", **kwargs)`` each) in a
    ``gymnasium.vector.SyncVectorEnv`` (``autoreset_mode`` is the vector env's).

    Deprecated, for one release: ``self_play=True``, or ``learner_seat`` among the options,
    builds the batched self-play env :class:`ddz_env.vector.DouDizhuVectorEnv` as this id did
    before, with a ``FutureWarning``: use ``"ddz/DouDizhuSelfPlay-v0"``."""
    import warnings

    import gymnasium

    if self_play or "learner_seat" in kwargs:
        warnings.warn(
            f"gymnasium.make_vec({ENV_ID!r}) builds single-seat envs against opponents; the "
            f"batched self-play env it built before is {VECTOR_ENV_ID!r} "
            f"(gymnasium.make_vec({VECTOR_ENV_ID!r}, num_envs=n)). self_play=True and "
            "learner_seat here go in the next release.",
            FutureWarning,
            stacklevel=3,
        )
        from .vector import DouDizhuVectorEnv

        return DouDizhuVectorEnv(num_envs=num_envs, **kwargs)
    mode = kwargs.pop("autoreset_mode", None)
    vector_kwargs = {} if mode is None else {"autoreset_mode": gymnasium.vector.AutoresetMode(mode)}
    return gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, **kwargs) for _ in range(num_envs)], **vector_kwargs
    )


def register_envs() -> None:
    """Register the environment with Gymnasium (idempotent)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID, entry_point=ENTRY_POINT, vector_entry_point=SINGLE_VECTOR_ENTRY_POINT
        )
    if VECTOR_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=VECTOR_ENV_ID, vector_entry_point=VECTOR_ENTRY_POINT)


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Finds ``gymnasium`` with the normal finders, and registers once its module has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_register(module):
            # the hook stays until gymnasium really runs: a mere ``importlib.util.find_spec``
            # (libraries check whether gymnasium is installed that way) must not use it up
            _remove_hook()
            exec_module(module)
            register_envs()

        spec.loader.exec_module = exec_and_register
        return spec


def _remove_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RegisterAfterImport)]


def install() -> None:
    """Register now if Gymnasium is imported, else as soon as it is."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(f, _RegisterAfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport())
