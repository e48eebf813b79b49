"""Seat-rotated duplicate-deal games between agents, in one batch (a quick evaluator).

Every deal (seed) is played once under each rotation of the line-up
(:func:`uno_env.evaluation.play_rotated`), so every agent sits in every seat equally
often on the same cards. For quick strength checks; the full tournament (ratings,
tables, shards) is :mod:`uno_env.tournament`.

    python experiments/seated.py tuned random_play --players 2 --deals 2000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents import make_agent
from agents.base import BatchAgent
from uno_env import Rules
from uno_env.cli import run_command
from uno_env.evaluation import play_rotated
from uno_env.simulate import wilson_interval


def win_rate(rules: Rules, agent: BatchAgent, opponent: BatchAgent, deals: int, seed: int = 0
             ) -> tuple[float, float, float, int]:
    """``(rate, low, high, games)``: ``agent`` against ``P - 1`` copies of ``opponent``,
    with its 95% Wilson interval."""
    lineup = [agent] + [opponent] * (rules.num_players - 1)
    winners = play_rotated(rules, lineup, seed + np.arange(deals))
    wins, games = int((winners == 0).sum()), winners.size
    lo, hi = wilson_interval(wins, games)
    return wins / games, lo, hi, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent")
    parser.add_argument("opponent")
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = Rules.preset(args.preset, num_players=args.players)
    start = time.perf_counter()
    rate, lo, hi, games = win_rate(rules, make_agent(args.agent), make_agent(args.opponent),
                                   args.deals, args.seed)
    print(f"{args.agent} vs {args.players - 1} x {args.opponent} on {args.preset}: "
          f"{100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] over {games} games "
          f"({args.deals} deals x {args.players} seatings), {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    sys.exit(run_command(main, "seated"))
