"""Games played on with a score-table policy in every seat, inside one compiled call.

A tournament of agents that have a compiled twin (``greedy``, ``tuned``,
``defender``: :mod:`uno_env.engine.playout`) needs no Python between their
decisions: each game is played on to its end (or for a number of decisions) with
the policy of table row ``rows[i, seat]`` choosing for that seat, from the same
views of the acting player's observation the agents read
(:func:`seat_view`), so each decision is the one the agent's ``act``
makes. The decisions of each seat are counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import NUM_ACTIONS
from ...cards import NUM_COLORS, NUM_KINDS
from ..observe import OBS_SIZE, VIEW_SLICES
from ..state import NUM_PHASES
from .kernels import decide, play_forced, refresh_mask, save
from .legal import legal_row
from .playouts import WORK_SIZE, choose

_V = VIEW_SLICES
_HAND = _V["hand"].start
_COLOR = _V["color"].start
_PHASE = _V["phase"].start
_PENDING = _V["pending_draw"].start
_DIRECTION = _V["direction"].start
_SIZES = _V["hand_sizes"].start
_PRESENT = _V["seats_present"].start
_OWN_SIZE = _V["own_hand_size"].start
_DISCARDS = _V["discards"].start
_DREW_ON = _V["drew_on"].start
_LAST_NAMED = _V["last_named"].start
_WD4_AFTER_DRAW = _V["wd4_after_draw"].start
_RULES = _V["rules"].start


@njit(cache=True)
def seat_buffer(rules):
    """A buffer for :func:`seat_view`: an observation of zeros but for the ``rules``
    view (the same in every game of the rules)."""
    out = np.zeros(OBS_SIZE, np.float32)
    for i in range(rules.rules_vec.size):
        out[_RULES + i] = rules.rules_vec[i]
    return out


@njit(cache=True)
def seat_view(rules, s, g, player, out):
    """The views of ``player``'s observation of game ``g`` that the score-table policies
    read (hand, color, phase, pending draw, direction, hand sizes, seats present, own hand
    size, discards, and the drew-on, last-named and Wild-Draw-Four-after-draw memories),
    written into ``out`` with the values ``observe_row`` writes there. ``out`` comes from
    :func:`seat_buffer` and is only ever written by this function for the same rules:
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
def _play_block(rules, s, games, rows, limit, kinds, static, weights, relief, color_weight,
                threshold, decisions, rewards, new_masks, saved, log, first, end):
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    obs = seat_buffer(rules)
    work = np.empty(WORK_SIZE)
    no_streams = np.zeros((0, 2), np.uint64)
    for i in range(first, end):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
        for _ in range(limit):
            if s.done[g]:
                break
            legal_row(rules, s, g, mask, kinds_held)
            player = s.current[g]
            k = rows[i, player]
            seat_view(rules, s, g, player, obs)
            a = choose(kinds[k], obs, mask, static[k], weights[k], relief[k], color_weight[k],
                       threshold[k], no_streams, g, work)
            decide(rules, s, g, a, rewards[g])
            play_forced(rules, s, g, rewards[g])
            decisions[g, player] += 1
        refresh_mask(rules, s, g, new_masks, kinds_held)


@njit(cache=True, nogil=True)
def play_seated_games(rules, s, games, rows, horizon, kinds, static, weights, relief,
                      color_weight, threshold, decisions, rewards, new_masks, saved, log):
    """Each listed game played on by the policies, seat ``p`` by table row ``rows[i, p]``,
    for ``horizon`` decisions (0: to its end); ``decisions[g, p]`` counts seat ``p``'s
    decisions and ``rewards[g]`` sums the game's rewards. No policy may be a random one."""
    limit = horizon if horizon > 0 else 10 * rules.max_turns
    _play_block(rules, s, games, rows, limit, kinds, static, weights, relief, color_weight,
                threshold, decisions, rewards, new_masks, saved, log, 0, games.size)
