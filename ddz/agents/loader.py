"""Agent specs: how ``ddz eval`` and ``ddz league`` turn a name on the command line into a bot.

A spec is one of, tried in this order:

* a **built-in name**: ``random``, ``easy``, ``normal``, ``hard``, ``expert``, ``rlcard``,
  ``hard:PATH`` (the Hard agent with the model file PATH), ``expert:KEY=VALUE,…`` (the Expert
  with those options, e.g. ``expert:worlds=16,margin=0.2``; the keys are
  :data:`ddz.agents.base.EXPERT_SPEC_OPTIONS`) or ``douzero:DIR`` (DouZero's networks in the
  folder DIR, :mod:`ddz.agents.douzero_agent`);
* a name added by an **installed package** through the entry-point group ``ddz.agents``; the
  package declares, in its ``pyproject.toml``::

      [project.entry-points."ddz.agents"]
      mybot = "mypkg.bots:MyAgent"

  and ``ddz eval mybot normal`` then works (built-in names can't be shadowed);
* a **Python import path** ``package.module:Name`` or a file ``path/to/bot.py:Name``, where
  ``Name`` is an :class:`~ddz.agents.base.Agent` subclass or a zero-argument factory returning an
  agent. The module is imported from the installed packages, then from the current directory.
  Any object with an ``act(info) -> int`` method is accepted (``reset(seed)`` is optional);
* ``cmd:PROGRAM ARGS…``: a program in any language that talks JSON lines on its standard
  input/output (:mod:`ddz.agents.external`, protocol in ``docs/PROTOCOL.md``). The command line is
  split like a POSIX shell would (``shlex``) but never run through a shell.

Importing a module runs that bot's code in this process, which it can then read and change:
``ddz eval`` and ``ddz league`` run a user's bot (an entry point, an import path, a file) in a
process of its own instead (:mod:`ddz.agents.host`, :func:`is_user_bot`), unless the run trusts
it (``--trust-bots``). A program (``cmd:``) is always a process of its own; the built-in bots
always run in this process.
Errors a user can cause (unknown name, module not found, no such program) raise ``ValueError``
with a one-line message.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from importlib.metadata import entry_points

from ddz.agents.base import (
    _REGISTRY,
    SPEC_PREFIXES,
    Agent,
    _expert_options,
    agent_names,
    make_agent,
)
from ddz_env.infoset import InfoSet

#: The entry-point group through which installed packages add agents.
ENTRY_POINT_GROUP = "ddz.agents"

_MODULE_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_ATTR = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class _Adapter(Agent):
    """Gives an object with ``act(info)`` (and maybe ``reset(seed)``) the Agent interface."""

    def __init__(self, inner, name: str):
        self.inner, self.name = inner, name

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.inner, "reset", None)
        if callable(reset):
            reset(seed)

    def bid(self, info: InfoSet) -> int:  # pragma: no cover - act is overridden
        raise NotImplementedError

    def play(self, info: InfoSet) -> int:  # pragma: no cover - act is overridden
        raise NotImplementedError

    def act(self, info: InfoSet) -> int:
        return self.inner.act(info)


def plugin_names() -> list[str]:
    """Names added by installed packages (entry-point group ``ddz.agents``)."""
    return sorted({ep.name.lower() for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _as_agent(obj, spec: str) -> Agent:
    if isinstance(obj, Agent):
        return obj
    if callable(getattr(obj, "act", None)):
        return _Adapter(obj, getattr(obj, "name", spec))
    raise ValueError(
        f"{spec}: got a {type(obj).__name__}, not an agent (an Agent subclass, or an object "
        "with an act(info) method)"
    )


def _instantiate(target, spec: str) -> Agent:
    """An Agent subclass is instantiated, a factory called with no arguments."""
    if isinstance(target, Agent) or (not callable(target) and hasattr(target, "act")):
        return _as_agent(target, spec)
    if not callable(target):
        raise ValueError(f"{spec}: {target!r} is neither an agent class nor a factory")
    try:
        obj = target()
    except TypeError as exc:
        raise ValueError(f"{spec}: could not be built with no arguments ({exc})") from None
    except (Exception, SystemExit) as exc:  # the bot's own constructor failed
        raise ValueError(f"{spec}: could not be built ({exception_line(exc)})") from None
    return _as_agent(obj, spec)


def _import_module(module: str, spec: str):
    if module.endswith(".py") or os.sep in module or "/" in module:
        path = os.path.abspath(module)
        if not os.path.isfile(path):
            raise ValueError(f"{spec}: no such file {module!r}")
        name = "_ddz_bot_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
        if name in sys.modules and getattr(sys.modules[name], "__file__", None) == path:
            return sys.modules[name]
        file_spec = importlib.util.spec_from_file_location(name, path)
        if file_spec is None or file_spec.loader is None:
            raise ValueError(f"{spec}: cannot load {module!r} as a Python module")
        mod = importlib.util.module_from_spec(file_spec)
        sys.modules[name] = mod
        try:
            file_spec.loader.exec_module(mod)
        except KeyboardInterrupt:
            sys.modules.pop(name, None)
            raise
        except BaseException as exc:  # a syntax error, a failed import, even SystemExit
            sys.modules.pop(name, None)
            raise ValueError(f"{spec}: {module!r} failed to load ({exception_line(exc)})") from None
        return mod
    if not _MODULE_PATH.match(module):
        raise ValueError(f"{spec}: {module!r} is not a module path (package.module:Name)")
    try:
        return _load(module, spec)
    except ModuleNotFoundError as exc:
        if not _names_module(exc, module):
            raise ValueError(f"{spec}: {module!r} failed to load ({exception_line(exc)})") from None
    cwd = os.getcwd()
    if cwd in sys.path:
        raise ValueError(f"{spec}: no module named {module!r}")
    sys.path.append(cwd)  # like ``python -m``: modules of the current directory
    try:
        return _load(module, spec)
    except ModuleNotFoundError as exc:
        if _names_module(exc, module):
            raise ValueError(f"{spec}: no module named {module!r}") from None
        raise ValueError(f"{spec}: {module!r} failed to load ({exception_line(exc)})") from None
    finally:
        sys.path.remove(cwd)


def _load(module: str, spec: str):
    """``importlib.import_module(module)``; any failure of the module's own code (a syntax
    error, an exception, ``SystemExit``) is a one-line ``ValueError``; ``ModuleNotFoundError``
    is left to the caller (is it the module itself that is missing?)."""
    try:
        return importlib.import_module(module)
    except (ModuleNotFoundError, KeyboardInterrupt):
        raise
    except BaseException as exc:
        raise ValueError(f"{spec}: {module!r} failed to load ({exception_line(exc)})") from None


def exception_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 200 characters), e.g. for a syntax error
    ``SyntaxError: invalid syntax (bot.py, line 3)``; the type alone when the message can't
    even be made (a bot's exception whose ``__str__`` fails)."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:
        text = []
    return type(exc).__name__ + (f": {text[0][:200]}" if text else "")


def _names_module(exc: ModuleNotFoundError, module: str) -> bool:
    """Whether the missing module is ``module`` itself or one of its parent packages."""
    return bool(exc.name) and (module == exc.name or module.startswith(f"{exc.name}."))


def _from_import_path(spec: str) -> Agent:
    module, _, attr = spec.rpartition(":")
    if not module or not _ATTR.match(attr):
        raise ValueError(f"{spec}: expected package.module:Name or path/to/bot.py:Name")
    mod = _import_module(module, spec)
    target = mod
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{spec}: {module!r} has no attribute {attr!r}")
        target = getattr(target, part)
    agent = _instantiate(target, spec)
    return agent


def _from_entry_point(key: str) -> Agent | None:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.lower() == key:
            try:
                target = ep.load()
            except (Exception, SystemExit) as exc:
                raise ValueError(
                    f"{key}: {ep.value!r} failed to load ({exception_line(exc)})"
                ) from None
            return _instantiate(target, key)
    return None


def is_user_bot(spec: str) -> bool:
    """Whether ``spec`` names a Python bot of the user's: an entry point of an installed package,
    an import path or a file (not a built-in bot, not a program)."""
    text = spec.strip()
    key = text.lower()
    if key.startswith("cmd:"):
        return False
    agent_names()  # loads the built-in registry
    if key in _REGISTRY or key.startswith(SPEC_PREFIXES):
        return False
    return ":" in text or key in plugin_names()


def build_agent(spec: str) -> Agent:
    """Build the agent named by ``spec`` (see the module docstring) in this process;
    ``ValueError`` (one line) when it can't be built. (``ddz eval`` and ``ddz league`` run a
    user's bot in a process of its own instead: :mod:`ddz.agents.host`.)"""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string, not {type(spec).__name__}")
    text = spec.strip()
    key = text.lower()
    if key.startswith("cmd:"):
        from ddz.agents.external import ExternalAgent

        return ExternalAgent(text[len("cmd:") :], name=text)
    agent_names()  # loads the built-in registry
    if key in _REGISTRY or key.startswith(SPEC_PREFIXES):
        return make_agent(text)
    agent = _from_entry_point(key)
    if agent is not None:
        return agent
    if ":" in text:
        return _from_import_path(text)
    choices = ", ".join(sorted(set(agent_names()) | set(plugin_names())))
    raise ValueError(
        f"unknown agent {spec!r}; choose from {choices}, a Python class package.module:Name "
        "or a program cmd:PROGRAM"
    )


