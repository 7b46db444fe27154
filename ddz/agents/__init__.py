"""Bots: the Agent interface, the rule-based and trained bots, and the loaders that build a bot
from a name, a file, an entry point or a program."""

from ddz.agents.base import Agent, RandomAgent, agent_names, agent_plays, make_agent, register


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


def _rlcard_plays(ruleset) -> bool:
    """RLCard's rule agent reads the moves of the classic game's table (three seats)."""
    return ruleset.game == RLCARD_GAME


#: the game RLCard's rule agent was written for
RLCARD_GAME = "classic"
register("rlcard", _rlcard, _rlcard_plays)


def _hard(**kwargs) -> Agent:
    from ddz.agents.hard import HardAgent

    return HardAgent(**kwargs)


def _model_plays(ruleset) -> bool:
    """Hard and Expert without a model file play the games a shipped model plays."""
    from ddz.agents.hard import plays_shipped

    return plays_shipped(ruleset)


register("hard", _hard, _model_plays)


def _expert(**kwargs) -> Agent:
    from ddz.agents.expert import ExpertAgent

    return ExpertAgent(**kwargs)


def _expert_plays(ruleset) -> bool:
    """The Expert plays the games a shipped model plays, and those its rollouts play on the
    rules bots alone (the profile's ``rules_rollouts``)."""
    from ddz.common.profile import profile_of

    return _model_plays(ruleset) or profile_of(ruleset).rules_rollouts


register("expert", _expert, _expert_plays)


def _douzero(directory=None, **kwargs) -> Agent:
    from ddz.agents.douzero_agent import DouZeroAgent

    if not directory:
        raise ValueError(
            "douzero:DIR needs the folder of DouZero's checkpoints (landlord.ckpt, "
            "landlord_up.ckpt, landlord_down.ckpt), e.g. douzero:baselines/douzero_ADP"
        )
    return DouZeroAgent(directory, **kwargs)


def _douzero_plays(ruleset) -> bool:
    """DouZero's networks play the classic game's card play (Normal bids for them)."""
    from ddz.agents.douzero_agent import douzero_plays

    return douzero_plays(ruleset)


register("douzero", _douzero, _douzero_plays)

__all__ = ["Agent", "RandomAgent", "agent_names", "agent_plays", "make_agent", "register"]
