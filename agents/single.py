"""Agents written one game at a time, played in batches.

Every agent of the project acts on a batch of decisions (:class:`uno_agents.Agent`).
An agent that is simpler to write for one decision defines ``act_one(observation,
mask, rng) -> action`` on a :class:`SingleGameAgent`, or is a plain function turned
into an agent by :func:`per_game`; either then plays wherever a batch agent does (a
tournament, the envs, the leaderboard), one row at a time: slower than a vectorised
agent, the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Agent

#: A rule for one decision: ``(observation float32[D], mask bool[A], rng) -> action id``.
Choose = Callable[[np.ndarray, np.ndarray, np.random.Generator], Any]


class SingleGameAgent(Agent):
    """Base class of an agent that decides one game at a time: subclasses define
    :meth:`act_one`; ``act`` calls it for each row that has a legal action."""

    name = "single-game"

    def act_one(self, observation: np.ndarray, mask: np.ndarray,
                rng: np.random.Generator) -> int:
        """The action id for one decision: ``observation`` ``float32[D]``, ``mask``
        ``bool[NUM_ACTIONS]`` (at least one True)."""
        raise NotImplementedError(f"{type(self).__name__} must define act_one")

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        actions = np.zeros(len(masks), np.int64)
        for row in np.flatnonzero(masks.any(axis=1)):
            actions[row] = int(self.act_one(observations[row], masks[row], rng))
        return actions


class _PerGame(SingleGameAgent):
    """The agent of a function for one decision (:func:`per_game`)."""

    def __init__(self, choose: Choose, name: str) -> None:
        self.choose = choose
        self.name = name

    def act_one(self, observation: np.ndarray, mask: np.ndarray,
                rng: np.random.Generator) -> int:
        return int(self.choose(observation, mask, rng))

    def __repr__(self) -> str:
        return f"per_game({self.name})"


def per_game(choose: Choose, name: str | None = None) -> SingleGameAgent:
    """A batch agent that calls ``choose(observation, mask, rng) -> action id`` for each
    decision (usable as a decorator); ``name`` defaults to the function's."""
    if not callable(choose):
        raise TypeError(f"per_game needs a function (observation, mask, rng) -> action, "
                        f"got {type(choose).__name__}")
    return _PerGame(choose, name or str(getattr(choose, "__name__", "per-game")))


__all__ = ["SingleGameAgent", "per_game"]
