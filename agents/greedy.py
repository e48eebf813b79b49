"""A rule-based agent: the plain strategy of a careful casual player.

It reads only its own observation, scores every action
(:func:`uno_env.engine.scoring.greedy_scores`, the engine's numpy reference, whose
compiled twin plays it inside the engine) and plays the best legal one, all rows
at once:

1. declare Dobon, catch an opponent who forgot to call UNO, call UNO;
2. play a colored card, highest points first (actions before numbers, big
   numbers before small ones), preferring the color it holds most of;
3. keep wilds for last; when it plays one (or chooses a color), name the color
   it holds most of;
4. otherwise draw; after drawing, play the drawn card when it can;
5. against a Wild Draw Four, challenge when the offender still holds at least
   ``challenge_threshold`` cards (the more cards, the likelier a bluff),
   otherwise accept;
6. target decisions pick the opponent with the fewest cards.
"""

from __future__ import annotations

import numpy as np

from uno_env import checks
from uno_env.engine.observe import OBS_SIZE
from uno_env.engine.playout import GREEDY, PlayoutPolicy
from uno_env.engine.scoring import GREEDY_COLOR_WEIGHT, GREEDY_STATIC, greedy_scores

from .base import Agent, check_batch, masked_argmax


class GreedyAgent(Agent):
    """Sheds high-point cards first, saves wilds, calls and catches UNO (see module doc)."""

    name = "greedy"
    uses_rng = False
    acts_by_playout_policy = True

    def __init__(self, challenge_threshold: int = 3) -> None:
        self.challenge_threshold = checks.integer(challenge_threshold, "challenge_threshold")

    def __repr__(self) -> str:
        return f"GreedyAgent(challenge_threshold={self.challenge_threshold})"

    def playout_policy(self, num_players: int) -> PlayoutPolicy:
        """This agent as a policy the compiled engine plays by itself
        (:func:`uno_env.engine.playouts.play_policy`), choosing what ``act`` does (at any table)."""
        return PlayoutPolicy(GREEDY, static=GREEDY_STATIC, color_weight=GREEDY_COLOR_WEIGHT,
                             threshold=float(self.challenge_threshold))

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """``float64[B, A]``: how much the agent likes each action (legal or not)."""
        return greedy_scores(observations, self.challenge_threshold)

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks, OBS_SIZE)
        return masked_argmax(self.scores(observations), masks)
