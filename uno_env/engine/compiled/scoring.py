"""Heuristic scores of the legal actions, read from one game's state: the compiled twin
of :mod:`uno_env.engine.scoring`.

The numpy reference scores a batch of observations; these functions score the
acting player's legal actions in one game of the state, without writing its
observation: the same tables (counts of the hand, the discards and the table's
memories, read as the observation shows them), the same features and the same
float64 operations in the same order, so the scores are equal bit for bit and
every policy picks the same action (the first legal one of the highest score).
The tables live in a ``float64[WORK_SIZE]`` work buffer the caller allocates once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import CHALLENGE, DRAW, NUM_ACTIONS, TARGET_BASE
from ...cards import NUM_COLORED_KINDS, NUM_COLORS, NUM_KINDS
from ..observe import OTHERS
from ..playout import GREEDY, RANDOM_PLAY
from ..rng import GOLDEN
from ..scoring import (
    ACTION_OR_WILD,
    ATTACK,
    CHALLENGE_BLUFF,
    COLOR_IDX,
    COLORED_PLAY,
    COLORS_OF_DECKS,
    DYNAMIC,
    HAS_COLOR,
    PLAY,
    RESULT_COLOR,
    REVERSE,
    SAFE_KIND,
    SYMBOL,
    SYMBOLS_OF_DECKS,
    TARGET,
    TARGET_SEAT,
    WILD_PLAY,
)
from ..state import NUM_PHASES, RESPOND
from .deal import mix64

_DECK_FLAGS = 1   # where the deck flags start in the rules view (after num_players)
_NUM_DECKS = COLORS_OF_DECKS.shape[0]
_PER_COLOR = NUM_COLORED_KINDS // NUM_COLORS
_NUM_DYNAMIC = len(DYNAMIC)
# where the scoring keeps its tables in its work buffer
_W_BY_COLOR = 0
_W_BY_SYMBOL = _W_BY_COLOR + NUM_COLORS
_W_SHOWN_COLOR = _W_BY_SYMBOL + _PER_COLOR
_W_SHOWN_SYMBOL = _W_SHOWN_COLOR + NUM_COLORS
_W_SIZES = _W_SHOWN_SYMBOL + _PER_COLOR
_W_UNSEEN = _W_SIZES + OTHERS
_W_DREW_ON = _W_UNSEEN + NUM_COLORS
_W_NAMED = _W_DREW_ON + NUM_COLORS
_W_NEXT_DREW = _W_NAMED + NUM_COLORS
_W_NEXT_NAMED = _W_NEXT_DREW + NUM_COLORS
_W_F = _W_NEXT_NAMED + NUM_COLORS
_W_LEGAL = _W_F + _NUM_DYNAMIC
_W_SCORES = _W_LEGAL + NUM_ACTIONS
#: Size of the work buffer: the tables, the features of one action, the legal actions
#: (:func:`legal_words`) and their scores.
WORK_SIZE = _W_SCORES + NUM_ACTIONS
#: Size of a legal-mask buffer read eight actions at a time (the actions, then False up
#: to a multiple of eight).
MASK_SIZE = (NUM_ACTIONS + 7) // 8 * 8


@njit(cache=True)
def first_max(values, start, n):
    """numpy's argmax of ``values[start:start + n]`` (the first of equal maxima)."""
    best = 0
    for i in range(1, n):
        if values[start + i] > values[start + best]:
            best = i
    return best


@njit(cache=True)
def _bluff(size):
    """``1 - 0.75 ** size`` as numpy computes it (from its table where it holds ``size``)."""
    if 0 <= size < CHALLENGE_BLUFF.size:
        return CHALLENGE_BLUFF[np.int64(size)]
    return 1.0 - 0.75 ** size


@njit(cache=True, inline="always")
def legal_words(words, mask, work):
    """The legal actions of ``mask`` (``bool[MASK_SIZE]``, read eight at a time through
    ``words``, the mask as ``uint64``: most words hold no legal action) in increasing
    order into ``work``; their number."""
    n = 0
    for i in range(words.size):
        if words[i]:
            for a in range(8 * i, 8 * i + 8):
                if mask[a]:
                    work[_W_LEGAL + n] = a
                    n += 1
    return n


