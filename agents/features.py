"""Action features read from the observation, for agents that score actions linearly.

A heuristic here is a weight per feature: the score of an action is the weighted
sum of its features, and the agent plays the best-scoring legal action. Features
are either *static* (depend on the action only, e.g. "plays a number card") or
*dynamic* (depend on the observation too, e.g. "the next player is about to go
out and this card attacks them"). Everything is read from the named views of
:data:`uno_env.engine.observe.VIEW_SLICES`, all rows at once; no hidden
information is involved.

Calling UNO, catching and declaring Dobon are never worse than anything else and
get fixed top scores rather than weights.
"""

from __future__ import annotations

import numpy as np

from uno_env.actions import (
    ACTION_COLOR,
    ACTION_KIND,
    ACTION_TARGET,
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
    DECKS,
    DRAW_VALUE,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_NUMBER,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORS,
    POINTS_STANDARD,
    SYM_REVERSE,
    SYM_SKIP,
    SYM_SKIP_ALL,
)
from uno_env.engine.observe import VIEW_SLICES
from uno_env.engine.state import RESPOND

_V = VIEW_SLICES
_NUM_PLAYERS = _V["rules"].start          # rules view element 0: num_players / 10
_DECK_FLAGS = slice(_V["rules"].start + 1, _V["rules"].start + 1 + len(DECKS))

#: Names of the static features (functions of the action alone).
STATIC = ("number", "number_value", "colored_action", "wild", "draw_value", "points",
          "draw", "pass", "challenge")
#: Names of the dynamic features (functions of the action and the observation).
DYNAMIC = ("keeps_color", "color_share", "color_scarce", "attacks", "attacks_threat",
           "action_threat", "wild_near_out", "accept_penalty", "challenge_bluff", "target_size",
           "next_lacks_color", "challenge_after_draw")
#: All feature names, in weight-vector order.
FEATURES = STATIC + DYNAMIC

_KIND = ACTION_KIND.astype(np.int64)
_PLAY = _KIND >= 0
_SAFE_KIND = np.maximum(_KIND, 0)
#: Color each action leaves on the table (the card's, the chosen one), -1 for none.
_RESULT_COLOR = np.where(_PLAY & ~IS_WILD[_SAFE_KIND], KIND_COLOR[_SAFE_KIND],
                         ACTION_COLOR).astype(np.int64)
_HAS_COLOR = _RESULT_COLOR >= 0
_COLOR_IDX = np.maximum(_RESULT_COLOR, 0)
#: Plays that take the next player's turn away (or hit them with a penalty).
_ATTACK = _PLAY & (np.isin(KIND_SYMBOL[_SAFE_KIND], (SYM_SKIP, SYM_SKIP_ALL))
                  | (DRAW_VALUE[_SAFE_KIND] > 0))
_REVERSE = _PLAY & (KIND_SYMBOL[_SAFE_KIND] == SYM_REVERSE)
_ACTION_OR_WILD = _PLAY & ~IS_NUMBER[_SAFE_KIND]
_WILD_PLAY = _PLAY & IS_WILD[_SAFE_KIND]
_TARGET = np.arange(NUM_ACTIONS) >= TARGET_BASE
_COLORS_OF_DECKS = np.stack([d[:NUM_COLORED_KINDS].reshape(NUM_COLORS, -1).sum(axis=1)
                             for d in DECKS.values()]).astype(np.float64)


def _static_matrix() -> np.ndarray:
    """``float64[A, len(STATIC)]``: the static features of every action."""
    m = np.zeros((NUM_ACTIONS, len(STATIC)))
    number = _PLAY & IS_NUMBER[_SAFE_KIND]
    m[:, 0] = number
    m[:, 1] = np.where(number, KIND_NUMBER[_SAFE_KIND] / 9.0, 0.0)
    m[:, 2] = _PLAY & ~IS_NUMBER[_SAFE_KIND] & ~IS_WILD[_SAFE_KIND]
    m[:, 3] = _WILD_PLAY
    m[:, 4] = np.where(_PLAY, DRAW_VALUE[_SAFE_KIND] / 4.0, 0.0)
    m[:, 5] = np.where(_PLAY, POINTS_STANDARD[_SAFE_KIND] / 50.0, 0.0)
    m[DRAW, 6] = m[PASS, 7] = m[CHALLENGE, 8] = 1.0
    return m


STATIC_MATRIX = _static_matrix()
#: Fixed scores of the actions that are always right when legal.
FIXED = np.zeros(NUM_ACTIONS)
FIXED[[UNO, CATCH, DOBON]] = (1e4, 2e4, 3e4)


