"""Compile the kernels once, into numba's cache: ``python -m uno_env.engine.compiled``.

The first engine of a new install would otherwise spend about a minute compiling;
the Makefile runs this right after installing. The compiled code does not depend on
the rules (they are data), so one small engine compiles everything.
"""

from __future__ import annotations

import time

import numpy as np

from ...actions import NUM_ACTIONS
from ..core import Engine
from ..playout import LINEAR, RANDOM_PLAY, PlayoutPolicy, policy_actions
from . import CACHE
from .kernels import PARALLEL_GAMES


def warm_up() -> float:
    """Run every kernel once (reset, masks, observation, steps, random play, policy
    playouts, the search's worlds, whole games by a policy per seat, and the kernels over
    several threads); returns seconds. The cache's manifest then lists the
    new files."""
    start = time.perf_counter()
    engine = Engine(num_games=2, seed=0, backend="numba")
    mask = engine.legal_action_mask()
    engine.observe()
    engine.observe(games=[0])
    engine.step(mask.argmax(axis=1))
    engine.step(engine.legal_action_mask([1]).argmax(axis=1), games=[1])
    engine.reset(games=np.array([0]))
    streams = np.zeros((2, 2), np.uint64)
    engine.play_random(np.array([0, 1]), (engine.current_player + 1) % 4, streams)
    engine.reset()
    # one kernel plays every kind of score-table policy (the kind is data)
    engine.play_policy(np.array([0, 1]), np.zeros(2, np.int64),
                       PlayoutPolicy(RANDOM_PLAY, np.zeros(NUM_ACTIONS)), horizon=4,
                       streams=streams)
    # the search: worlds dealt and played out, and the prior's choice by its table
    tuned = PlayoutPolicy(LINEAR, np.zeros(NUM_ACTIONS))
    engine.world_values([0], [engine.legal_action_mask([0])[0].nonzero()[0][:1]], [2], tuned,
                        horizon=4, rng=np.random.default_rng(0))
    engine.deal_worlds([0], [2], np.random.default_rng(0))
    policy_actions(tuned, engine.observe(games=[0]), engine.legal_action_mask([0]))
    # a tournament of score-table agents: whole games with a policy per seat
    engine.play_policies([0, 1], [tuned], np.zeros((2, engine.num_players), np.int64),
                         horizon=4)
    # the same kernels over several threads (an engine given threads, large calls)
    wide = Engine(num_games=PARALLEL_GAMES, seed=0, backend="numba", threads=2)
    wide.observe()
    wide.step(wide.legal_action_mask().argmax(axis=1))
    wide.play_policies(np.arange(PARALLEL_GAMES), [tuned],
                       np.zeros((PARALLEL_GAMES, wide.num_players), np.int64), horizon=2)
    CACHE.record()
    return time.perf_counter() - start


if __name__ == "__main__":
    seconds = warm_up()
    print(f"engine kernels ready in {seconds:.0f} s (cached in {CACHE.directory})")
