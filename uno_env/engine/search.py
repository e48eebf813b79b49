"""What a search asks an engine at every decision, in compiled code and unchecked.

The values of its decisions' actions (worlds dealt and played out) and its prior's
choice: the checks :meth:`uno_env.Engine.world_values` makes of each request would
cost more than the answer. This module sits above the engine (the worlds,
:mod:`uno_env.engine.worlds`, sit below it).
"""

from __future__ import annotations

import numpy as np

from .core import Engine
from .playout import RANDOM_PLAY, PlayoutPolicy, policy_tables, uses_streams
from .rng import seed_key


def search_values(engine: Engine, games: np.ndarray, actions: list[np.ndarray],
                  worlds: np.ndarray, policy: PlayoutPolicy, others: PlayoutPolicy,
                  horizon: int, rng: np.random.Generator, drew_on_weight: float
                  ) -> list[np.ndarray]:
    """:meth:`uno_env.Engine.world_values` (``numba`` backend) without its checks of the
    request, for a search that asks it at every decision: ``games`` (``int64``) must be
    running games of ``engine``, ``actions[i]`` (``int64``) legal actions of game
    ``games[i]``, ``worlds`` (``int64``) positive counts, in all at most ``MAX_WORLDS``
    rows with the repeats, ``horizon`` >= 0 and ``drew_on_weight`` in (0, 1]. The same
    values from the same random numbers as ``world_values``."""
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError("search_values runs on the numba backend only")
    repeat = np.array([a.size for a in actions], np.int64)
    first = np.repeat(np.concatenate(actions), np.repeat(worlds, repeat))
    keys = seed_key(rng.integers(0, 2**62, int(worlds.sum())))
    rows = first.size
    seats = np.repeat(engine.state.current[games], repeat * worlds)
    if uses_streams(policy, others):
        streams = np.zeros((rows, 2), np.uint64)
        streams[:, 0] = rng.integers(0, 2**63, rows, dtype=np.uint64)
    else:
        streams = np.zeros((0, 2), np.uint64)
    values = kernels.world_values(engine.state, games, repeat, worlds, keys, drew_on_weight,
                                  first, seats, horizon, policy_tables(policy, others), streams)
    out, at = [], 0
    for r, n in zip(repeat.tolist(), worlds.tolist(), strict=True):
        out.append(values[at:at + r * n].reshape(r, n))
        at += r * n
    return out


def _table_kernels(engine: Engine, policy: PlayoutPolicy, name: str) -> object:
    if policy.kind == RANDOM_PLAY:
        raise ValueError("a random_play table draws from playout streams: no plain choice")
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError(f"{name} runs on the numba backend only")
    return kernels


def policy_scores(engine: Engine, games: np.ndarray, policy: PlayoutPolicy) -> np.ndarray:
    """``float64[n, A]``: the scores ``policy`` (a ``LINEAR`` or ``GREEDY`` table) gives the
    legal actions of the acting player of each listed running game of ``engine``
    (``numba`` backend), ``-inf`` for the other actions: computed from the game's state by
    :mod:`uno_env.engine.compiled.scoring`, the numbers the numpy scores of that
    player's observation give (:mod:`uno_env.engine.scoring`)."""
    return _table_kernels(engine, policy, "policy_scores").scores(
        engine.state, np.ascontiguousarray(games, np.int64), policy_tables(policy, policy))


def policy_actions(engine: Engine, games: np.ndarray, policy: PlayoutPolicy) -> np.ndarray:
    """``int64[n]``: the action ``policy`` (a ``LINEAR`` or ``GREEDY`` table) picks for the
    acting player of each listed running game of ``engine`` (``numba`` backend), scored
    from the game's state by the compiled scorer the playouts use: the action the agent's
    ``act`` picks from that player's observation."""
    return _table_kernels(engine, policy, "policy_actions").choose(
        engine.state, np.ascontiguousarray(games, np.int64), policy_tables(policy, policy))