class TableView:
    """The parts of a batch of observations the features need, named."""

    def __init__(self, obs: np.ndarray) -> None:
        b = obs.shape[0]
        self.rows = np.arange(b)
        hand = obs[:, _V["hand"]].astype(np.float64)
        self.by_color = hand[:, :NUM_COLORED_KINDS].reshape(b, NUM_COLORS, -1).sum(axis=2)
        self.own_size = obs[:, _V["own_hand_size"].start].astype(np.float64)
        self.color = obs[:, _V["color"]].argmax(axis=1)
        self.phase = obs[:, _V["phase"]].argmax(axis=1)
        self.pending = obs[:, _V["pending_draw"].start].astype(np.float64)
        self.sizes = obs[:, _V["hand_sizes"]].astype(np.float64)
        present = obs[:, _V["seats_present"]] > 0
        players = np.rint(obs[:, _NUM_PLAYERS] * 10).astype(np.int64)
        offsets = np.arange(present.shape[1])
        first = np.where(present, offsets, 99).min(axis=1)
        last = np.where(present, offsets, -1).max(axis=1)
        clockwise = obs[:, _V["direction"].start] > 0
        #: index into ``sizes`` of the next / previous player still in the round
        self.next = np.clip(np.where(clockwise, first, last), 0, None)
        self.previous = np.clip(np.where(clockwise, last, first), 0, None)
        self.heads_up = (players == 2) | (present.sum(axis=1) == 1)
        self.min_size = np.where(present, self.sizes, 999.0).min(axis=1)
        # cards of each color nobody has shown: the deck's minus discards and own hand
        deck = _COLORS_OF_DECKS[obs[:, _DECK_FLAGS].argmax(axis=1)]
        shown = obs[:, _V["discards"]][:, :NUM_COLORED_KINDS].reshape(b, NUM_COLORS, -1).sum(2)
        self.unseen = np.maximum(deck - shown - self.by_color, 0.0)
        #: per seat offset, the colors it drew on since it last played (it likely lacks them)
        self.drew_on = obs[:, _V["drew_on"]].reshape(b, -1, NUM_COLORS) > 0
        self.wd4_after_draw = obs[:, _V["wd4_after_draw"]] > 0


def dynamic_features(t: TableView) -> list[np.ndarray]:
    """``float64[B, A]`` per name of :data:`DYNAMIC`, in order."""
    b = t.rows.size
    after = t.by_color[:, _COLOR_IDX] - np.where(_PLAY & ~_WILD_PLAY, 1.0, 0.0)
    left = np.maximum(t.own_size[:, None] - _PLAY, 1.0)
    share = np.where(_HAS_COLOR, after / left, 0.0)
    keeps = np.where(_HAS_COLOR & _PLAY, _RESULT_COLOR[None, :] == t.color[:, None], False)
    total_unseen = np.maximum(t.unseen.sum(axis=1, keepdims=True), 1.0)
    scarce = np.where(_HAS_COLOR, 1.0 - NUM_COLORS * t.unseen[:, _COLOR_IDX] / total_unseen, 0.0)
    next_size = t.sizes[t.rows, t.next]
    threat_next = (next_size <= 2)[:, None]
    attack = _ATTACK | (_REVERSE & t.heads_up[:, None])
    attacks_threat = attack & threat_next
    action_threat = _ACTION_OR_WILD & (t.min_size <= 2)[:, None]
    wild_near_out = _WILD_PLAY & (t.own_size <= 3)[:, None]
    accept = np.zeros((b, NUM_ACTIONS))
    accept[:, DRAW] = (t.phase == RESPOND) & (t.pending > 0)
    bluff = np.zeros((b, NUM_ACTIONS))
    attacker_size = t.sizes[t.rows, t.previous]
    bluff[:, CHALLENGE] = 1.0 - 0.75 ** attacker_size   # chance they held the old color
    target = np.where(_TARGET, t.sizes[:, np.maximum(ACTION_TARGET - 1, 0)] / 10.0, 0.0)
    next_lacks = np.where(_HAS_COLOR, t.drew_on[t.rows, t.next][:, _COLOR_IDX], False)
    after_draw = np.zeros((b, NUM_ACTIONS))
    after_draw[:, CHALLENGE] = t.wd4_after_draw[t.rows, t.previous]
    return [keeps, share, scarce, attack, attacks_threat, action_threat, wild_near_out, accept,
            bluff, target, next_lacks, after_draw]


def feature_scores(obs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``float64[B, A]``: the weighted feature sum of every action (legal or not).

    ``weights`` is ``float[len(FEATURES)]`` for the whole batch, or ``float[B,
    len(FEATURES)]`` with one weight vector per row (batched tuning).
    """
    w = np.asarray(weights, np.float64)
    if w.shape[-1] != len(FEATURES):
        raise ValueError(f"weights must have {len(FEATURES)} entries ({', '.join(FEATURES)}), "
                         f"got shape {w.shape}")
    ns = len(STATIC)
    scores = w[..., :ns] @ STATIC_MATRIX.T + FIXED
    if scores.ndim == 1:
        scores = np.broadcast_to(scores, (obs.shape[0], NUM_ACTIONS)).copy()
    for i, feature in enumerate(dynamic_features(TableView(obs))):
        wi = w[..., ns + i]
        scores += (wi[:, None] if np.ndim(wi) else wi) * feature
    return scores


__all__ = ["DYNAMIC", "FEATURES", "STATIC", "feature_scores"]
