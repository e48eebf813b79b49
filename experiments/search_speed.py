"""Decisions per second of a search agent, one game at a time and in a batch of games.

    python experiments/search_speed.py --spec ismcts --players 2 --batch 1 --batch 64

Plays the agent in every seat of ``--batch`` games at once for ``--decisions``
calls and prints decisions per second of wall time and of process CPU time (the
CPU figure is what the agent costs on its own core when the machine is shared),
with the machine's load average before and after.
``--python-playouts`` times a search with its playouts stepped by the agents in
Python (the way before compiled playouts: the reference the speed-up is measured
against).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("search_speed", __name__)

import argparse
import os
import sys

from uno_agents import make_agent
from uno_env import Rules
from uno_env.cli import run_command
from uno_env.decision_speed import decisions_per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="ismcts")
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, action="append", help="games at once (repeat)")
    parser.add_argument("--decisions", type=int, default=40, help="calls per batch size")
    parser.add_argument("--python-playouts", action="store_true",
                        help="step the playouts' agents in Python (the reference)")
    args = parser.parse_args()
    rules = Rules.preset(args.preset, num_players=args.players)
    agent = make_agent(args.spec)
    if args.python_playouts:
        agent.compiled_playouts = False
    decisions_per_second(agent, rules, 1, 20)          # warm-up: kernels, caches
    for batch in args.batch or [1]:
        before = load_average()
        wall, cpu = decisions_per_second(agent, rules, batch, args.decisions)
        print(f"{args.spec}, {args.preset}, {args.players} players, {batch} games at once: "
              f"{wall:.1f} decisions/s (wall), {cpu:.1f} decisions/s (CPU), load average "
              f"{before} -> {load_average()}")


def load_average() -> str:
    """The machine's one-minute load average (``?`` where the system has none)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "?"


if __name__ == "__main__":
    sys.exit(run_command(main, "search_speed"))
