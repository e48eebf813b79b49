"""A rule-based agent: the plain strategy of a careful casual player.

It reads only its own observation through the named views of
:data:`uno_env.engine.observe.VIEW_SLICES`, scores every action and plays the
best legal one, all rows at once:

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
from uno_env.actions import (
    ACTION_COLOR,
    ACTION_KIND,
    CATCH,
    CHALLENGE,
    DOBON,
    DRAW,
    NUM_ACTIONS,
    PASS,
    TARGET_BASE,
    UNO,
)
from uno_env.cards import (
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    NUM_COLORED_KINDS,
    NUM_COLORS,
    POINTS_STANDARD,
)
from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES
from uno_env.engine.playout import GREEDY, PlayoutPolicy

from .base import Agent, check_batch, masked_argmax

_V = VIEW_SLICES
_WD4 = KIND_ID["WD4"]


def _static_scores() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-action base score, color of the action (-1: none) and weight of that color."""
    base = np.zeros(NUM_ACTIONS, np.float64)
    color = np.full(NUM_ACTIONS, -1, np.int64)
    weight = np.zeros(NUM_ACTIONS, np.float64)
    kind = ACTION_KIND.astype(np.int64)
    play = kind >= 0
    colored = play & ~IS_WILD[np.maximum(kind, 0)]
    wild = play & ~colored
    # colored cards: 100 + points, nudged towards the color held most
    base[colored] = 100.0 + POINTS_STANDARD[kind[colored]]
    color[colored] = KIND_COLOR[kind[colored]]
    weight[colored] = 0.5
    # wilds: far below any colored card; the chosen color follows the hand
    base[wild] = 10.0 + (kind[wild] == _WD4)
    color[wild] = ACTION_COLOR[wild]
    weight[wild] = 2.0
    chooser = (ACTION_COLOR >= 0) & ~play
    base[chooser] = 10.0
    color[chooser] = ACTION_COLOR[chooser]
    weight[chooser] = 2.0
    base[DRAW] = 1.0
    base[PASS] = 0.0
    base[CHALLENGE] = 0.0       # raised per row when a challenge looks good
    base[UNO] = 500.0
    base[CATCH] = 1000.0
    base[DOBON] = 2000.0
    base[TARGET_BASE:] = 50.0   # minus the target's hand size, per row
    return base, color, weight


_BASE, _COLOR, _WEIGHT = _static_scores()
#: ``[colors, A]``: the weight each color's count in hand adds to each action's score.
_COLOR_WEIGHT = np.where(_COLOR[None, :] == np.arange(NUM_COLORS)[:, None], _WEIGHT, 0.0)
#: ``[colored kinds, colors]``: which color each colored kind is (a matrix product with
#: the hand counts the cards of each color far faster than a reshaped sum).
_COLOR_OF_KIND = (KIND_COLOR[:NUM_COLORED_KINDS, None] == np.arange(NUM_COLORS)).astype(np.float32)


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
        (:meth:`uno_env.Engine.play_policy`), choosing what ``act`` does (at any table)."""
        return PlayoutPolicy(GREEDY, static=_BASE, color_weight=_WEIGHT,
                             threshold=float(self.challenge_threshold))

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """``float64[B, A]``: how much the agent likes each action (legal or not)."""
        obs = observations
        b = obs.shape[0]
        by_color = obs[:, _V["hand"].start:_V["hand"].start + NUM_COLORED_KINDS] @ _COLOR_OF_KIND
        scores = by_color.astype(np.float64) @ _COLOR_WEIGHT
        scores += _BASE
        # challenge a Wild Draw Four played by someone still holding many cards
        sizes = obs[:, _V["hand_sizes"]]
        players = obs[:, _V["seats_present"]].sum(axis=1).astype(np.int64) + 1
        clockwise = obs[:, _V["direction"].start] > 0
        offender = np.where(clockwise, players - 1, 1)          # seat offset of the attacker
        offender_size = sizes[np.arange(b), offender - 1]
        scores[:, CHALLENGE] = np.where(offender_size >= self.challenge_threshold, 5.0, 0.0)
        # target the opponent with the fewest cards (absent seats are never legal)
        scores[:, TARGET_BASE:] -= sizes
        return scores

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks, OBS_SIZE)
        return masked_argmax(self.scores(observations), masks)