@njit(cache=True)
def rules_deck(rules):
    """Index of the rules' deck in ``COLORS_OF_DECKS`` (from the deck flags of the rules
    view, as the numpy scoring reads it from an observation)."""
    return first_max(rules.rules_vec, _DECK_FLAGS, _NUM_DECKS)


@njit(cache=True, inline="always")
def _neighbours(clockwise, first, last, second_cw, second_ccw):
    """Offsets (0-based) of the next seat, the previous one and the one after the next,
    from the first, last and second seats present in each direction."""
    nxt = max(first if clockwise else last, 0)
    previous = max(last if clockwise else first, 0)
    second = second_cw if clockwise else second_ccw
    after_next = second if 0 <= second < 99 else nxt
    return nxt, previous, after_next


@njit(cache=True, inline="always")
def table_view(rules, s, g, player, deck, w):
    """What :class:`uno_env.engine.scoring.TableView` reads from ``player``'s observation,
    read from game ``g`` of ``s``: the tables into ``w`` (color and symbol counts, hand
    sizes, unseen colors, the table's and the next seat's memories) and the position's
    facts, returned. The counts are whole numbers, so their sums are exact in any
    order."""
    hand = s.hands[g, player]
    discard = s.discard[g]
    for c in range(NUM_COLORS):
        held, shown = 0, 0
        for j in range(_PER_COLOR):
            held += hand[c * _PER_COLOR + j]
            shown += discard[c * _PER_COLOR + j]
        w[_W_BY_COLOR + c] = held
        w[_W_SHOWN_COLOR + c] = shown
        w[_W_DREW_ON + c] = 0.0
        w[_W_NAMED + c] = 0.0
    for j in range(_PER_COLOR):
        held, shown = 0, 0
        for c in range(NUM_COLORS):
            held += hand[c * _PER_COLOR + j]
            shown += discard[c * _PER_COLOR + j]
        w[_W_BY_SYMBOL + j] = held
        w[_W_SHOWN_SYMBOL + j] = shown
    wilds = 0
    for k in range(NUM_COLORED_KINDS, NUM_KINDS):
        wilds += hand[k]
    p = rules.num_players
    own_size = np.float64(s.hand_size[g, player])
    first, last, second_cw, second_ccw = 99, -1, 99, -1
    num_present = 0
    min_size = 999.0
    for o in range(p - 1, OTHERS):
        w[_W_SIZES + o] = 0.0
    seat = player
    for o in range(p - 1):
        seat = seat + 1 if seat + 1 < p else 0
        size = np.float64(s.hand_size[g, seat])
        w[_W_SIZES + o] = size
        if s.active[g, seat]:
            num_present += 1
            min_size = min(min_size, size)
            if first == 99:
                first = o
            elif second_cw == 99:
                second_cw = o
            second_ccw = last
            last = o
        named = s.last_named[g, seat]
        if named >= 0:
            w[_W_NAMED + named] += 1.0
        for c in range(NUM_COLORS):
            w[_W_DREW_ON + c] += s.drew_on[g, seat, c]
    nxt, previous, after_next = _neighbours(s.direction[g] > 0, first, last, second_cw,
                                            second_ccw)
    next_seat = (player + nxt + 1) % p
    previous_seat = (player + previous + 1) % p
    named = s.last_named[g, next_seat]
    for c in range(NUM_COLORS):
        w[_W_UNSEEN + c] = max(COLORS_OF_DECKS[deck, c] - w[_W_SHOWN_COLOR + c]
                               - w[_W_BY_COLOR + c], 0.0)
        w[_W_NEXT_DREW + c] = s.drew_on[g, next_seat, c]
        w[_W_NEXT_NAMED + c] = named == c
    after_draw_prev = 1.0 if s.wd4_after_draw[g, previous_seat] else 0.0
    return (own_size, np.int64(s.color[g]), min(np.int64(s.phase[g]), NUM_PHASES - 1),
            np.float64(s.pending[g]), np.float64(wilds), min_size, num_present,
            p == 2 or num_present == 1, nxt, previous, after_next, after_draw_prev)


