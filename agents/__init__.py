"""Batch agents for UNO: ``act(observations[B, D], masks[B, A], rng) -> actions[B]``.

``RandomAgent`` plays uniformly among legal actions; ``GreedyAgent`` is a
rule-based player reading only its observation. :func:`make_agent` builds an
agent from a name, so configs and command lines can name opponents.
"""

from __future__ import annotations

from typing import Any

from .base import Agent, BatchAgent, masked_argmax
from .greedy import GreedyAgent
from .random_agent import RandomAgent

#: Agents constructible by name.
AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(spec: str | BatchAgent, **kwargs: Any) -> BatchAgent:
    """An agent from a name in :data:`AGENTS` (passing ``kwargs``), or ``spec`` itself."""
    if isinstance(spec, str):
        if spec not in AGENTS:
            raise ValueError(f"unknown agent {spec!r}; agents: {', '.join(AGENTS)}")
        return AGENTS[spec](**kwargs)
    if not callable(getattr(spec, "act", None)):
        raise TypeError(f"an agent needs an act(observations, masks, rng) method, got {spec!r}")
    return spec


__all__ = ["AGENTS", "Agent", "BatchAgent", "GreedyAgent", "RandomAgent", "make_agent",
           "masked_argmax"]
