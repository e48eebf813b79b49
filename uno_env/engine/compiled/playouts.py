"""Whole playouts by a score-table policy in one compiled call (twin of the agents' act).

The policies of :mod:`uno_env.engine.playout` scored one decision at a time from
the acting player's observation, with the same float64 operations in the same
order as the numpy agents (``uno_agents.features``, ``uno_agents.greedy``), so both pick
the same action: the first legal one of the highest score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import CHALLENGE, DRAW, NUM_ACTIONS, TARGET_BASE
from ...cards import NUM_COLORED_KINDS, NUM_COLORS, NUM_KINDS
from ..observe import OTHERS, VIEW_SLICES
from ..playout import (
    ACTION_OR_WILD,
    ATTACK,
    CHALLENGE_BLUFF,
    COLOR_IDX,
    COLORED_PLAY,
    COLORS_OF_DECKS,
    DYNAMIC,
    GREEDY,
    HAS_COLOR,
    PLAY,
    RANDOM_PLAY,
    RESULT_COLOR,
    REVERSE,
    SAFE_KIND,
    SYMBOL,
    SYMBOLS_OF_DECKS,
    TARGET,
    TARGET_SEAT,
    WILD_PLAY,
)
from ..rng import GOLDEN
from ..state import NUM_PHASES, RESPOND
from .deal import mix64
from .kernels import decide, refresh_mask, save
from .legal import legal_row

_V = VIEW_SLICES
_HAND = _V["hand"].start
_COLOR = _V["color"].start
_PHASE = _V["phase"].start
_NUM_PHASE_SLOTS = _V["phase"].stop - _V["phase"].start
_PENDING = _V["pending_draw"].start
_DIRECTION = _V["direction"].start
_SIZES = _V["hand_sizes"].start
_PRESENT = _V["seats_present"].start
_OWN_SIZE = _V["own_hand_size"].start
_DISCARDS = _V["discards"].start
_NUM_PLAYERS = _V["rules"].start
_DECK_FLAGS = _V["rules"].start + 1
_NUM_DECKS = COLORS_OF_DECKS.shape[0]
_DREW_ON = _V["drew_on"].start
_LAST_NAMED = _V["last_named"].start
_WD4_AFTER_DRAW = _V["wd4_after_draw"].start
_RULES = _V["rules"].start
_PER_COLOR = NUM_COLORED_KINDS // NUM_COLORS
_NUM_DYNAMIC = len(DYNAMIC)
# where the linear and greedy scoring keep their tables in their work buffer
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
WORK_SIZE = _W_LEGAL + NUM_ACTIONS
#: Size of a legal-mask buffer the playouts scan eight actions at a time (the actions,
#: then False up to a multiple of eight).
MASK_SIZE = (NUM_ACTIONS + 7) // 8 * 8


@njit(cache=True)
def _first_max(values, start, n):
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


@njit(cache=True)
def legal_list(mask, work):
    """The legal actions of ``mask`` in increasing order into ``work`` (from
    ``_W_LEGAL``); their number."""
    n = 0
    for a in range(mask.size):
        if mask[a]:
            work[_W_LEGAL + n] = a
            n += 1
    return n


@njit(cache=True, inline="always")
def legal_words(words, mask, work):
    """:func:`legal_list` of a mask of :data:`MASK_SIZE` read eight actions at a time
    (``words``: the mask as ``uint64``; most words hold no legal action)."""
    n = 0
    for i in range(words.size):
        if words[i]:
            for a in range(8 * i, 8 * i + 8):
                if mask[a]:
                    work[_W_LEGAL + n] = a
                    n += 1
    return n


@njit(cache=True, inline="always")
def _linear_pick(num_legal, static, weights, relief, w, hand, hand_at, deck, own_size, color,
                 phase, pending, wilds, min_size, num_present, heads_up, nxt, previous,
                 after_next, after_draw_prev):
    """The legal action (of the ``num_legal`` listed in ``w``, see :func:`legal_list`) of
    the highest linear score, from the position's tables in ``w``
    (color and symbol counts, hand sizes, unseen colors, the table's and the next seat's
    memories, written by :func:`linear_choice` or :func:`linear_state_choice`), the hand
    (``hand[hand_at + k]``) and the position's facts: every feature by the expressions of
    ``uno_agents.features``, summed in weight order. The counts are whole numbers, so
    their sums are exact in any order and both writers give the same tables."""
    total_unseen = 0.0
    for c in range(NUM_COLORS):
        total_unseen += w[_W_UNSEEN + c]
    total_unseen = max(total_unseen, 1.0)
    opponents = max(num_present, 1)
    next_size = w[_W_SIZES + nxt]
    previous_size = w[_W_SIZES + previous]
    threat_next = next_size <= 2
    several = not heads_up
    answering = 1.0 if phase == RESPOND else 0.0
    big = min(own_size, 8.0) / 8.0
    f = w[_W_F:_W_F + _NUM_DYNAMIC]
    best, best_score = 0, -np.inf
    for i in range(num_legal):
        a = np.int64(w[_W_LEGAL + i])
        play, has_color, ci = PLAY[a], HAS_COLOR[a], COLOR_IDX[a]
        wild_play, colored_play, symbol = WILD_PLAY[a], COLORED_PLAY[a], SYMBOL[a]
        is_attack, is_reverse = ATTACK[a], REVERSE[a]
        color_count = w[_W_BY_COLOR + ci]
        by_symbol = w[_W_BY_SYMBOL + symbol]
        after = color_count - (1.0 if play and not wild_play else 0.0)
        left = max(own_size - (1.0 if play else 0.0), 1.0)
        attack = is_attack or (is_reverse and heads_up)
        next_lacks = has_color and w[_W_NEXT_DREW + ci] > 0
        twins = by_symbol - hand[hand_at + SAFE_KIND[a]] if colored_play else 0.0
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
        f[23] = big if attack else 0.0
        f[24] = w[_W_DREW_ON + ci] / opponents if has_color else 0.0
        f[25] = w[_W_NAMED + ci] / opponents if has_color else 0.0
        score = static[a]
        for i in range(_NUM_DYNAMIC):
            score += weights[i] * f[i]
        score -= relief[a] * answering
        if score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True, inline="always")
def _neighbours(clockwise, first, last, second_cw, second_ccw):
    """Offsets (0-based) of the next seat, the previous one and the one after the next,
    from the first, last and second seats present in each direction."""
    nxt = max(first if clockwise else last, 0)
    previous = max(last if clockwise else first, 0)
    second = second_cw if clockwise else second_ccw
    after_next = second if 0 <= second < 99 else nxt
    return nxt, previous, after_next


@njit(cache=True)
def linear_choice(obs, mask, static, weights, relief, work):
    """The legal action of the highest ``static + weights @ features`` (then less
    ``relief`` when answering a penalty), as ``uno_agents.features.feature_scores`` sums it,
    from an observation. ``work`` (``float64[WORK_SIZE]``) holds the intermediate tables
    (no allocation per decision)."""
    w = work
    for c in range(NUM_COLORS):
        held, shown = 0.0, 0.0
        for j in range(_PER_COLOR):
            held += obs[_HAND + c * _PER_COLOR + j]
            shown += obs[_DISCARDS + c * _PER_COLOR + j]
        w[_W_BY_COLOR + c] = held
        w[_W_SHOWN_COLOR + c] = shown
    for j in range(_PER_COLOR):
        held, shown = 0.0, 0.0
        for c in range(NUM_COLORS):
            held += obs[_HAND + c * _PER_COLOR + j]
            shown += obs[_DISCARDS + c * _PER_COLOR + j]
        w[_W_BY_SYMBOL + j] = held
        w[_W_SHOWN_SYMBOL + j] = shown
    wilds = 0.0
    for k in range(NUM_COLORED_KINDS, NUM_KINDS):
        wilds += obs[_HAND + k]
    own_size = np.float64(obs[_OWN_SIZE])
    first, last, second_cw, second_ccw = 99, -1, 99, -1
    num_present = 0
    min_size = 999.0
    for o in range(OTHERS):
        size = np.float64(obs[_SIZES + o])
        w[_W_SIZES + o] = size
        if obs[_PRESENT + o] > 0:
            num_present += 1
            min_size = min(min_size, size)
            if first == 99:
                first = o
            elif second_cw == 99:
                second_cw = o
            second_ccw = last
            last = o
    players = np.int64(np.rint(obs[_NUM_PLAYERS] * 10))
    nxt, previous, after_next = _neighbours(obs[_DIRECTION] > 0, first, last, second_cw,
                                            second_ccw)
    deck = _first_max(obs, _DECK_FLAGS, _NUM_DECKS)
    for c in range(NUM_COLORS):
        w[_W_UNSEEN + c] = max(COLORS_OF_DECKS[deck, c] - w[_W_SHOWN_COLOR + c]
                               - w[_W_BY_COLOR + c], 0.0)
        drew, named = 0.0, 0.0
        for o in range(OTHERS):
            drew += obs[_DREW_ON + o * NUM_COLORS + c] > 0
            named += obs[_LAST_NAMED + o * NUM_COLORS + c] > 0
        w[_W_DREW_ON + c] = drew
        w[_W_NAMED + c] = named
        w[_W_NEXT_DREW + c] = obs[_DREW_ON + nxt * NUM_COLORS + c] > 0
        w[_W_NEXT_NAMED + c] = obs[_LAST_NAMED + nxt * NUM_COLORS + c] > 0
    after_draw_prev = 1.0 if obs[_WD4_AFTER_DRAW + previous] > 0 else 0.0
    return _linear_pick(legal_list(mask, w), static, weights, relief, w, obs, _HAND, deck,
                        own_size,
                        _first_max(obs, _COLOR, NUM_COLORS),
                        _first_max(obs, _PHASE, _NUM_PHASE_SLOTS), np.float64(obs[_PENDING]),
                        wilds, min_size, num_present, players == 2 or num_present == 1,
                        nxt, previous, after_next, after_draw_prev)


@njit(cache=True)
def rules_deck(rules):
    """Index of the rules' deck in ``COLORS_OF_DECKS`` (from the deck flags of the rules
    view, as the policies read it from an observation)."""
    return _first_max(rules.rules_vec, _DECK_FLAGS - _RULES, _NUM_DECKS)


@njit(cache=True, inline="always")
def linear_state_choice(rules, s, g, player, deck, num_legal, static, weights, relief, work):
    """:func:`linear_choice` for ``player`` in game ``g`` of ``s``, read from the state
    instead of an observation (the same numbers, without writing one), among the
    ``num_legal`` legal actions listed in ``work`` (:func:`legal_list`); ``deck``:
    :func:`rules_deck`."""
    w = work
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
    return _linear_pick(num_legal, static, weights, relief, w, hand, 0, deck, own_size,
                        np.int64(s.color[g]), min(np.int64(s.phase[g]), NUM_PHASES - 1),
                        np.float64(s.pending[g]), np.float64(wilds), min_size, num_present,
                        p == 2 or num_present == 1, nxt, previous, after_next,
                        after_draw_prev)


@njit(cache=True)
def _greedy_pick(num_legal, static, color_weight, work, challenge, sizes_at, sizes):
    """The legal action (of the ``num_legal`` listed in ``work``) of the highest greedy
    score, from the hand's cards of each color
    in ``work`` and the other seats' hand sizes (``sizes[sizes_at + o]``, offset ``o + 1``)."""
    best, best_score = 0, -np.inf
    for i in range(num_legal):
        a = np.int64(work[_W_LEGAL + i])
        score = static[a]
        if HAS_COLOR[a]:
            score = work[_W_BY_COLOR + RESULT_COLOR[a]] * color_weight[a] + static[a]
        if a == CHALLENGE:
            score = challenge
        elif a >= TARGET_BASE:
            score -= sizes[sizes_at + a - TARGET_BASE]
        if score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def greedy_choice(obs, mask, static, color_weight, threshold, work):
    """The legal action of the highest greedy score (``uno_agents.greedy.GreedyAgent.scores``)."""
    for c in range(NUM_COLORS):
        held = 0.0
        for j in range(_PER_COLOR):
            held += obs[_HAND + c * _PER_COLOR + j]
        work[_W_BY_COLOR + c] = held
    num_present = 0
    for o in range(OTHERS):
        num_present += obs[_PRESENT + o] > 0
    offender = num_present if obs[_DIRECTION] > 0 else 1
    challenge = 5.0 if obs[_SIZES + (offender - 1) % OTHERS] >= threshold else 0.0
    return _greedy_pick(legal_list(mask, work), static, color_weight, work, challenge,
                        _SIZES, obs)


