"""Shuffling, drawing, reshuffling, dealing and the first card of a round."""

from __future__ import annotations

import numpy as np

from ..cards import DECKS, IS_NUMBER, KIND_ID, NUM_KINDS
from .codes import Dealer, FirstCard, RuleCodes, option_value
from .rng import random_below, shuffle_order
from .state import State, where

HAND_SIZE = 7
#: Cards looked at first when drawing until a wanted card shows.
SEARCH_WINDOW = 16
WD4 = KIND_ID["WD4"]


def deck_counts(rules: RuleCodes) -> np.ndarray:
    """Cards per kind of the rules' deck."""
    return DECKS[option_value("deck", rules.deck)]


def _advance(s: State, games: np.ndarray) -> None:
    s.counter[games] += np.uint64(1)


def write_shuffled(s: State, games: np.ndarray, counts: np.ndarray, start: np.ndarray) -> None:
    """Shuffle the cards counted in ``counts[n, K]`` into ``deck[g, start:]`` of each game."""
    if games.size == 0:
        return
    totals = counts.sum(axis=1).astype(np.int64)
    width = int(totals.max(initial=0))
    order = shuffle_order(s.key[games], s.counter[games], totals, max(width, 1))
    _advance(s, games)
    # Cards sorted by kind, then placed in the random order.
    flat_kinds = np.repeat(np.tile(np.arange(NUM_KINDS, dtype=np.int16), games.size),
                           counts.ravel().astype(np.int64))
    row = np.repeat(np.arange(games.size), totals)
    col = np.arange(row.size) - np.repeat(np.cumsum(totals) - totals, totals)
    sorted_cards = np.zeros((games.size, max(width, 1)), np.int16)
    sorted_cards[row, col] = flat_kinds
    shuffled = np.take_along_axis(sorted_cards, order, axis=1)
    dest_col = start[row] + col
    s.deck[games[row], dest_col] = shuffled[row, col]
    s.deck_len[games] = start + totals


def pile_counts(s: State, games: np.ndarray) -> np.ndarray:
    """Cards per kind left in the draw pile of each game, ``int[n, K]``."""
    n = games.size
    width = s.deck.shape[1]
    cols = np.arange(width)
    live = (cols[None, :] >= s.deck_pos[games, None]) & (cols[None, :] < s.deck_len[games, None])
    rows = np.broadcast_to(np.arange(n)[:, None], live.shape)[live]
    kinds = s.deck[games][live]
    out = np.zeros((n, NUM_KINDS), np.int64)
    np.add.at(out, (rows, kinds), 1)
    return out


def reshuffle(s: State, games: np.ndarray) -> None:
    """Shuffle the discards except the top card into a new draw pile (where there are
    none, nothing happens and no random number is drawn)."""
    counts = s.discard[games].astype(np.int64)
    counts[np.arange(games.size), s.top[games]] -= 1
    some = counts.sum(axis=1) > 0
    if not some.all():
        games, counts = games[some], counts[some]
    s.discard[games] = 0
    s.discard[games, s.top[games]] = 1
    write_shuffled(s, games, counts, np.zeros(games.size, np.int64))
    s.deck_pos[games] = 0


