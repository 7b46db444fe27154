"""Agents: the Agent interface, rule-based and trained bots, the arena and the play command."""

from .base import Agent, RandomAgent, agent_names, make_agent, register

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register"]
