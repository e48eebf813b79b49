"""Uniformly random legal play: the baseline every other agent must beat."""

from __future__ import annotations

import numpy as np

from uno_env.random_actions import random_legal_actions

from .base import Agent, check_batch


class RandomAgent(Agent):
    """Picks each row's action uniformly among its legal actions.

    Vectorised: one random number per row picks among that row's legal entries.
    """

    name = "random"
    uses_observations = False
    plays_uniformly = True

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        return random_legal_actions(masks, rng)
