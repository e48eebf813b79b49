"""Decisions per second of an agent that plays every seat, for the speed benchmarks.

A search agent's cost is all in its ``act_in`` calls, so only those are timed: the
engine's own steps between them are not. Both wall time and this process's CPU
time are reported: on a machine shared with other jobs the CPU figure is what the
agent costs on its own core.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..agent_registry import choose_actions
from ..engine import Engine
from ..rules import Rules


def decisions_per_second(agent: Any, rules: Rules, batch: int, calls: int, seed: int = 0
                         ) -> tuple[float, float]:
    """``(per wall second, per CPU second)``: decisions of ``agent`` (an agent object)
    in every seat of ``batch`` games at once, over ``calls`` calls; finished games are
    dealt again when all have ended."""
    engine = Engine(rules, batch, seed)
    rng = np.random.default_rng(seed)
    decisions, wall, cpu = 0, 0.0, 0.0
    for _ in range(calls):
        live = np.flatnonzero(~engine.state.done)
        if not live.size:
            engine.reset()
            live = np.arange(batch)
        obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
        w, c = time.perf_counter(), time.process_time()
        actions = choose_actions(agent, engine, live, obs, masks, rng)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        decisions += live.size
        engine.step(actions, games=live)
    return decisions / wall, decisions / cpu