def add_to_hands(s: State, games: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """Add one card of ``kinds[i]`` to seat ``seats[i]`` of game ``games[i]`` (repeats add up;
    counting the cells first is several times faster than ``np.add.at``)."""
    cells = (games * s.num_players + seats) * s.hands.shape[2] + kinds
    cells, counts = np.unique(cells, return_counts=True)
    s.hands.reshape(-1)[cells] += counts.astype(s.hands.dtype)


def draw_one(s: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
    """Each listed player draws one card; returns the kinds drawn (-1: nothing left)."""
    empty = s.deck_pos[games] >= s.deck_len[games]
    if empty.any():
        reshuffle(s, games[empty])
    has = s.deck_pos[games] < s.deck_len[games]
    drawn = np.full(games.size, -1, np.int64)
    if not has.all():
        games, players = games[has], players[has]
    kinds = s.deck[games, s.deck_pos[games]]
    s.deck_pos[games] += 1
    s.hands[games, players, kinds] += 1
    s.hand_size[games, players] += 1
    drawn[has] = kinds
    return drawn


def drawable(s: State, games: np.ndarray) -> np.ndarray:
    """Cards each game can still deal out: the draw pile and the discards under the top."""
    return (s.deck_len[games] - s.deck_pos[games]
            + np.maximum(s.discard[games].sum(axis=1, dtype=np.int64) - 1, 0))


def draw_cards(s: State, games: np.ndarray, players: np.ndarray, n: int | np.ndarray) -> None:
    """Each listed player draws ``n`` cards (fewer if every other card is in a hand)."""
    count = np.minimum(np.asarray(n, np.int64), drawable(s, games))
    short = s.deck_len[games] - s.deck_pos[games] < count
    if short.any():  # reshuffles on the way: one card at a time, in order
        for i in range(int(count[short].max())):
            sel = short & (count > i)
            draw_one(s, games[sel], players[sel])
        games, players, count = games[~short], players[~short], count[~short]
    width = int(count.max(initial=0))
    if width == 0:
        return
    cols = np.arange(width)
    take = cols[None, :] < count[:, None]
    pos = np.minimum(s.deck_pos[games, None] + cols[None, :], s.deck.shape[1] - 1)
    kinds = s.deck[games[:, None], pos][take]
    rows = np.broadcast_to(games[:, None], take.shape)[take]
    seats = np.broadcast_to(players[:, None], take.shape)[take]
    add_to_hands(s, rows, seats, kinds)
    s.deck_pos[games] += count.astype(np.int32)
    s.hand_size[games, players] += count.astype(np.int16)


def draw_until(s: State, games: np.ndarray, players: np.ndarray, wanted: np.ndarray
               ) -> np.ndarray:
    """Each listed player draws until a card whose kind is ``wanted[n, K]`` shows (keeping
    every card drawn); returns that kind, or -1 when every other card is in a hand.

    The pile is searched ahead for the first wanted card, so all the draws of a game
    happen at once; only a search that runs off the pile falls back to single draws
    (with their reshuffles).
    """
    pos = s.deck_pos[games].astype(np.int64)
    left = (s.deck_len[games] - pos).astype(np.int64)
    # Most searches end within a few cards: look at a short window, then at the rest.
    first, found = _search(s, games, pos, left, wanted, SEARCH_WINDOW)
    far = where((found < 0) & (left > SEARCH_WINDOW))
    if far.size:
        first[far], found[far] = _search(s, games[far], pos[far], left[far], wanted[far],
                                         s.deck.shape[1])
    draw_cards(s, games, players, np.minimum(first + 1, left))
    looking = where(found < 0)
    while looking.size:
        kind = draw_one(s, games[looking], players[looking])
        got = (kind >= 0) & wanted[looking, np.maximum(kind, 0)]
        found[looking[got]] = kind[got]
        looking = looking[~got & (kind >= 0)]
    return found


def _search(s: State, games: np.ndarray, pos: np.ndarray, left: np.ndarray, wanted: np.ndarray,
            width: int) -> tuple[np.ndarray, np.ndarray]:
    """Offset and kind of the first wanted card in the next ``width`` cards of each pile
    (offset ``left`` and kind -1 where there is none)."""
    cols = np.arange(width)
    at = np.minimum(pos[:, None] + cols[None, :], s.deck.shape[1] - 1)
    rows = s.deck[games[:, None], at].astype(np.int64)
    hit = np.take_along_axis(wanted, rows, axis=1) & (cols[None, :] < left[:, None])
    some = hit.any(axis=1)
    first = hit.argmax(axis=1)
    kind = np.where(some, rows[np.arange(games.size), first], -1)
    return np.where(some, first, left), kind


def choose_dealer(rules: RuleCodes, s: State, games: np.ndarray, first_round: np.ndarray) -> None:
    """Set the dealer of a new round per the ``dealer`` option."""
    p = rules.num_players
    rand = random_below(s.key[games], s.counter[games], p)
    _advance(s, games)
    if rules.dealer == Dealer.RANDOM:
        s.dealer[games] = rand
        return
    if rules.dealer == Dealer.ROTATE:
        later = (s.dealer[games] + 1) % p
    else:  # previous_winner
        later = np.where(s.round_winner[games] >= 0, s.round_winner[games], rand)
    s.dealer[games] = np.where(first_round, rand, later)


def deal(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """Shuffle the full deck and deal seven cards to every seat."""
    p = rules.num_players
    n = games.size
    counts = np.broadcast_to(deck_counts(rules).astype(np.int64), (n, NUM_KINDS))
    write_shuffled(s, games, counts, np.zeros(n, np.int64))
    dealt = s.deck[games, : p * HAND_SIZE].reshape(n, p, HAND_SIZE).astype(np.int64)
    flat = (np.arange(n)[:, None, None] * p + np.arange(p)[None, :, None]) * NUM_KINDS + dealt
    hands = np.bincount(flat.ravel(), minlength=n * p * NUM_KINDS).reshape(n, p, NUM_KINDS)
    s.hands[games] = hands
    s.hand_size[games] = HAND_SIZE
    s.deck_pos[games] = p * HAND_SIZE
    s.discard[games] = 0


def flip_first_card(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """Turn the first discard over under the ``first_card`` option, without a loop.

    Returning a refused card and reshuffling until an acceptable one shows is the
    same, in distribution, as moving the first acceptable card of the pile to the
    top: every (card, order of the rest) pair stays equally likely. Buried cards
    (``bury_non_number``) stay on the discard pile under the first number.
    """
    n = games.size
    width = s.deck.shape[1]
    cols = np.arange(width)
    pos = s.deck_pos[games].astype(np.int64)
    rows = s.deck[games]
    live = (cols[None, :] >= pos[:, None]) & (cols[None, :] < s.deck_len[games, None])
    ok = (rows != WD4) if rules.first_card == FirstCard.OFFICIAL else IS_NUMBER[rows]
    first = (ok & live).argmax(axis=1)
    if rules.first_card == FirstCard.BURY_NON_NUMBER:
        buried = live & (cols[None, :] < first[:, None])
        np.add.at(s.discard, (np.broadcast_to(games[:, None], buried.shape)[buried],
                              rows[buried]), 1)
        pos = first
    else:
        src = np.broadcast_to(cols, rows.shape).copy()
        shift = (cols[None, :] > pos[:, None]) & (cols[None, :] <= first[:, None])
        src[shift] -= 1
        src[np.arange(n), pos] = first
        rows = np.take_along_axis(rows, src, axis=1)
        s.deck[games] = rows
    top = rows[np.arange(n), pos]
    s.discard[games, top] += 1
    s.top[games] = top
    s.deck_pos[games] = pos + 1
