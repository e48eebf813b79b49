"""Uniformly random legal play: the baseline every other agent must beat."""

from __future__ import annotations

import numpy as np

from .base import Agent, check_batch, masked_argmax


class RandomAgent(Agent):
    """Picks each row's action uniformly among its legal actions.

    Vectorised: the argmax of independent uniform keys over the legal entries is
    a uniform choice among them.
    """

    name = "random"
    uses_observations = False

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        return masked_argmax(rng.random(masks.shape), masks)
