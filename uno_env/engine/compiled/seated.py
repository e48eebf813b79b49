"""Games played on with a score-table policy in every seat, inside one compiled call.

A tournament of agents that have a compiled twin (``greedy``, ``tuned``,
``defender``: :mod:`uno_env.engine.playout`) needs no Python between their
decisions: each game is played on to its end (or for a number of decisions) with
the policy of table row ``rows[i, seat]`` choosing for that seat, read from the
game's state as the search's playouts read it (:func:`.playouts.choose_state`, the
action the agent's ``act`` picks from its observation). The decisions of each seat
are counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import NUM_KINDS
from .kernels import decide, play_forced, refresh_mask, save
from .legal import legal_row
from .scoring import MASK_SIZE, WORK_SIZE, choose_state, legal_words, rules_deck


@njit(cache=True, nogil=True)
def play_seated_games(rules, s, games, rows, horizon, kinds, static, weights, relief,
                      color_weight, threshold, decisions, rewards, new_masks, saved, log):
    """Each listed game played on by the policies, seat ``p`` by table row ``rows[i, p]``,
    for ``horizon`` decisions (0: to its end); ``decisions[g, p]`` counts seat ``p``'s
    decisions and ``rewards[g]`` sums the game's rewards. No policy may be a random one."""
    limit = horizon if horizon > 0 else 10 * rules.max_turns
    mask = np.zeros(MASK_SIZE, np.bool_)
    words = mask.view(np.uint64)
    kinds_held = np.empty(NUM_KINDS, np.bool_)
    work = np.empty(WORK_SIZE)
    deck = rules_deck(rules)
    no_streams = np.zeros((0, 2), np.uint64)
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
        for _ in range(limit):
            if s.done[g]:
                break
            legal_row(rules, s, g, mask, kinds_held)
            player = s.current[g]
            k = rows[i, player]
            a = choose_state(kinds[k], rules, s, g, player, deck, mask,
                             legal_words(words, mask, work), static[k], weights[k],
                             relief[k], color_weight[k], threshold[k], no_streams, work)
            decide(rules, s, g, a, rewards[g])
            play_forced(rules, s, g, rewards[g])
            decisions[g, player] += 1
        refresh_mask(rules, s, g, new_masks, kinds_held)
