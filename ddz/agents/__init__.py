"""Agents: the Agent interface, rule-based and trained bots, the arena and the play command."""

from .base import Agent, RandomAgent, agent_names, make_agent, register


def _easy(**kwargs) -> Agent:
    from .rule_bots import EasyAgent

    return EasyAgent(**kwargs)


def _normal(**kwargs) -> Agent:
    from .rule_bots import NormalAgent

    return NormalAgent(**kwargs)


def _rlcard(**kwargs) -> Agent:
    from .rlcard_agent import RLCardAgent

    return RLCardAgent(**kwargs)


register("random", RandomAgent)
register("easy", _easy)
register("normal", _normal)
register("rlcard", _rlcard)


def _hard(**kwargs) -> Agent:
    from .hard import HardAgent

    return HardAgent(**kwargs)


register("hard", _hard)


def _expert(**kwargs) -> Agent:
    from .expert import ExpertAgent

    return ExpertAgent(**kwargs)


register("expert", _expert)

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register"]
