"""The packed observation of an engine's games (:mod:`.packed` says what a row holds).

Beside :meth:`~uno_env.engine.core.Engine.observe`, for loops that step many games
and keep the observations small: the same facts in about a sixteenth of the bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .core import Engine
from .packed import pack


def observe_packed(engine: Engine, players: int | Sequence[int] | np.ndarray | None = None,
                   games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """``int16[G, packed_size(rules)]``: the observations ``engine.observe(players,
    games)`` returns, packed into small integers (:mod:`uno_env.engine.packed`; the
    same arguments).

    ``packed.unpack(rows, rules)`` gives exactly what ``observe`` returns: the packed
    rows carry the same facts in about a sixteenth of the bytes, for loops that step
    many games and build the float view where it is used.
    """
    idx, p = engine._observed(players, games)
    if engine._kernels is not None:
        return engine._kernels.observe_packed(engine.state, engine._listed(idx), p)
    return pack(engine.rules, engine.state if idx is None else engine.state.take(idx), p)
