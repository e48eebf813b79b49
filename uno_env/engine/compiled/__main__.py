"""Compile the kernels ahead of time, into numba's cache:
``python -m uno_env.engine.compiled [GROUP ...]``.

Each kernel compiles on its first call (with the functions it calls), so a
command compiles only the kernels it uses; this compiles them before that, by
groups (default: every group): ``play`` (reset, masks, observations, steps),
``seated`` (tournaments of score-table agents, :func:`uno_env.engine.playouts.play_policies`),
``search`` (the search's worlds, playouts and prior), ``playouts`` (random play,
policy playouts, a learner's opponents, packed observations) and ``threads`` (the
kernels over several threads). ``make run`` compiles ``play seated search``. The
compiled code does not depend on the rules (they are data), so one small engine
compiles everything.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from ...actions import NUM_ACTIONS
from ..core import Engine
from ..packed_rows import observe_packed
from ..playout import LINEAR, RANDOM_PLAY, PlayoutPolicy
from ..playouts import play_opponents, play_policies, play_policy, play_random
from ..search import deal_worlds, policy_actions, world_values
from . import CACHE
from .backend import PARALLEL_GAMES

#: A linear score-table policy (its numbers do not matter to the compiled code).
_LINEAR = PlayoutPolicy(LINEAR, np.zeros(NUM_ACTIONS))


def _engine() -> Engine:
    return Engine(num_games=2, seed=0, backend="numba")


def play() -> None:
    """Reset, legal masks, observations and steps, of all games and of some."""
    engine = _engine()
    mask = engine.legal_action_mask()
    engine.observe()
    engine.observe(games=[0])
    engine.step(mask.argmax(axis=1))
    engine.step(engine.legal_action_mask([1]).argmax(axis=1), games=[1])
    engine.reset(games=np.array([0]))


def seated() -> None:
    """A tournament of score-table agents: whole games with a policy per seat."""
    engine = _engine()
    play_policies(engine, [0, 1], [_LINEAR], np.zeros((2, engine.num_players), np.int64),
                  horizon=4)


def search() -> None:
    """The search: worlds dealt and played out, and the prior's choice by its table."""
    engine = _engine()
    world_values(engine, [0], [engine.legal_action_mask([0])[0].nonzero()[0][:1]], [2], _LINEAR,
                 horizon=4, rng=np.random.default_rng(0))
    deal_worlds(engine, [0], [2], np.random.default_rng(0))
    policy_actions(engine, np.array([0]), _LINEAR)


def playouts() -> None:
    """Random play, playouts by a policy (every kind of score table is data), a learner's
    opponents and packed observations."""
    engine = _engine()
    streams = np.zeros((2, 2), np.uint64)
    play_random(engine, np.array([0, 1]), (engine.current_player + 1) % 4, streams)
    engine.reset()
    play_policy(engine, np.array([0, 1]), np.zeros(2, np.int64),
                PlayoutPolicy(RANDOM_PLAY, np.zeros(NUM_ACTIONS)), horizon=4,
                streams=streams)
    play_opponents(engine, np.array([0, 1]), (engine.current_player + 1) % 4, _LINEAR)
    observe_packed(engine)


def threads() -> None:
    """The kernels over several threads (an engine given threads, large calls)."""
    wide = Engine(num_games=PARALLEL_GAMES, seed=0, backend="numba", threads=2)
    wide.observe()
    wide.step(wide.legal_action_mask().argmax(axis=1))
    play_policies(wide, np.arange(PARALLEL_GAMES), [_LINEAR],
                  np.zeros((PARALLEL_GAMES, wide.num_players), np.int64), horizon=2)


GROUPS: dict[str, Callable[[], None]] = {
    "play": play, "seated": seated, "search": search, "playouts": playouts, "threads": threads}


def warm_up(groups: list[str] | None = None) -> float:
    """Run the kernels of ``groups`` (names of :data:`GROUPS`, default all) once; returns
    seconds. The cache's manifest then lists the new files."""
    start = time.perf_counter()
    for name in GROUPS if groups is None else groups:
        GROUPS[name]()
    CACHE.record()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m uno_env.engine.compiled",
                                     description="Compile the engine kernels into the cache.")
    parser.add_argument("groups", nargs="*", metavar="GROUP",
                        help=f"kernel groups to compile: {', '.join(GROUPS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.groups if name not in GROUPS]
    if unknown:
        parser.error(f"unknown kernel group {', '.join(unknown)}; the groups are "
                     f"{', '.join(GROUPS)}")
    seconds = warm_up(args.groups or None)
    print(f"engine kernels ready in {seconds:.0f} s (cached in {CACHE.directory})")


if __name__ == "__main__":
    main()
