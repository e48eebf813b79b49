"""Playout policies the compiled engine plays by itself: the linear heuristics as tables.

A search plays thousands of short games per decision with a fast policy. Asking a
Python agent for every step of every playout costs far more than the steps, so
the policies that score actions by fixed tables can instead be handed to the
engine (:meth:`uno_env.Engine.play_policy`), which plays whole playouts inside
one compiled call. A :class:`PlayoutPolicy` is such a table; the agents build
theirs (``playout_policy`` of ``greedy``, ``tuned``, ``defender`` ...), and the
compiled scoring (:mod:`uno_env.engine.compiled.playouts`) picks exactly the
actions their ``act`` picks from the same observation.

The action facts here (which actions play a card, the color an action leaves,
which plays attack ...) are what the linear features read; the agents' numpy
features (``uno_agents.features``) read the same tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..actions import ACTION_COLOR, ACTION_KIND, ACTION_TARGET, NUM_ACTIONS, TARGET_BASE
from ..cards import (
    DECKS,
    DRAW_VALUE,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORS,
    SYM_REVERSE,
    SYM_SKIP,
    SYM_SKIP_ALL,
)
from .rng import GOLDEN, mix64, next_random

#: Names of the dynamic features (functions of the action and the observation) that
#: a linear policy weighs, in weight order (``uno_agents.features.DYNAMIC``).
DYNAMIC = ("keeps_color", "color_share", "color_scarce", "attacks", "attacks_threat",
           "action_threat", "wild_near_out", "accept_penalty", "challenge_bluff", "target_size",
           "next_lacks_color", "challenge_after_draw", "follow_up", "attack_follow",
           "last_of_color", "symbol_twins", "next_named_color", "attacks_leader",
           "reverse_dodge", "skips_to_threat", "reverse_to_threat", "threat_lacks_color",
           "symbol_scarce", "attack_big_hand", "table_lacks_color", "table_named_color")

KIND = ACTION_KIND.astype(np.int64)
#: Actions that play a card.
PLAY = KIND >= 0
SAFE_KIND = np.maximum(KIND, 0)
#: Color each action leaves on the table (the card's, the chosen one), -1 for none.
RESULT_COLOR = np.where(PLAY & ~IS_WILD[SAFE_KIND], KIND_COLOR[SAFE_KIND],
                        ACTION_COLOR).astype(np.int64)
HAS_COLOR = RESULT_COLOR >= 0
COLOR_IDX = np.maximum(RESULT_COLOR, 0)
#: Plays that take the next player's turn away (or hit them with a penalty).
ATTACK = PLAY & (np.isin(KIND_SYMBOL[SAFE_KIND], (SYM_SKIP, SYM_SKIP_ALL))
                 | (DRAW_VALUE[SAFE_KIND] > 0))
REVERSE = PLAY & (KIND_SYMBOL[SAFE_KIND] == SYM_REVERSE)
ACTION_OR_WILD = PLAY & ~IS_NUMBER[SAFE_KIND]
WILD_PLAY = PLAY & IS_WILD[SAFE_KIND]
COLORED_PLAY = PLAY & ~WILD_PLAY
#: Symbol of each colored play (0 for other actions; masked by ``COLORED_PLAY``).
SYMBOL = np.where(COLORED_PLAY, KIND_SYMBOL[SAFE_KIND], 0).astype(np.int64)
TARGET = np.arange(NUM_ACTIONS) >= TARGET_BASE
#: Offset (into the hand-size view) of each target action's seat, 0 for other actions.
TARGET_SEAT = np.maximum(ACTION_TARGET.astype(np.int64) - 1, 0)
#: Per deck (in ``DECKS`` order), its colored cards of each color / of each symbol.
COLORS_OF_DECKS = np.stack([d[:NUM_COLORED_KINDS].reshape(NUM_COLORS, -1).sum(axis=1)
                            for d in DECKS.values()]).astype(np.float64)
SYMBOLS_OF_DECKS = np.stack([d[:NUM_COLORED_KINDS].reshape(NUM_COLORS, -1).sum(axis=0)
                             for d in DECKS.values()]).astype(np.float64)
#: ``1 - 0.75 ** n`` for hand sizes ``n`` (the chance that an attacker holding ``n`` cards
#: held the color it replaced), computed by numpy as the agents' features compute it.
CHALLENGE_BLUFF = 1.0 - 0.75 ** np.arange(256, dtype=np.float64)

#: How a policy scores (:attr:`PlayoutPolicy.kind`).
LINEAR, GREEDY, RANDOM_PLAY = 0, 1, 2


@dataclass(frozen=True)
class PlayoutPolicy:
    """A policy the compiled engine can play: the best legal action under a score
    table. ``kind`` says how the observation adds to ``static`` (``float64[A]``, the
    score of each action on its own):

    * ``LINEAR``: plus ``weights @ features`` of the dynamic features (``DYNAMIC``),
      less ``answer_relief[a]`` for a play answering a pending penalty;
    * ``GREEDY``: plus ``color_weight[a]`` times the hand's cards of the action's
      color; a challenge scores 5 when the offender holds at least ``threshold``
      cards (else 0) and a target action loses the target's hand size;
    * ``RANDOM_PLAY``: plus half a uniform number per action in [0, 1), drawn from the
      game's playout stream (:func:`stream_noise`): uniform within the best ``static``
      tier.
    """

    kind: int
    static: np.ndarray
    weights: np.ndarray = field(default_factory=lambda: np.zeros(len(DYNAMIC)))
    answer_relief: np.ndarray = field(default_factory=lambda: np.zeros(NUM_ACTIONS))
    color_weight: np.ndarray = field(default_factory=lambda: np.zeros(NUM_ACTIONS))
    threshold: float = 0.0


#: The tables of the last pairs of policies asked for, by identity (see policy_tables).
_KEPT: dict[tuple[int, int], tuple[PlayoutPolicy, PlayoutPolicy, tuple]] = {}


def policy_tables(own: PlayoutPolicy, others: PlayoutPolicy
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray]:
    """The two policies as the kernel takes them, row 0 for the playout's own seat and
    row 1 for the others: ``(kinds int64[2], static float64[2, A], weights float64[2,
    F], answer_relief float64[2, A], color_weight float64[2, A], threshold
    float64[2])``."""
    kept = _KEPT.get((id(own), id(others)))
    if kept is not None and kept[0] is own and kept[1] is others:
        return kept[2]   # a search asks for the same pair at every decision
    pair = (own, others)
    for p in pair:
        if p.kind not in (LINEAR, GREEDY, RANDOM_PLAY):
            raise ValueError(f"unknown playout policy kind {p.kind!r}")
    tables = (np.array([p.kind for p in pair], np.int64),
              np.stack([np.asarray(p.static, np.float64) for p in pair]),
              np.stack([np.asarray(p.weights, np.float64) for p in pair]),
              np.stack([np.asarray(p.answer_relief, np.float64) for p in pair]),
              np.stack([np.asarray(p.color_weight, np.float64) for p in pair]),
              np.array([p.threshold for p in pair], np.float64))
    for table in tables:
        table.flags.writeable = False   # shared by the callers of the same pair
    if len(_KEPT) >= 16:
        _KEPT.clear()
    _KEPT[id(own), id(others)] = (own, others, tables)
    return tables


def seat_tables(policies: Sequence[PlayoutPolicy]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                           np.ndarray]:
    """``policies`` as the kernel of :meth:`uno_env.Engine.play_policies` takes them, one
    row each, in the order of :func:`policy_tables`."""
    if not policies:
        raise ValueError("no policies")
    for p in policies:
        if p.kind not in (LINEAR, GREEDY, RANDOM_PLAY):
            raise ValueError(f"unknown playout policy kind {p.kind!r}")
    return (np.array([p.kind for p in policies], np.int64),
            np.stack([np.asarray(p.static, np.float64) for p in policies]),
            np.stack([np.asarray(p.weights, np.float64) for p in policies]),
            np.stack([np.asarray(p.answer_relief, np.float64) for p in policies]),
            np.stack([np.asarray(p.color_weight, np.float64) for p in policies]),
            np.array([p.threshold for p in policies], np.float64))


def stream_noise(streams: np.ndarray) -> np.ndarray:
    """``float64[n, A]``: one uniform number in [0, 1) per action for the next decision
    of each stream ``(key, counter)`` of ``streams`` (``uint64[n, 2]``, advanced by one
    here), the numbers a ``RANDOM_PLAY`` policy adds to its tiers in compiled playouts."""
    base = next_random(streams[:, 0], streams[:, 1])
    streams[:, 1] += np.uint64(1)
    columns = (np.arange(NUM_ACTIONS, dtype=np.uint64) + np.uint64(1)) * GOLDEN
    return (mix64(base[:, None] + columns[None, :]) >> np.uint64(11)) * 2.0 ** -53


def uses_streams(*policies: PlayoutPolicy) -> bool:
    """Whether any of ``policies`` draws random numbers (needs playout streams)."""
    return any(p.kind == RANDOM_PLAY for p in policies)


def policy_actions(policy: PlayoutPolicy, observations: np.ndarray, masks: np.ndarray
                   ) -> np.ndarray:
    """``int64[B]``: the action ``policy`` (a ``LINEAR`` or ``GREEDY`` table) picks in each
    row of ``observations`` (``float32[B, OBS_SIZE]``) under ``masks`` (``bool[B, A]``), by
    the compiled scoring of the playouts: the action the agent's ``act`` picks. Needs
    numba."""
    if policy.kind == RANDOM_PLAY:
        raise ValueError("a random_play table draws from playout streams: no plain choice")
    from .compiled.playouts import choose_rows
    tables = policy_tables(policy, policy)
    out = np.empty(len(observations), np.int64)
    choose_rows(np.ascontiguousarray(observations, np.float32),
                np.ascontiguousarray(masks, np.bool_), *tables, out)
    return out