@njit(cache=True)
def greedy_state_choice(rules, s, g, player, num_legal, static, color_weight, threshold,
                        work):
    """:func:`greedy_choice` for ``player`` in game ``g`` of ``s``, read from the state,
    among the ``num_legal`` legal actions listed in ``work``."""
    hand = s.hands[g, player]
    for c in range(NUM_COLORS):
        held = 0
        for j in range(_PER_COLOR):
            held += hand[c * _PER_COLOR + j]
        work[_W_BY_COLOR + c] = held
    p = rules.num_players
    for o in range(p - 1, OTHERS):
        work[_W_SIZES + o] = 0.0
    num_present = 0
    seat = player
    for o in range(p - 1):
        seat = seat + 1 if seat + 1 < p else 0
        work[_W_SIZES + o] = s.hand_size[g, seat]
        num_present += s.active[g, seat]
    offender = num_present if s.direction[g] > 0 else 1
    challenge = 5.0 if work[_W_SIZES + (offender - 1) % OTHERS] >= threshold else 0.0
    return _greedy_pick(num_legal, static, color_weight, work, challenge, _W_SIZES, work)


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
def choose(kind, obs, mask, static, weights, relief, color_weight, threshold, streams, g,
           work):
    """The action of a policy of ``kind`` (tables of one policy; ``streams[g]`` for a
    random one)."""
    if kind == RANDOM_PLAY:
        return random_play_choice(mask, static, streams[g])
    if kind == GREEDY:
        return greedy_choice(obs, mask, static, color_weight, threshold, work)
    return linear_choice(obs, mask, static, weights, relief, work)


