"""The published baseline: a random player that never draws while it can play.

Uniform random legal play (:class:`~uno_agents.RandomAgent`) draws, passes and
challenges as often as it plays, which makes it an unusually weak opponent. The
reference numbers of published UNO bots are measured against a random player
that behaves like a casual human instead; this module is that player.
"""

from __future__ import annotations

import numpy as np

from uno_env.actions import CATCH, CHALLENGE, DRAW, NUM_ACTIONS, PASS, UNO
from uno_env.engine.playout import RANDOM_PLAY, PlayoutPolicy

from .base import Agent, check_batch, masked_argmax


def _tiers() -> np.ndarray:
    """Priority tier of each action: the agent picks uniformly within the best legal tier."""
    tier = np.full(NUM_ACTIONS, 3.0)   # plays, color and target choices, Dobon
    tier[CATCH] = 6.0
    tier[UNO] = 5.0
    tier[DRAW] = 2.0                    # draw a card, or accept a penalty
    tier[PASS] = 1.0
    tier[CHALLENGE] = 0.0
    return tier


#: The priority tier of every action (the agent plays uniformly within the best legal one).
RANDOM_PLAY_TIERS = _tiers()


class RandomPlayAgent(Agent):
    """Random play as engines without UNO actions would play it.

    Per row, in order of priority: catch an opponent who did not call UNO, call
    UNO, then a uniformly random choice among the card plays (answers to a
    penalty, jump-ins and Dobon included) and color or target choices; draw only
    when no card can be played (accepting a penalty rather than challenging it),
    pass only when nothing else is legal.
    """

    name = "random_play"
    uses_observations = False

    def playout_policy(self, num_players: int) -> PlayoutPolicy:
        """This agent as a policy the compiled engine plays by itself
        (:func:`uno_env.engine.playouts.play_policy`): the same rule, uniform within the best
        legal tier, with its uniform numbers from the games' playout streams."""
        return PlayoutPolicy(RANDOM_PLAY, static=RANDOM_PLAY_TIERS)

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        return masked_argmax(RANDOM_PLAY_TIERS + 0.5 * rng.random(masks.shape), masks)