@njit(cache=True, inline="always")
def dynamic_features(a, w, hand, deck, facts, f):
    """Each feature of :data:`uno_env.engine.scoring.DYNAMIC` of action ``a`` into ``f``, in
    order, by the expressions of :func:`uno_env.engine.scoring.dynamic_features`, from the
    tables in ``w`` and the ``facts`` of :func:`table_view`."""
    (own_size, color, phase, pending, wilds, min_size, num_present, heads_up, nxt, previous,
     after_next, after_draw_prev) = facts
    total_unseen = 0.0
    for c in range(NUM_COLORS):
        total_unseen += w[_W_UNSEEN + c]
    total_unseen = max(total_unseen, 1.0)
    opponents = max(num_present, 1)
    next_size = w[_W_SIZES + nxt]
    previous_size = w[_W_SIZES + previous]
    threat_next = next_size <= 2
    several = not heads_up
    play, has_color, ci = PLAY[a], HAS_COLOR[a], COLOR_IDX[a]
    wild_play, colored_play, symbol = WILD_PLAY[a], COLORED_PLAY[a], SYMBOL[a]
    is_attack, is_reverse = ATTACK[a], REVERSE[a]
    color_count = w[_W_BY_COLOR + ci]
    by_symbol = w[_W_BY_SYMBOL + symbol]
    after = color_count - (1.0 if play and not wild_play else 0.0)
    left = max(own_size - (1.0 if play else 0.0), 1.0)
    attack = is_attack or (is_reverse and heads_up)
    next_lacks = has_color and w[_W_NEXT_DREW + ci] > 0
    twins = by_symbol - hand[SAFE_KIND[a]] if colored_play else 0.0
    wilds_after = wilds - (1.0 if wild_play else 0.0)
    follow = has_color and (after + twins + wilds_after > 0)
    f[0] = has_color and play and RESULT_COLOR[a] == color
    f[1] = after / left if has_color else 0.0
    f[2] = (1.0 - NUM_COLORS * w[_W_UNSEEN + ci] / total_unseen) if has_color else 0.0
    f[3] = attack
    f[4] = attack and threat_next
    f[5] = ACTION_OR_WILD[a] and min_size <= 2
    f[6] = wild_play and own_size <= 3
    f[7] = 1.0 if a == DRAW and phase == RESPOND and pending > 0 else 0.0
    f[8] = _bluff(previous_size) if a == CHALLENGE else 0.0
    f[9] = w[_W_SIZES + TARGET_SEAT[a]] / 10.0 if TARGET[a] else 0.0
    f[10] = next_lacks
    f[11] = after_draw_prev if a == CHALLENGE else 0.0
    f[12] = follow
    f[13] = attack and follow
    f[14] = colored_play and color_count == 1
    f[15] = min(twins, 3.0) / 3.0
    f[16] = has_color and w[_W_NEXT_NAMED + ci] > 0
    f[17] = attack and several and next_size <= min_size
    f[18] = is_reverse and several and next_size < previous_size
    f[19] = is_attack and several and w[_W_SIZES + after_next] <= 2
    f[20] = is_reverse and several and previous_size <= 2
    f[21] = next_lacks and threat_next
    if colored_play:
        copies = max(SYMBOLS_OF_DECKS[deck, symbol], 1.0)
        symbol_unseen = max(SYMBOLS_OF_DECKS[deck, symbol] - w[_W_SHOWN_SYMBOL + symbol]
                            - by_symbol, 0.0)
        f[22] = 1.0 - symbol_unseen / copies
    else:
        f[22] = 0.0
    f[23] = min(own_size, 8.0) / 8.0 if attack else 0.0
    f[24] = w[_W_DREW_ON + ci] / opponents if has_color else 0.0
    f[25] = w[_W_NAMED + ci] / opponents if has_color else 0.0


@njit(cache=True, inline="always")
def linear_scores(rules, s, g, player, deck, num_legal, static, weights, relief, w):
    """:func:`uno_env.engine.scoring.linear_scores` of ``player``'s ``num_legal`` legal
    actions listed in ``w`` (:func:`legal_words`), in game ``g`` of ``s``, into ``w`` after
    them: ``static + weights @ features``, less ``relief`` when answering a penalty
    (``deck``: :func:`rules_deck`)."""
    facts = table_view(rules, s, g, player, deck, w)
    answering = 1.0 if facts[2] == RESPOND else 0.0
    hand = s.hands[g, player]
    f = w[_W_F:_W_F + _NUM_DYNAMIC]
    for i in range(num_legal):
        a = np.int64(w[_W_LEGAL + i])
        dynamic_features(a, w, hand, deck, facts, f)
        score = static[a]
        for j in range(_NUM_DYNAMIC):
            score += weights[j] * f[j]
        score -= relief[a] * answering
        w[_W_SCORES + i] = score