@njit(cache=True)
def choose_rows(obs, masks, kinds, static, weights, relief, color_weight, threshold, out):
    """``out[i]``: the action of the policy of row 0 of the tables (not a random one) from
    observation ``obs[i]`` under ``masks[i]``."""
    work = np.empty(WORK_SIZE)
    no_streams = np.zeros((0, 2), np.uint64)
    for i in range(obs.shape[0]):
        out[i] = choose(kinds[0], obs[i], masks[i], static[0], weights[0], relief[0],
                        color_weight[0], threshold[0], no_streams, 0, work)


@njit(cache=True, inline="always")
def choose_state(kind, rules, s, g, player, deck, mask, num_legal, static, weights, relief,
                 color_weight, threshold, streams, work):
    """:func:`choose` for ``player`` in game ``g`` of ``s``, read from the state (no
    observation written), its ``num_legal`` legal actions listed in ``work``
    (:func:`legal_list`); ``deck``: :func:`rules_deck`. A single legal action is the
    choice of every policy but a random one (which draws its numbers even then)."""
    if kind == RANDOM_PLAY:
        return random_play_choice(mask, static, streams[g])
    if num_legal == 1:
        return np.int64(work[_W_LEGAL])
    if kind == GREEDY:
        return greedy_state_choice(rules, s, g, player, num_legal, static, color_weight,
                                   threshold, work)
    return linear_state_choice(rules, s, g, player, deck, num_legal, static, weights, relief,
                               work)


