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
from ..observe import OBS_SIZE, OTHERS, VIEW_SLICES
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
from .kernels import decide, play_forced, refresh_mask, save
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
# where linear_choice keeps its tables in its work buffer
_W_HAND = 0
_W_BY_COLOR = _W_HAND + NUM_KINDS
_W_BY_SYMBOL = _W_BY_COLOR + NUM_COLORS
_W_SHOWN_COLOR = _W_BY_SYMBOL + _PER_COLOR
_W_SHOWN_SYMBOL = _W_SHOWN_COLOR + NUM_COLORS
_W_SIZES = _W_SHOWN_SYMBOL + _PER_COLOR
_W_UNSEEN = _W_SIZES + OTHERS
_W_DREW_ON = _W_UNSEEN + NUM_COLORS
_W_NAMED = _W_DREW_ON + NUM_COLORS
_W_F = _W_NAMED + NUM_COLORS
WORK_SIZE = _W_F + _NUM_DYNAMIC


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
def linear_choice(obs, mask, static, weights, relief, work):
    """The legal action of the highest ``static + weights @ features`` (then less
    ``relief`` when answering a penalty), as ``uno_agents.features.feature_scores`` sums it.
    ``work`` (``float64[WORK_SIZE]``) holds the intermediate tables (no allocation per
    decision)."""
    hand = work[_W_HAND:_W_HAND + NUM_KINDS]
    for k in range(NUM_KINDS):
        hand[k] = obs[_HAND + k]
    by_color = work[_W_BY_COLOR:_W_BY_COLOR + NUM_COLORS]
    by_symbol = work[_W_BY_SYMBOL:_W_BY_SYMBOL + _PER_COLOR]
    shown_color = work[_W_SHOWN_COLOR:_W_SHOWN_COLOR + NUM_COLORS]
    shown_symbol = work[_W_SHOWN_SYMBOL:_W_SHOWN_SYMBOL + _PER_COLOR]
    work[_W_BY_COLOR:_W_SIZES] = 0.0
    for c in range(NUM_COLORS):
        for j in range(_PER_COLOR):
            by_color[c] += hand[c * _PER_COLOR + j]
            by_symbol[j] += hand[c * _PER_COLOR + j]
            shown = np.float64(obs[_DISCARDS + c * _PER_COLOR + j])
            shown_color[c] += shown
            shown_symbol[j] += shown
    wilds = 0.0
    for k in range(NUM_COLORED_KINDS, NUM_KINDS):
        wilds += hand[k]
    own_size = np.float64(obs[_OWN_SIZE])
    color = _first_max(obs, _COLOR, NUM_COLORS)
    phase = _first_max(obs, _PHASE, _NUM_PHASE_SLOTS)
    pending = np.float64(obs[_PENDING])
    sizes = work[_W_SIZES:_W_SIZES + OTHERS]
    first, last, second_cw, second_ccw = 99, -1, 99, -1
    num_present = 0
    min_size = 999.0
    for o in range(OTHERS):
        sizes[o] = obs[_SIZES + o]
        if obs[_PRESENT + o] > 0:
            num_present += 1
            min_size = min(min_size, sizes[o])
            if first == 99:
                first = o
            elif second_cw == 99:
                second_cw = o
            second_ccw = last
            last = o
    players = np.int64(np.rint(obs[_NUM_PLAYERS] * 10))
    clockwise = obs[_DIRECTION] > 0
    nxt = max(first if clockwise else last, 0)
    previous = max(last if clockwise else first, 0)
    second = second_cw if clockwise else second_ccw
    after_next = second if 0 <= second < 99 else nxt
    heads_up = players == 2 or num_present == 1
    deck = _first_max(obs, _DECK_FLAGS, _NUM_DECKS)
    unseen = work[_W_UNSEEN:_W_UNSEEN + NUM_COLORS]
    total_unseen = 0.0
    for c in range(NUM_COLORS):
        unseen[c] = max(COLORS_OF_DECKS[deck, c] - shown_color[c] - by_color[c], 0.0)
        total_unseen += unseen[c]
    total_unseen = max(total_unseen, 1.0)
    drew_on_count = work[_W_DREW_ON:_W_DREW_ON + NUM_COLORS]
    named_count = work[_W_NAMED:_W_NAMED + NUM_COLORS]
    work[_W_DREW_ON:_W_F] = 0.0
    for o in range(OTHERS):
        for c in range(NUM_COLORS):
            drew_on_count[c] += obs[_DREW_ON + o * NUM_COLORS + c] > 0
            named_count[c] += obs[_LAST_NAMED + o * NUM_COLORS + c] > 0
    opponents = max(num_present, 1)
    next_size = sizes[nxt]
    previous_size = sizes[previous]
    threat_next = next_size <= 2
    several = not heads_up
    after_draw_prev = 1.0 if obs[_WD4_AFTER_DRAW + previous] > 0 else 0.0
    answering = 1.0 if phase == RESPOND else 0.0
    big = min(own_size, 8.0) / 8.0
    f = work[_W_F:_W_F + _NUM_DYNAMIC]
    best, best_score = 0, -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        play, has_color, ci = PLAY[a], HAS_COLOR[a], COLOR_IDX[a]
        wild_play, colored_play, symbol = WILD_PLAY[a], COLORED_PLAY[a], SYMBOL[a]
        is_attack, is_reverse = ATTACK[a], REVERSE[a]
        color_count = by_color[ci]
        after = color_count - (1.0 if play and not wild_play else 0.0)
        left = max(own_size - (1.0 if play else 0.0), 1.0)
        attack = is_attack or (is_reverse and heads_up)
        next_lacks = has_color and obs[_DREW_ON + nxt * NUM_COLORS + ci] > 0
        twins = by_symbol[symbol] - hand[SAFE_KIND[a]] if colored_play else 0.0
        wilds_after = wilds - (1.0 if wild_play else 0.0)
        follow = has_color and (after + twins + wilds_after > 0)
        f[0] = has_color and play and RESULT_COLOR[a] == color
        f[1] = after / left if has_color else 0.0
        f[2] = 1.0 - NUM_COLORS * unseen[ci] / total_unseen if has_color else 0.0
        f[3] = attack
        f[4] = attack and threat_next
        f[5] = ACTION_OR_WILD[a] and min_size <= 2
        f[6] = wild_play and own_size <= 3
        f[7] = 1.0 if a == DRAW and phase == RESPOND and pending > 0 else 0.0
        f[8] = _bluff(previous_size) if a == CHALLENGE else 0.0
        f[9] = sizes[TARGET_SEAT[a]] / 10.0 if TARGET[a] else 0.0
        f[10] = next_lacks
        f[11] = after_draw_prev if a == CHALLENGE else 0.0
        f[12] = follow
        f[13] = attack and follow
        f[14] = colored_play and color_count == 1
        f[15] = min(twins, 3.0) / 3.0
        f[16] = has_color and obs[_LAST_NAMED + nxt * NUM_COLORS + ci] > 0
        f[17] = attack and several and next_size <= min_size
        f[18] = is_reverse and several and next_size < previous_size
        f[19] = is_attack and several and sizes[after_next] <= 2
        f[20] = is_reverse and several and previous_size <= 2
        f[21] = next_lacks and threat_next
        if colored_play:
            copies = max(SYMBOLS_OF_DECKS[deck, symbol], 1.0)
            symbol_unseen = max(SYMBOLS_OF_DECKS[deck, symbol] - shown_symbol[symbol]
                                - by_symbol[symbol], 0.0)
            f[22] = 1.0 - symbol_unseen / copies
        else:
            f[22] = 0.0
        f[23] = big if attack else 0.0
        f[24] = drew_on_count[ci] / opponents if has_color else 0.0
        f[25] = named_count[ci] / opponents if has_color else 0.0
        score = static[a]
        for i in range(_NUM_DYNAMIC):
            score += weights[i] * f[i]
        score -= relief[a] * answering
        if score > best_score:
            best, best_score = a, score
    return best


