"""Uniformly random legal actions from legal-action masks.

The one random-choice helper of the project: the random agent, the random-play
simulation and the benchmarks all pick actions with it. It needs nothing but
numpy, so any module of ``uno_env`` or ``uno_agents`` can import it.
"""

from __future__ import annotations

import numpy as np

#: Up to this many rows, random_legal_actions draws one number per mask entry.
SMALL_BATCH = 16


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``bool[G, A]``) as ``int64[G]``.

    Lists the legal entries once (``flatnonzero``, row by row), then picks, per row,
    a uniform position among that row's entries: one random number per row, and
    work proportional to the legal actions rather than to the whole mask. Rows with
    no legal action (finished games) get action 0, which the engine ignores. For a
    few rows, the arg-max of uniform numbers over the legal entries is cheaper (and
    just as uniform).
    """
    g, a = mask.shape
    if g <= SMALL_BATCH:
        return (rng.random(mask.shape) * mask).argmax(axis=1)
    flat = np.flatnonzero(mask)
    counts = np.bincount(flat // a, minlength=g)
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(g) * counts).astype(np.int64)
    if not flat.size:
        return np.zeros(g, np.int64)
    return np.where(counts > 0, flat[np.minimum(pick, flat.size - 1)] % a, 0)
