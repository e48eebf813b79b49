"""Random numbers, shuffling, drawing and dealing for one game (twin of ``engine/deal.py``).

Every function takes the rules, the state ``s`` and a game index ``g`` (in that order), and
draws the same random numbers, in the same order, as the numpy engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import IS_NUMBER, KIND_ID, NUM_KINDS
from ..codes import Dealer, FirstCard
from ..deal import HAND_SIZE
from ..rng import _M1, _M2, GOLDEN

WD4 = KIND_ID["WD4"]
_ONE = np.uint64(1)


@njit(cache=True)
def mix64(x: np.uint64) -> np.uint64:
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def next_random(s, g):
    """The game's next random number (``rng.next_random``); the caller advances the counter."""
    return mix64(s.key[g] + (s.counter[g] + _ONE) * GOLDEN)


@njit(cache=True)
def random_below(s, g, n):
    value = next_random(s, g) % np.uint64(n)
    s.counter[g] += _ONE
    return np.int64(value)


@njit(cache=True)
def shuffle_order(s, g, n):
    """A random order of ``range(n)`` (``rng.shuffle_order`` for one game)."""
    base = next_random(s, g)
    s.counter[g] += _ONE
    keys = np.empty(n, np.uint64)
    for i in range(n):
        keys[i] = mix64(base + (np.uint64(i) + _ONE) * GOLDEN)
    return np.argsort(keys)


@njit(cache=True)
def write_shuffled(s, g, counts, start):
    """Shuffle the cards counted in ``counts[K]`` into ``deck[g, start:]``."""
    total = 0
    for k in range(NUM_KINDS):
        total += counts[k]
    order = shuffle_order(s, g, total)
    by_kind = np.empty(total, np.int16)
    i = 0
    for k in range(NUM_KINDS):
        for _ in range(counts[k]):
            by_kind[i] = k
            i += 1
    deck = s.deck[g]
    for i in range(total):
        deck[start + i] = by_kind[order[i]]
    s.deck_len[g] = start + total


@njit(cache=True)
def reshuffle(s, g):
    """Shuffle the discards except the top card into a new draw pile (if there are any)."""
    counts = s.discard[g].astype(np.int64)
    top = s.top[g]
    counts[top] -= 1
    if counts.sum() <= 0:
        return
    s.discard[g, :] = 0
    s.discard[g, top] = 1
    write_shuffled(s, g, counts, 0)
    s.deck_pos[g] = 0


@njit(cache=True)
def draw_one(s, g, player):
    """Seat ``player`` draws one card; returns its kind (-1: every other card is in a hand)."""
    if s.deck_pos[g] >= s.deck_len[g]:
        reshuffle(s, g)
    if s.deck_pos[g] >= s.deck_len[g]:
        return -1
    kind = np.int64(s.deck[g, s.deck_pos[g]])
    s.deck_pos[g] += 1
    s.hands[g, player, kind] += 1
    s.hand_size[g, player] += 1
    return kind


@njit(cache=True)
def draw_cards(s, g, player, n):
    """Seat ``player`` draws ``n`` cards, or as many as are left."""
    for _ in range(n):
        if draw_one(s, g, player) < 0:
            return


@njit(cache=True)
def draw_until(s, g, player, wanted):
    """Draw until a card whose kind is ``wanted[K]`` shows; returns it, or -1."""
    while True:
        kind = draw_one(s, g, player)
        if kind < 0 or wanted[kind]:
            return kind


@njit(cache=True)
def choose_dealer(rules, s, g, first_round):
    rand = random_below(s, g, rules.num_players)
    if rules.dealer == Dealer.RANDOM or first_round:
        s.dealer[g] = rand
    elif rules.dealer == Dealer.ROTATE:
        s.dealer[g] = (s.dealer[g] + 1) % rules.num_players
    else:  # previous winner
        s.dealer[g] = s.round_winner[g] if s.round_winner[g] >= 0 else rand


@njit(cache=True)
def deal(rules, s, g):
    """Shuffle the full deck and deal seven cards to every seat."""
    write_shuffled(s, g, rules.deck_counts, 0)
    hands = s.hands[g]
    deck = s.deck[g]
    hands[:] = 0
    for p in range(rules.num_players):
        for i in range(HAND_SIZE):
            hands[p, deck[p * HAND_SIZE + i]] += 1
        s.hand_size[g, p] = HAND_SIZE
    s.deck_pos[g] = rules.num_players * HAND_SIZE
    s.discard[g, :] = 0


@njit(cache=True)
def flip_first_card(rules, s, g):
    """Turn the first discard over under the ``first_card`` option (see ``deal.py``)."""
    pos = np.int64(s.deck_pos[g])
    first = 0
    for j in range(pos, s.deck_len[g]):
        kind = s.deck[g, j]
        if (kind != WD4) if rules.first_card == FirstCard.OFFICIAL else IS_NUMBER[kind]:
            first = j
            break
    if rules.first_card == FirstCard.BURY_NON_NUMBER:
        for j in range(pos, first):
            s.discard[g, s.deck[g, j]] += 1
        pos = first
    elif first > pos:
        chosen = s.deck[g, first]
        for j in range(first, pos, -1):
            s.deck[g, j] = s.deck[g, j - 1]
        s.deck[g, pos] = chosen
    top = s.deck[g, pos]
    s.discard[g, top] += 1
    s.top[g] = top
    s.deck_pos[g] = pos + 1
