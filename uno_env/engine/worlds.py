"""Possible worlds: a game's hidden cards dealt anew, consistent with what one player knows.

A search agent that plans from a position cannot look at the other hands or the
order of the draw pile. It plans instead over *worlds*: copies of the game in
which everything public is kept (hand sizes, discards, top card and color,
direction, phase, pending penalty, UNO flags, places, scores ...) and the cards
the player has not seen are dealt at random to the other hands and the draw
pile. :func:`public_state` is the only door to the real game: it copies one game
and wipes what the player may not know, and :func:`sample_worlds` builds the
worlds from that public copy alone, so no world can depend on hidden cards.

What the player has seen is what their observation shows: their own hand (and
their partner's in team play) and the discards since the last reshuffle. The
cards of other players' hands that were revealed earlier (a returned Wild Draw
Four, a Dobon card) are not remembered and are dealt at random like the rest.
The outcome of a pending Wild Draw Four challenge, and under retraction the cards
the offender could be made to replay, are recomputed in every world from the
offender's dealt hand.
"""

from __future__ import annotations

from dataclasses import fields
from typing import cast

import numpy as np

from ..cards import DECKS, IS_WILD, KIND_COLOR, NUM_KINDS
from ..rules import Rules
from .codes import ChallengeGuilty, rule_codes
from .legal import MATCH, wd4_permitted
from .rng import seed_key
from .state import FORCED_PLAY, RESPOND, State


def known_seats(rules: Rules, seat: int) -> list[int]:
    """The seats whose hands ``seat`` sees: its own, and its partner's in team play."""
    return [seat, (seat + 2) % rules.num_players] if rules.teams else [seat]


def public_state(rules: Rules, state: State, game: int, seat: int) -> State:
    """One game of ``state`` as ``seat`` knows it: the hands of the other players
    emptied but for the cards they showed on a 0 (``zero_open``; their sizes kept), the
    draw pile's cards zeroed (its length kept), the secret of a pending Wild Draw Four
    (whether it broke its restriction, and the offender's hand when it was played) and
    the game's random key cleared.

    ``seat`` must be the acting player of ``game`` (the drawn card and the cards a
    retracted Wild Draw Four forces are then its own knowledge)."""
    if not 0 <= game < state.num_games:
        raise ValueError(f"game {game} out of range 0-{state.num_games - 1}")
    if not 0 <= seat < rules.num_players:
        raise ValueError(f"seat {seat} is not a seat 0-{rules.num_players - 1}")
    if state.done[game]:
        raise ValueError(f"game {game} is over: there is no decision to plan")
    if int(state.current[game]) != seat:
        raise ValueError(f"seat {seat} is not the acting player of game {game} "
                         f"(seat {int(state.current[game])} is)")
    pub = state.take(np.array([game]))
    hidden = np.ones(rules.num_players, bool)
    hidden[known_seats(rules, seat)] = False
    pub.hands[0, hidden] = pub.shown[0, hidden]   # what a 0 showed (zero_open) stays known
    pub.deck[:] = 0
    pub.wd4_guilty[:] = False
    if pub.phase[0] != FORCED_PLAY:   # the offender's own hand only when it is to replay
        pub.hidden[:] = False
    pub.key[:] = 0
    pub.counter[:] = 0
    return pub


def unseen_cards(rules: Rules, public: State) -> np.ndarray:
    """``int64[K]``: the cards of the deck not in a known hand nor in the discards."""
    known = public.hands[0].sum(axis=0, dtype=np.int64) + public.discard[0]
    return DECKS[rules.deck].astype(np.int64) - known


