"""Random legal actions from legal masks (twin of ``uno_env/random_actions.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pick_legal(mask, uniform, out):
    """``out[g]``: the ``int(uniform[g] * n)``-th of the ``n`` legal actions of row ``g`` of
    ``mask`` (``uint8[G, A]``, a view of the bool mask), 0 for a row with none: the pick
    of ``random_legal_actions``, row by row. Branch-free: every action is written to
    the list, and only a legal one moves its end on."""
    games, actions = mask.shape
    legal = np.empty(actions + 1, np.int64)
    for g in range(games):
        row = mask[g]
        n = 0
        for a in range(actions):
            legal[n] = a
            n += row[a]
        out[g] = legal[int(uniform[g] * n)] if n else 0