@njit(cache=True)
def greedy_choice(obs, mask, static, color_weight, threshold, work):
    """The legal action of the highest greedy score (``uno_agents.greedy.GreedyAgent.scores``)."""
    by_color = work[_W_BY_COLOR:_W_BY_COLOR + NUM_COLORS]
    by_color[:] = 0.0
    for c in range(NUM_COLORS):
        for j in range(_PER_COLOR):
            by_color[c] += obs[_HAND + c * _PER_COLOR + j]
    num_present = 0
    for o in range(OTHERS):
        num_present += obs[_PRESENT + o] > 0
    offender = num_present if obs[_DIRECTION] > 0 else 1
    challenge = 5.0 if obs[_SIZES + (offender - 1) % OTHERS] >= threshold else 0.0
    best, best_score = 0, -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        score = static[a]
        if HAS_COLOR[a]:
            score = by_color[RESULT_COLOR[a]] * color_weight[a] + static[a]
        if a == CHALLENGE:
            score = challenge
        elif a >= TARGET_BASE:
            score -= obs[_SIZES + a - TARGET_BASE]
        if score > best_score:
            best, best_score = a, score
    return best


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
def policy_buffer(rules):
    """A buffer for :func:`policy_view`: an observation of zeros but for the ``rules``
    view (the same in every game of the rules)."""
    out = np.zeros(OBS_SIZE, np.float32)
    for i in range(rules.rules_vec.size):
        out[_RULES + i] = rules.rules_vec[i]
    return out