def sample_worlds(rules: Rules, state: State, game: int, seat: int, num_worlds: int,
                  rng: np.random.Generator, drew_on_weight: float = 1.0) -> State:
    """``num_worlds`` worlds of ``game`` as its acting player ``seat`` knows it.

    Built from :func:`public_state` only: in each world the unseen cards are
    shuffled and dealt to the other hands (beside the cards they showed, to their
    public sizes), the rest making the draw pile; every world gets its own random key from ``rng``.

    ``drew_on_weight`` below 1 deals by a belief about the opponents instead of
    uniformly: a player who drew while a color was current (and has not played
    since) likely held no card of that color and no wild, so such cards reach its
    hand ``drew_on_weight`` times as often as others (see :func:`belief_deal`).
    The belief reads only public facts; a player who drew because it chose to, or
    was dealt penalty cards since, may hold them after all, hence a weight, not a ban.
    """
    if not isinstance(num_worlds, (int, np.integer)) or num_worlds < 1:
        raise ValueError(f"num_worlds must be a positive integer, got {num_worlds!r}")
    if not 0.0 < drew_on_weight <= 1.0:
        raise ValueError(f"drew_on_weight must be in (0, 1], got {drew_on_weight!r}")
    pub = public_state(rules, state, game, seat)
    n, p = int(num_worlds), rules.num_players
    unseen = unseen_cards(rules, pub)
    cards = np.repeat(np.arange(NUM_KINDS), unseen)
    sizes = pub.hand_size[0].astype(np.int64) - pub.hands[0].sum(axis=1, dtype=np.int64)
    sizes[known_seats(rules, seat)] = 0
    pile_len = int(pub.deck_len[0] - pub.deck_pos[0])
    if (unseen < 0).any() or cards.size != sizes.sum() + pile_len:
        raise ValueError(f"game {game} does not add up: {cards.size} unseen cards for "
                         f"{int(sizes.sum())} hidden hand cards and a pile of {pile_len}")
    worlds = pub.take(np.zeros(n, np.int64))
    if drew_on_weight < 1.0 and pub.drew_on[0, sizes > 0].any():
        dealt = belief_deal(cards, sizes, drew_on_weights(pub.drew_on[0], drew_on_weight),
                            n, rng)
    else:
        dealt = cards[rng.random((n, cards.size)).argsort(axis=1)]     # [world, card]
    owner = np.repeat(np.arange(p), sizes)                              # first cards -> hands
    held = dealt[:, :owner.size]
    cells = (np.arange(n)[:, None] * p + owner[None, :]) * NUM_KINDS + held
    counts = np.bincount(cells.ravel(), minlength=n * p * NUM_KINDS).reshape(n, p, NUM_KINDS)
    worlds.hands += counts.astype(worlds.hands.dtype)
    start = int(pub.deck_pos[0])
    worlds.deck[:, start:start + pile_len] = dealt[:, owner.size:]
    worlds.key[:] = seed_key(rng.integers(0, 2**62, n))
    _judge_challenge(rules, worlds)
    return worlds


def drew_on_weights(drew_on: np.ndarray, weight: float) -> np.ndarray:
    """``float64[P, K]``: how likely each seat holds each card kind, relative to 1:
    ``weight`` for the wilds and the cards of the colors ``drew_on[P, C]`` says it drew
    on, for seats that drew on some color."""
    colored = ~IS_WILD
    lacks = np.zeros((drew_on.shape[0], NUM_KINDS), bool)
    lacks[:, colored] = drew_on[:, KIND_COLOR[colored].astype(np.int64)]
    lacks[:, IS_WILD] = cast(np.ndarray, drew_on.any(axis=1))[:, None]
    return np.where(lacks, weight, 1.0)


def belief_deal(cards: np.ndarray, sizes: np.ndarray, weights: np.ndarray, n: int,
                rng: np.random.Generator) -> np.ndarray:
    """``int64[n, M]``: ``n`` orders of the ``M`` unseen ``cards`` in the layout of a
    uniform shuffle (``sizes[0]`` cards of seat 0, then of seat 1, ..., then the pile).
    Seat by seat, each hand is drawn from the cards left with probability proportional
    to ``weights[seat, card]`` (without replacement: the Gumbel top-k trick); the pile
    is the rest in random order."""
    m = cards.size
    out = np.empty((n, m), np.int64)
    free = np.ones((n, m), bool)
    rows = np.arange(n)[:, None]
    at = 0
    for seat in np.flatnonzero(sizes):
        size = int(sizes[seat])
        key = np.log(weights[seat, cards])[None, :] + rng.gumbel(size=(n, m))
        key[~free] = -np.inf
        pick = np.argpartition(-key, size - 1, axis=1)[:, :size]
        out[:, at:at + size] = cards[pick]
        free[rows, pick] = False
        at += size
    rest = np.where(free, rng.random((n, m)), np.inf).argsort(axis=1)[:, :m - at]
    out[:, at:] = cards[rest]
    return out


def _judge_challenge(rules: Rules, worlds: State) -> None:
    """Whether the pending Wild Draw Four broke its restriction, and under retraction
    the cards its offender could replay, in each world's hands."""
    attacker = int(worlds.attacker[0])
    if worlds.phase[0] != RESPOND or attacker < 0:
        return
    hands = worlds.hands[:, attacker].astype(np.int64)
    color = worlds.prev_color.astype(np.int64)
    matching = MATCH[color, worlds.prev_top] & (hands > 0)
    codes = rule_codes(rules)
    worlds.wd4_guilty[:] = ~wd4_permitted(codes, hands, matching, color)
    if codes.challenge_guilty == ChallengeGuilty.RETRACT:
        worlds.hidden[:] = hands > 0


def concat_states(states: list[State]) -> State:
    """One state holding the games of ``states`` in order."""
    return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states])
                    for f in fields(State)})
