"""Two agents of your own: a batch agent with a parameter, and a rule for one game.

    uno-env tournament --agents docs/examples/color_hoarder.py:ColorHoarder,tuned
    uno-env tournament --agents docs/examples/color_hoarder.py:ColorHoarder:keep_wilds=false,greedy
    uno-env tournament --agents docs/examples/color_hoarder.py:first_legal,random_play
"""

from __future__ import annotations

import numpy as np

from uno_agents import Agent, masked_argmax, per_game
from uno_env.actions import ACTION_COLOR, CATCH, IS_PLAY, NUM_PLAY_ACTIONS, PLAY_WILD_BASE, UNO
from uno_env.cards import NUM_COLORED_KINDS, NUM_COLORS
from uno_env.engine.observe import VIEW_SLICES


class ColorHoarder(Agent):
    """Plays the color it holds most of, calls UNO and catches whenever it can; keeps its
    wild cards for when nothing else is playable (``keep_wilds``)."""

    name = "color_hoarder"
    uses_rng = False               # the same rows give the same actions

    def __init__(self, keep_wilds: bool = True) -> None:
        self.keep_wilds = keep_wilds

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        hand = observations[:, VIEW_SLICES["hand"]]             # cards of each kind held
        per_color = hand[:, :NUM_COLORED_KINDS].reshape(len(hand), NUM_COLORS, -1).sum(axis=2)
        # a play or a color choice scores the cards held of its color
        scores = np.where(ACTION_COLOR >= 0, per_color[:, np.maximum(ACTION_COLOR, 0)], 0.0)
        scores[:, IS_PLAY] += 200.0                             # any play before a draw
        if self.keep_wilds:
            scores[:, PLAY_WILD_BASE:NUM_PLAY_ACTIONS] -= 100.0  # wilds after colored plays
        scores[:, [UNO, CATCH]] = 1000.0
        return masked_argmax(scores, masks)


@per_game
def first_legal(observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """One decision at a time: the legal action with the lowest id."""
    return int(np.flatnonzero(mask)[0])
