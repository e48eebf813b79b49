"""Uniformly random legal actions from legal-action masks.

The one random-choice helper of the project: the random agent, the random-play
simulation and the benchmarks all pick actions with it. It needs nothing but
numpy, so any module of ``uno_env`` or ``uno_agents`` can import it.
"""

from __future__ import annotations

from collections.abc import Callable

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
    just as uniform). With the compiled backend the same picks are made in compiled
    code (a few times faster at thousands of rows).
    """
    g, a = mask.shape
    if g <= SMALL_BATCH:
        return (rng.random(mask.shape) * mask).argmax(axis=1)
    pick_legal = _compiled_pick()
    if pick_legal is not None and mask.dtype == np.bool_:
        out = np.empty(g, np.int64)
        pick_legal(np.ascontiguousarray(mask).view(np.uint8), rng.random(g), out)
        return out
    flat = np.flatnonzero(mask)
    counts = np.bincount(flat // a, minlength=g)
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(g) * counts).astype(np.int64)
    if not flat.size:
        return np.zeros(g, np.int64)
    return np.where(counts > 0, flat[np.minimum(pick, flat.size - 1)] % a, 0)


def _compiled_pick() -> Callable[..., None] | None:
    """The compiled twin of the large-batch pick, when the compiled backend is in use."""
    from .engine.core import default_backend

    if default_backend() != "numba":
        return None
    from .engine.compiled.choice import pick_legal
    return pick_legal