@njit(cache=True)
def greedy_scores(rules, s, g, player, num_legal, static, color_weight, threshold, w):
    """:func:`uno_env.engine.scoring.greedy_scores` of ``player``'s ``num_legal`` legal
    actions listed in ``w``, in game ``g`` of ``s``, into ``w`` after them."""
    hand = s.hands[g, player]
    for c in range(NUM_COLORS):
        held = 0
        for j in range(_PER_COLOR):
            held += hand[c * _PER_COLOR + j]
        w[_W_BY_COLOR + c] = held
    p = rules.num_players
    for o in range(p - 1, OTHERS):
        w[_W_SIZES + o] = 0.0
    num_present = 0
    seat = player
    for o in range(p - 1):
        seat = seat + 1 if seat + 1 < p else 0
        w[_W_SIZES + o] = s.hand_size[g, seat]
        num_present += s.active[g, seat]
    offender = num_present if s.direction[g] > 0 else 1
    challenge = 5.0 if w[_W_SIZES + (offender - 1) % OTHERS] >= threshold else 0.0
    for i in range(num_legal):
        a = np.int64(w[_W_LEGAL + i])
        score = static[a]
        if HAS_COLOR[a]:
            score = w[_W_BY_COLOR + RESULT_COLOR[a]] * color_weight[a] + static[a]
        if a == CHALLENGE:
            score = challenge
        elif a >= TARGET_BASE:
            score -= w[_W_SIZES + a - TARGET_BASE]
        w[_W_SCORES + i] = score


@njit(cache=True)
def random_play_choice(mask, static, stream):
    """The legal action of the highest ``static`` tier plus half a uniform number, the
    numbers of :func:`uno_env.engine.playout.stream_noise` (``stream`` advanced)."""
    stream[1] += np.uint64(1)
    base = mix64(stream[0] + stream[1] * GOLDEN)
    best, best_score = 0, -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        noise = mix64(base + np.uint64(a + 1) * GOLDEN) >> np.uint64(11)
        score = static[a] + 0.5 * (np.float64(noise) * 2.0 ** -53)
        if score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def scores_state(kind, rules, s, g, player, deck, num_legal, static, weights, relief,
                 color_weight, threshold, work):
    """The scores of a ``LINEAR`` or ``GREEDY`` policy (``kind``) of ``player``'s
    ``num_legal`` legal actions listed in ``work``, in game ``g`` of ``s``, into ``work``
    after them."""
    if kind == GREEDY:
        greedy_scores(rules, s, g, player, num_legal, static, color_weight, threshold, work)
    else:
        linear_scores(rules, s, g, player, deck, num_legal, static, weights, relief, work)


@njit(cache=True)
def spread_scores(work, num_legal, out):
    """The scores of the ``num_legal`` legal actions listed in ``work`` (by
    :func:`scores_state`) into ``out`` (``float64[A]``) at their actions, ``-inf``
    elsewhere: the layout of the numpy scores given masks."""
    out[:] = -np.inf
    for i in range(num_legal):
        out[np.int64(work[_W_LEGAL + i])] = work[_W_SCORES + i]


# compiled once, not inlined: its callers (the playouts, the seated games, the prior's
# choice) would each compile the scoring again
@njit(cache=True)
def choose_state(kind, rules, s, g, player, deck, mask, num_legal, static, weights, relief,
                 color_weight, threshold, streams, work):
    """The action of a policy of ``kind`` (tables of one policy; ``streams[g]`` for a random
    one) for ``player`` in game ``g`` of ``s``, its ``num_legal`` legal actions listed in
    ``work`` (:func:`legal_words`): the first legal one of the highest score. A single
    legal action is the choice of every policy but a random one (which draws its numbers
    even then)."""
    if kind == RANDOM_PLAY:
        return random_play_choice(mask, static, streams[g])
    if num_legal == 1:
        return np.int64(work[_W_LEGAL])
    scores_state(kind, rules, s, g, player, deck, num_legal, static, weights, relief,
                 color_weight, threshold, work)
    return np.int64(work[_W_LEGAL + first_max(work, _W_SCORES, num_legal)])
