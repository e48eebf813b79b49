"""Decisions per second of a search agent, one game at a time and in a batch of games.

    python experiments/search_speed.py --spec ismcts --players 2 --batch 1 --batch 64

Plays the agent in every seat of ``--batch`` games at once for ``--decisions``
calls and prints decisions per second of wall time and of process CPU time (the
CPU figure is what the agent costs on its own core when the machine is shared).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents import choose_actions, make_agent
from uno_env import Engine, Rules
from uno_env.cli import run_command


def decisions_per_second(spec: str, rules: Rules, batch: int, calls: int, seed: int = 0
                         ) -> tuple[float, float]:
    """``(per wall second, per CPU second)`` over ``calls`` calls on ``batch`` games."""
    agent = make_agent(spec)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="ismcts")
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, action="append", help="games at once (repeat)")
    parser.add_argument("--decisions", type=int, default=40, help="calls per batch size")
    args = parser.parse_args()
    rules = Rules.preset(args.preset, num_players=args.players)
    decisions_per_second(args.spec, rules, 1, 2)          # warm-up: kernels, caches
    for batch in args.batch or [1]:
        wall, cpu = decisions_per_second(args.spec, rules, batch, args.decisions)
        print(f"{args.spec}, {args.preset}, {args.players} players, {batch} games at once: "
              f"{wall:.1f} decisions/s (wall), {cpu:.1f} decisions/s (CPU)")


if __name__ == "__main__":
    sys.exit(run_command(main, "search_speed"))
