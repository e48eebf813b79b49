"""Seat-rotated duplicate-deal games between agents, in one batch (a quick evaluator).

Every deal (seed) is played once under each rotation of the line-up, so every
agent sits in every seat equally often on the same cards. Used by the tuning
script and for quick strength checks; the full tournament (ratings, tables,
shards) is :mod:`uno_env.tournament`.

    python experiments/seated.py tuned random_play --players 2 --deals 2000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents import make_agent
from agents.base import BatchAgent, choose_in_parts
from uno_env import Engine, Rules
from uno_env.cli import run_command
from uno_env.simulate import wilson_interval


def play_rotated(rules: Rules, lineup: list[BatchAgent], seeds: np.ndarray
                 ) -> np.ndarray:
    """Play the deals ``seeds`` under every rotation of ``lineup`` (one agent per seat);
    returns ``int64[D * P]``: the index in ``lineup`` of each game's winner (-1:
    truncated). Game ``r * D + d`` is deal ``seeds[d]`` with agent ``i`` in seat
    ``(i + r) % P``."""
    p = rules.num_players
    if len(lineup) != p:
        raise ValueError(f"lineup has {len(lineup)} agents for {p} seats")
    deals = len(seeds)
    n = deals * p
    engine = Engine(rules, n, np.tile(seeds, p))
    rotation = np.repeat(np.arange(p), deals)
    agent_of_seat = (np.arange(p)[None, :] - rotation[:, None]) % p     # [game, seat]
    rng = np.random.default_rng(int(seeds[0]))
    while not engine.state.done.all():
        live = np.flatnonzero(~engine.state.done)
        seats = engine.state.current[live]
        who = agent_of_seat[live, seats]
        obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
        parts = [(agent, who == i) for i, agent in enumerate(lineup)]
        engine.step(choose_in_parts(parts, engine, live, obs, masks, rng), games=live)
    winner = engine.state.winner
    return np.where(winner >= 0, agent_of_seat[np.arange(n), np.maximum(winner, 0)], -1)


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
