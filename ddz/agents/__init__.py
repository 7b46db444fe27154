"""Bots: the Agent interface, the rule-based and trained bots, and the loaders that build a bot
from a name, a file, an entry point or a program."""

from ddz.agents.base import Agent, RandomAgent, agent_names, make_agent, register


def _easy(**kwargs) -> Agent:
    from ddz.agents.rule_bots import EasyAgent

    return EasyAgent(**kwargs)


def _normal(**kwargs) -> Agent:
    from ddz.agents.rule_bots import NormalAgent

    return NormalAgent(**kwargs)


def _rlcard(**kwargs) -> Agent:
    from ddz.agents.rlcard_agent import RLCardAgent

    return RLCardAgent(**kwargs)


register("random", RandomAgent)
register("easy", _easy)
register("normal", _normal)
register("rlcard", _rlcard)


def _hard(**kwargs) -> Agent:
    from ddz.agents.hard import HardAgent

    return HardAgent(**kwargs)


register("hard", _hard)


def _expert(**kwargs) -> Agent:
    from ddz.agents.expert import ExpertAgent

    return ExpertAgent(**kwargs)


register("expert", _expert)

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register"]
