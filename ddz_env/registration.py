"""Registers the environments with Gymnasium, lazily.

* ``"ddz/DouDizhu-v0"``: :class:`ddz_env.single.DouDizhuEnv`, one learner seat against two
  opponents (``gymnasium.make``); its vector entry point is
  :class:`ddz_env.vector.DouDizhuVectorEnv` (``gymnasium.make_vec("ddz/DouDizhu-v0",
  num_envs=n)``, the default mode, or ``vectorization_mode="vector_entry_point"``): ``n`` games
  in one batched engine, where the caller acts for the seat to act in each game and the rewards
  are seat ``learner_seat``'s. For ``n`` single-seat envs against opponents
  (``seat``, ``opponents``, ...), pass ``vectorization_mode="sync"`` (or ``"async"``);
* ``"ddz/DouDizhuSelfPlay-v0"``: :class:`ddz_env.vector.DouDizhuVectorEnv`, every seat of
  ``num_envs`` games stepping together (``gymnasium.make_vec(..., num_envs=256)`` only).

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


def register_envs() -> None:
    """Register the environment with Gymnasium (idempotent)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT
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
