"""The batch interface every agent implements.

An agent acts on a batch of decisions at once: ``act(observations, masks, rng)``
gets the acting players' observations ``float32[B, D]`` and legal-action masks
``bool[B, A]`` and returns one action id per row. Agents see nothing but their
observation and mask, so a heuristic cannot peek at hidden cards, and random,
rule-based, search and trained agents are interchangeable in envs, experiments
and tournaments.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BatchAgent(Protocol):
    """Anything with the batch ``act`` method (structural type for type checkers)."""

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray: ...


class Agent(ABC):
    """Base class of the project's agents.

    ``act`` must return ``int64[B]`` legal action ids (any id for a row whose
    mask is all False, e.g. a finished game). Subclasses must not keep per-game
    state between calls unless they document it: envs call ``act`` on varying
    subsets of their games.
    """

    #: A short name used by tournaments, logs and :func:`agents.make_agent`.
    name: str = "agent"
    #: False for agents that ignore their observations (envs may then pass zeros
    #: instead of building them, which saves time in large batches).
    uses_observations: bool = True
    #: True for agents that pick uniformly among the legal actions: envs over a
    #: compiled engine may then play them inside compiled code
    #: (:meth:`uno_env.Engine.play_random`), with their own random stream.
    plays_uniformly: bool = False

    @abstractmethod
    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        """One legal action id per row of ``masks``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def check_batch(observations: np.ndarray, masks: np.ndarray) -> None:
    """Raise ``ValueError`` if the observation and mask batches do not line up."""
    if masks.ndim != 2:
        raise ValueError(f"masks must be bool[B, A], got shape {masks.shape}")
    if observations.ndim != 2 or observations.shape[0] != masks.shape[0]:
        raise ValueError(f"observations must be float32[B, D] with B={masks.shape[0]}, "
                         f"got shape {observations.shape}")


def masked_argmax(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Index of the best-scoring legal action of each row (0 for rows with none)."""
    return np.where(masks, scores, -np.inf).argmax(axis=1)