@njit(cache=True)
def play_on(rules, s, g, seat, limit, stop, kinds, static, weights, relief, color_weight,
            threshold, streams, rewards, mask, kinds_held, work):
    """Game ``g`` played on by the policies (row 0 of the tables for ``seat``, row 1 for
    the others) for at most ``limit`` decisions, to its end, or until seat ``stop`` is to
    act (-1: never), adding its rewards to
    ``rewards``; with ``auto_forced`` each decision is followed by the forced ones (as
    :func:`.kernels.play_forced` plays them, the legal actions of the next decision
    computed once). ``mask`` (``bool[MASK_SIZE]``), ``kinds_held`` and ``work`` are the
    caller's scratch buffers."""
    deck = rules_deck(rules)
    words = mask.view(np.uint64)
    fresh = False    # whether mask holds the legal actions of the game as it is
    for _ in range(limit):
        if s.done[g] or s.current[g] == stop:
            break
        if not fresh:
            legal_row(rules, s, g, mask, kinds_held)
        player = s.current[g]
        k = 0 if player == seat else 1
        a = choose_state(kinds[k], rules, s, g, player, deck, mask,
                         legal_words(words, mask, work), static[k], weights[k], relief[k],
                         color_weight[k], threshold[k], streams, work)
        decide(rules, s, g, a, rewards)
        fresh = False
        if rules.auto_forced:
            for _ in range(10 * rules.max_turns):
                legal_row(rules, s, g, mask, kinds_held)
                fresh = True
                if mask.sum() != 1:
                    break
                decide(rules, s, g, np.argmax(mask), rewards)
                fresh = False


