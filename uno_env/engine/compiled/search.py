"""Search in compiled code: worlds dealt and played out without leaving the kernel.

A search agent values each legal action of a decision by playouts in *worlds*
(see :mod:`uno_env.engine.worlds`): the public part of the game kept, the cards
its player has not seen dealt again at random. :func:`deal_worlds` deals the
worlds of many decisions at once, each world copied once per action to try, and
:func:`play_values` plays every copy on (its first action, then the score-table
policies of :mod:`.playouts`) and values it for the searching seat, so a search
costs two kernel calls however many decisions, worlds and actions it has.

The worlds follow the rules of :func:`uno_env.engine.worlds.sample_worlds` (the
public copy, the uniform deal or the belief deal with ``drew_on_weight`` < 1, the
Wild Draw Four challenge judged in each world) with other random numbers: a
Fisher-Yates shuffle and sequential weighted draws from a counter-based stream per
world, instead of numpy's sorts of uniform and Gumbel numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import IS_WILD, KIND_COLOR, NUM_COLORS, NUM_KINDS
from ..codes import ChallengeGuilty
from ..rng import GOLDEN
from ..state import FORCED_PLAY, RESPOND
from .deal import mix64
from .kernels import decide, play_forced
from .legal import wd4_permitted
from .playouts import play_on
from .rows import copy_row
from .scoring import MASK_SIZE, WORK_SIZE

#: Salt between a world's game key and the key of the stream its deal is drawn from.
_DEAL_SALT = np.uint64(0x6A09E667F3BCC909)
_ONE = np.uint64(1)


@njit(cache=True)
def _uniform(key, counter):
    """A uniform float64 in [0, 1) from the stream ``key`` at ``counter``."""
    return np.float64(mix64(key + counter * GOLDEN) >> np.uint64(11)) * 2.0 ** -53


@njit(cache=True)
def _public_row(rules, s, g, seat, out, r):
    """Row ``r`` of ``out``: game ``g`` of ``s`` as ``seat`` knows it (see
    :func:`uno_env.engine.worlds.public_state`)."""
    copy_row(s, g, out, r)
    p = rules.num_players
    partner = (seat + 2) % p if rules.teams else seat
    for q in range(p):
        if q != seat and q != partner:
            for k in range(NUM_KINDS):
                out.hands[r, q, k] = out.shown[r, q, k]
    out.deck[r, :] = 0
    out.wd4_guilty[r] = False
    if out.phase[r] != FORCED_PLAY:
        out.hidden[r, :] = False
    out.key[r] = 0
    out.counter[r] = 0


@njit(cache=True)
def _judge_challenge(rules, out, r):
    """Whether the pending Wild Draw Four of world ``r`` broke its restriction (and under
    retraction what its offender could replay), from the world's dealt hand."""
    attacker = out.attacker[r]
    if out.phase[r] != RESPOND or attacker < 0:
        return
    color = np.int64(out.prev_color[r])
    top = np.int64(out.prev_top[r])
    hand = out.hands[r, attacker]
    out.wd4_guilty[r] = not wd4_permitted(rules, hand, rules.matches[color, top], color)
    if rules.challenge_guilty == ChallengeGuilty.RETRACT:
        for k in range(NUM_KINDS):
            out.hidden[r, k] = hand[k] > 0