@njit(cache=True)
def policy_view(rules, s, g, player, out):
    """The views of ``player``'s observation of game ``g`` that the score-table policies
    read (hand, color, phase, pending draw, direction, hand sizes, seats present, own hand
    size, discards, and the drew-on, last-named and Wild-Draw-Four-after-draw memories),
    written into ``out`` with the values ``observe_row`` writes there. ``out`` comes from
    :func:`policy_buffer` and is only ever written by this function for the same rules:
    the views the policies do not read are left as they are (zeros), which saves
    writing the 1,516 numbers of a whole observation at every playout decision."""
    p = rules.num_players
    hand = s.hands[g, player]
    discard = s.discard[g]
    hand_size = s.hand_size[g]
    active = s.active[g]
    drew_on = s.drew_on[g]
    last_named = s.last_named[g]
    wd4_after_draw = s.wd4_after_draw[g]
    for k in range(NUM_KINDS):
        out[_HAND + k] = hand[k]
        out[_DISCARDS + k] = discard[k]
    for c in range(NUM_COLORS):
        out[_COLOR + c] = 0.0
    out[_COLOR + s.color[g]] = 1.0
    for i in range(NUM_PHASES):
        out[_PHASE + i] = 0.0
    out[_PHASE + min(s.phase[g], NUM_PHASES - 1)] = 1.0
    out[_PENDING] = s.pending[g]
    out[_DIRECTION] = s.direction[g]
    out[_OWN_SIZE] = hand_size[player]
    for o in range(1, p):
        seat = (player + o) % p
        out[_SIZES + o - 1] = hand_size[seat]
        out[_PRESENT + o - 1] = active[seat]
        out[_WD4_AFTER_DRAW + o - 1] = wd4_after_draw[seat]
        for c in range(NUM_COLORS):
            out[_DREW_ON + (o - 1) * NUM_COLORS + c] = drew_on[seat, c]
            out[_LAST_NAMED + (o - 1) * NUM_COLORS + c] = 0.0
        named = last_named[seat]
        if named >= 0:
            out[_LAST_NAMED + (o - 1) * NUM_COLORS + named] = 1.0


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


@njit(cache=True)
def play_on(rules, s, g, seat, limit, kinds, static, weights, relief, color_weight, threshold,
            streams, rewards, mask, kinds_held, obs, work):
    """Game ``g`` played on by the policies (row 0 of the tables for ``seat``, row 1 for
    the others) for at most ``limit`` decisions or to its end, adding its rewards to
    ``rewards``; ``mask``, ``kinds_held``, ``obs`` and ``work`` are the caller's scratch
    buffers (``kinds_held`` ends as the last decision's)."""
    for _ in range(limit):
        if s.done[g]:
            break
        legal_row(rules, s, g, mask, kinds_held)
        player = s.current[g]
        k = 0 if player == seat else 1
        policy_view(rules, s, g, player, obs)
        a = choose(kinds[k], obs, mask, static[k], weights[k], relief[k], color_weight[k],
                   threshold[k], streams, g, work)
        decide(rules, s, g, a, rewards)
        play_forced(rules, s, g, rewards)


@njit(cache=True)
def play_policy_games(rules, s, games, seats, horizon, kinds, static, weights, relief,
                      color_weight, threshold, streams, rewards, new_masks, saved, log):
    """Each listed game played on by the policies (row 0 of the tables for the seat
    ``seats[i]``, row 1 for the others) for ``horizon`` decisions or to its end
    (``horizon`` 0); ``rewards[g]`` sums the game's rewards. A ``RANDOM_PLAY`` policy
    draws from the game's stream ``streams[g]`` (no rows when none does)."""
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    obs = policy_buffer(rules)
    work = np.empty(WORK_SIZE)
    limit = horizon if horizon > 0 else 10 * rules.max_turns
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
        play_on(rules, s, g, seats[i], limit, kinds, static, weights, relief, color_weight,
                threshold, streams, rewards[g], mask, kinds_held, obs, work)
        refresh_mask(rules, s, g, new_masks, kinds_held)