@njit(cache=True)
def play_policy_games(rules, s, games, seats, horizon, kinds, static, weights, relief,
                      color_weight, threshold, streams, rewards, new_masks, saved, log):
    """Each listed game played on by the policies (row 0 of the tables for the seat
    ``seats[i]``, row 1 for the others) for ``horizon`` decisions or to its end
    (``horizon`` 0); ``rewards[g]`` sums the game's rewards. A ``RANDOM_PLAY`` policy
    draws from the game's stream ``streams[g]`` (no rows when none does)."""
    mask = np.zeros(MASK_SIZE, np.bool_)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    limit = horizon if horizon > 0 else 10 * rules.max_turns
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
        play_on(rules, s, g, seats[i], limit, -1, kinds, static, weights, relief, color_weight,
                threshold, streams, rewards[g], mask, kinds_held, work)
        refresh_mask(rules, s, g, new_masks, kinds_held)


@njit(cache=True)
def play_opponents_games(rules, s, games, seats, kinds, static, weights, relief, color_weight,
                         threshold, streams, rewards, new_masks, saved, log):
    """Each listed game played on by the policy (row 1 of the tables) for every seat but
    ``seats[i]``, until seat ``seats[i]`` is to act or the game ends; ``rewards[g]`` sums
    the game's rewards. A learner's opponents, as :meth:`uno_env.Engine.step` would play
    them decision by decision."""
    mask = np.zeros(MASK_SIZE, np.bool_)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    limit = 10 * rules.max_turns
    for i in range(games.size):
        g = games[i]
        if s.done[g] or s.current[g] == seats[i]:
            continue
        save(s, g, saved, log)
        play_on(rules, s, g, seats[i], limit, seats[i], kinds, static, weights, relief,
                color_weight, threshold, streams, rewards[g], mask, kinds_held, work)
        refresh_mask(rules, s, g, new_masks, kinds_held)