@njit(cache=True)
def deal_worlds(rules, s, games, seats, repeats, worlds, keys, weight, out):
    """The worlds of game ``games[i]`` as its acting player ``seats[i]`` knows it, into
    ``out``: ``worlds[i]`` worlds, each written ``repeats[i]`` times (rows of repeat 0,
    then of repeat 1, ..., after the rows of the games before). World ``j`` (counted over
    all games) gets the game key ``keys[j]`` and is dealt from a stream derived from it.
    With ``weight`` < 1, a seat that drew on a color gets that color's cards and the wilds
    ``weight`` times as often (the belief deal). Returns -1, or the first ``i`` whose game
    does not add up (then ``out`` holds partial worlds)."""
    p = rules.num_players
    unseen = np.empty(NUM_KINDS, np.int64)
    sizes = np.empty(p, np.int64)
    cards = np.empty(rules.deck_counts.sum(), np.int64)
    order = np.empty_like(cards)
    free = np.empty(cards.size, np.bool_)
    likes = np.ones((p, NUM_KINDS))
    row, j = 0, 0
    for i in range(games.size):
        g, seat, n = games[i], seats[i], worlds[i]
        _public_row(rules, s, g, seat, out, row)
        partner = (seat + 2) % p if rules.teams else seat
        for k in range(NUM_KINDS):
            unseen[k] = rules.deck_counts[k] - out.discard[row, k]
        held, belief = 0, False
        for q in range(p):
            in_hand = 0
            for k in range(NUM_KINDS):
                unseen[k] -= out.hands[row, q, k]
                in_hand += out.hands[row, q, k]
            hidden = q != seat and q != partner
            sizes[q] = out.hand_size[row, q] - in_hand if hidden else 0
            held += sizes[q]
            if sizes[q] > 0 and weight < 1.0:
                for c in range(NUM_COLORS):
                    belief |= out.drew_on[row, q, c]
        pile = np.int64(out.deck_len[row] - out.deck_pos[row])
        m = 0
        for k in range(NUM_KINDS):
            if unseen[k] < 0:
                return i
            for _ in range(unseen[k]):
                cards[m] = k
                m += 1
        if m != held + pile:
            return i
        if belief:
            for q in range(p):
                drew_any = False
                for c in range(NUM_COLORS):
                    drew_any |= out.drew_on[row, q, c]
                for k in range(NUM_KINDS):
                    lacks = drew_any if IS_WILD[k] else out.drew_on[row, q, KIND_COLOR[k]]
                    likes[q, k] = weight if lacks else 1.0
        start = np.int64(out.deck_pos[row])
        for w in range(n - 1, -1, -1):          # row 0 (the public copy) is dealt last
            r = row + w
            if w > 0:
                copy_row(out, row, out, r)
            stream = mix64(keys[j + w] ^ _DEAL_SALT)
            counter = np.uint64(0)
            for t in range(m):
                order[t] = cards[t]
            at = 0
            if belief:    # each hand drawn card by card, by weight, from the cards left
                free[:m] = True
                for q in range(p):
                    for _ in range(sizes[q]):
                        total = 0.0
                        for t in range(m):
                            if free[t]:
                                total += likes[q, cards[t]]
                        counter += _ONE
                        u = _uniform(stream, counter) * total
                        pick, acc = -1, 0.0
                        for t in range(m):
                            if free[t]:
                                pick = t
                                acc += likes[q, cards[t]]
                                if acc > u:
                                    break
                        free[pick] = False
                        out.hands[r, q, cards[pick]] += 1
                        at += 1
                rest = 0
                for t in range(m):
                    if free[t]:
                        order[rest] = cards[t]
                        rest += 1
                for t in range(rest - 1, 0, -1):   # the pile: the rest in random order
                    counter += _ONE
                    x = np.int64(mix64(stream + counter * GOLDEN) % np.uint64(t + 1))
                    order[t], order[x] = order[x], order[t]
                for t in range(pile):
                    out.deck[r, start + t] = order[t]
            else:
                for t in range(m - 1, 0, -1):      # Fisher-Yates
                    counter += _ONE
                    x = np.int64(mix64(stream + counter * GOLDEN) % np.uint64(t + 1))
                    order[t], order[x] = order[x], order[t]
                for q in range(p):
                    for _ in range(sizes[q]):
                        out.hands[r, q, order[at]] += 1
                        at += 1
                for t in range(pile):
                    out.deck[r, start + t] = order[at + t]
            out.key[r] = keys[j + w]
            _judge_challenge(rules, out, r)
        for t in range(1, repeats[i]):
            for w in range(n):
                copy_row(out, row + w, out, row + t * n + w)
        row += repeats[i] * n
        j += n
    return -1


@njit(cache=True)
def _lead(s, r, seat):
    """How far ``seat`` leads in running game ``r`` (``uno_agents.ismcts.lead``, the same
    float64 operations)."""
    best = np.inf
    for q in range(s.hand_size.shape[1]):
        if q != seat and s.active[r, q]:
            best = min(best, np.float64(s.hand_size[r, q]))
    best = min(best, 1e3)
    own = np.float64(s.hand_size[r, seat])
    return (best - own) / max(best + own, 1.0)


@njit(cache=True)
def play_values(rules, s, num_rows, first, seats, horizon, kinds, static, weights, relief,
                color_weight, threshold, streams, values):
    """Rows ``0 .. num_rows - 1`` of ``s`` played on: action ``first[r]`` (a legal one),
    then the policies (row 0 of the tables for seat ``seats[r]``, row 1 for the others)
    for ``horizon`` decisions or to the end (0). ``values[r]``: the rewards of seat
    ``seats[r]`` (the first decision's, then the playout's, each summed in float32), plus
    its lead in a game still running, as ``uno_agents.ismcts`` sums them. ``streams[r]``:
    the row's stream for a random policy (no rows when none is)."""
    p = rules.num_players
    first_rewards = np.zeros(p, np.float32)
    rewards = np.zeros(p, np.float32)
    mask = np.zeros(MASK_SIZE, np.bool_)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    limit = horizon if horizon > 0 else 10 * rules.max_turns
    for r in range(num_rows):
        seat = seats[r]
        first_rewards[:] = 0.0
        rewards[:] = 0.0
        if not s.done[r]:
            decide(rules, s, r, first[r], first_rewards)
            play_forced(rules, s, r, first_rewards)
        play_on(rules, s, r, seat, limit, -1, kinds, static, weights, relief, color_weight,
                threshold, streams, rewards, mask, kinds_held, work)
        tail = 0.0 if s.done[r] else _lead(s, r, seat)
        values[r] = np.float64(first_rewards[seat]) + (np.float64(rewards[seat]) + tail)