def model_files(spec: str, ruleset) -> list:
    """The model files an agent ``spec`` (as :func:`make_agent` takes it) plays ``ruleset``'s
    game with: ``hard:PATH``'s file; ``douzero:DIR``'s three networks; the shipped model of
    the game for ``hard`` and ``expert``, and the Expert's belief model (``belief=PATH``, else
    the game's shipped one; none with ``belief=uniform`` or in a game without one). Other
    agents: none. The spec is read as :func:`make_agent` reads it, an invalid one giving
    none."""
    from pathlib import Path

    from ddz.agents.hard import shipped_model_path

    key = spec.strip().lower()
    if key.startswith("hard:"):
        return [Path(spec.strip()[len("hard:") :])]
    if key.startswith("douzero:"):
        from ddz.agents.douzero_agent import checkpoint_files

        try:
            return list(checkpoint_files(spec.strip()[len("douzero:") :]).values())
        except ValueError:
            return []
    base = key.partition(":")[0]
    if base not in ("hard", "expert"):
        return []
    files = [shipped_model_path(ruleset)]
    if base == "expert":
        from ddz.agents.belief import shipped_belief_path

        try:
            belief = _expert_options(spec.strip()).get("belief", True) if ":" in key else True
        except ValueError:
            return [f for f in files if f is not None]
        files.append(shipped_belief_path(ruleset) if belief is True else belief and Path(belief))
    return [f for f in files if f]
