"""Whole playouts by a score-table policy in one compiled call (twin of the agents' act).

The policies of :mod:`uno_env.engine.playout` choose by the compiled scores of
:mod:`.scoring` (the twin of the agents' numpy scores, read from the game's state),
so each picks the action the agent's ``act`` picks: the first legal one of the
highest score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import NUM_KINDS
from .kernels import decide, refresh_mask, save
from .legal import legal_row
from .scoring import (
    MASK_SIZE,
    WORK_SIZE,
    choose_state,
    legal_words,
    rules_deck,
    scores_state,
    spread_scores,
)


@njit(cache=True)
def score_games(rules, s, games, kinds, static, weights, relief, color_weight, threshold,
                out):
    """``out[i, a]``: the score of legal action ``a`` by the policy of row 0 of the tables
    (not a random one) for the acting player of running game ``games[i]`` (``-inf`` for
    the other actions): the scores of the agent's numpy scoring, bit for bit."""
    mask = np.zeros(MASK_SIZE, np.bool_)
    words = mask.view(np.uint64)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    deck = rules_deck(rules)
    for i in range(games.size):
        g = games[i]
        legal_row(rules, s, g, mask, kinds_held)
        num_legal = legal_words(words, mask, work)
        scores_state(kinds[0], rules, s, g, s.current[g], deck, num_legal, static[0],
                     weights[0], relief[0], color_weight[0], threshold[0], work)
        spread_scores(work, num_legal, out[i])


@njit(cache=True)
def choose_games(rules, s, games, kinds, static, weights, relief, color_weight, threshold,
                 out):
    """``out[i]``: the action of the policy of row 0 of the tables (not a random one) for
    the acting player of running game ``games[i]``: what the agent's ``act`` picks from
    that player's observation."""
    mask = np.zeros(MASK_SIZE, np.bool_)
    words = mask.view(np.uint64)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    deck = rules_deck(rules)
    no_streams = np.zeros((0, 2), np.uint64)
    for i in range(games.size):
        g = games[i]
        legal_row(rules, s, g, mask, kinds_held)
        out[i] = choose_state(kinds[0], rules, s, g, s.current[g], deck, mask,
                              legal_words(words, mask, work), static[0], weights[0],
                              relief[0], color_weight[0], threshold[0], no_streams, work)


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
