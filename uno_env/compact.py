"""Moving the running games of an engine onto a smaller one.

A step costs about the same for every slot of an engine, finished or not, so the
end of a batch, when a few long games are still running, is cheaper on a smaller
engine. Random-play simulation and the evaluation player both do this.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from .engine import Engine


def compact(engine: Engine, keep: np.ndarray) -> Engine | None:
    """A new engine holding only the games ``keep`` of ``engine``, each in its current position.

    A step costs about the same for every slot of an engine, finished or not, so
    the end of a simulation, when a few long games are still running in a large
    batch, is cheaper on a smaller engine. Relies on the engine state being a
    struct of arrays whose first axis is the game; returns ``None`` (keep the
    old engine) if any array of the state does not look like that.
    """
    state = engine.state
    arrays = {f.name: getattr(state, f.name) for f in fields(state)}
    if any(not isinstance(a, np.ndarray) or a.shape[:1] != (engine.num_games,)
           for a in arrays.values()):
        return None
    small = Engine(engine.rules, int(keep.size), 0, engine.backend,
                   getattr(engine, "threads", 1))
    small.state = type(state)(**{name: a[keep].copy() for name, a in arrays.items()})
    return small
