"""Tune the feature weights of the ``tuned`` agent by the cross-entropy method.

Each generation samples ``--population`` weight vectors from a Gaussian, plays
every one of them against ``random_play`` on the same deals (seat-rotated, all
candidates in one batch on the engine: a candidate is a row-wise weight vector),
keeps the best ``--elite`` and refits the Gaussian to them. Starts from
``--start``: the ``defender`` weights, the ``tuned`` weights of the table size
nearest ``--players`` (``tuned:N``: nearest ``N``), or a JSON file of weights by
feature name (features it does not name start at 0). Prints every generation's
mean weights as JSON.

    python experiments/tune_heuristic.py --players 2 --generations 12

Games are played on ``--players`` seats, one candidate against ``P - 1``
``random_play`` opponents (``--opponent`` names another one, which must play
without an rng: e.g. ``--opponent tuned`` searches for weights that exploit the
tuned heuristic itself); fitness is the win rate over all seatings of the
generation's deals (new deals every generation, from the ``tuning`` deals of stream
``--seed``: :mod:`uno_env.deals`). A generation's fitness rests on a few hundred
games per candidate, so its mean is noisy: ``--pick DEALS`` finally plays the start
and every generation's mean on the same ``DEALS`` deals, the ``selection`` deals of
stream ``--pick-seed``, and prints the best of them as the weight set to paste into
``TUNED_WEIGHTS`` of ``agents/heuristics.py`` (under its table size).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("tune_heuristic", __name__)

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import trange

from uno_agents import Agent, RandomPlayAgent, make_agent
from uno_agents.base import BatchAgent, check_batch, masked_argmax
from uno_agents.features import FEATURES, feature_scores
from uno_agents.heuristics import DEFENDER_WEIGHTS, TUNED_WEIGHTS, nearest_size, weight_vector
from uno_agents.random_play import RANDOM_PLAY_TIERS
from uno_env import Engine, Rules
from uno_env.cli import run_command
from uno_env.deals import deal_seed
from uno_env.engine.rng import GOLDEN, mix64, next_random, seed_key
from uno_env.evaluation import play_rotated


class PopulationAgent(Agent):
    """Plays candidate ``games[i] % D // deals_per`` with its own weights (batched tuning)."""

    name = "population"

    def __init__(self, weights: np.ndarray, deals_per_candidate: int) -> None:
        self.weights = weights
        self.deals_per = deals_per_candidate
        self.deals = weights.shape[0] * deals_per_candidate

    def candidate(self, games: np.ndarray) -> np.ndarray:
        return games % self.deals // self.deals_per

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        raise TypeError("PopulationAgent needs the game indices: use act_in")

    def act_in(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        w = self.weights[self.candidate(games)]
        return masked_argmax(feature_scores(observations, w, masks), masks)


class PairedRandomPlay(RandomPlayAgent):
    """``random_play`` with common random numbers across the candidates.

    Its choices in a game are drawn from a counter-based stream keyed by the game's
    deal and seat rotation (not the candidate) and advanced once per choice in that
    game. Two candidates that play a deal alike therefore meet exactly the same
    opponents' choices, and the difference of their win rates measures their
    different decisions rather than the opponents' luck: the comparison a
    generation rests on gets sharper for the same number of games. Each opponent
    still plays ``random_play`` exactly (uniform within the best legal tier).
    """

    uses_observations = False

    def __init__(self, deals_per_candidate: int, total_deals: int, seed: int) -> None:
        self.deals_per, self.total, self.seed = deals_per_candidate, total_deals, seed
        self.calls: np.ndarray | None = None

    def act_in(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        if self.calls is None:
            self.calls = np.zeros(engine.num_games, np.uint64)
        rotation, deal = games // self.total, games % self.total % self.deals_per
        key = seed_key(self.seed + rotation * self.deals_per + deal)
        base = next_random(key, self.calls[games])
        self.calls[games] += np.uint64(1)
        columns = (np.arange(masks.shape[1], dtype=np.uint64) + np.uint64(1)) * GOLDEN
        noise = (mix64(base[:, None] + columns[None, :]) >> np.uint64(11)) * 2.0 ** -53
        return masked_argmax(RANDOM_PLAY_TIERS + 0.5 * noise, masks)


def fitness(rules: Rules, weights: np.ndarray, deals: int, seed: int,
            opponent_name: str = "random_play") -> np.ndarray:
    """Win rate of each weight vector against ``opponent_name`` on the same ``deals``
    (and, for ``random_play``, the same opponents' random choices, see
    :class:`PairedRandomPlay`; any other opponent must play without an rng, so that
    every candidate meets the same choices in the same positions)."""
    k = weights.shape[0]
    pop = PopulationAgent(weights, deals)
    seeds = np.tile(seed + np.arange(deals), k)      # every candidate on the same deals
    opponent = paired_opponent(opponent_name, deals, k * deals, seed)
    lineup = [pop] + [opponent] * (rules.num_players - 1)
    winners = play_rotated(rules, lineup, seeds)
    candidate = pop.candidate(np.arange(winners.size))
    return np.bincount(candidate, weights=winners == 0, minlength=k) / (
        winners.size / k)


def paired_opponent(name: str, deals_per_candidate: int, total_deals: int, seed: int
                    ) -> BatchAgent:
    """The opponent ``name`` with common random numbers across candidates:
    :class:`PairedRandomPlay` for ``random_play``, else an agent that uses no rng."""
    if name == "random_play":
        return PairedRandomPlay(deals_per_candidate, total_deals, seed)
    agent = make_agent(name)
    if getattr(agent, "uses_rng", True):
        raise ValueError(f"--opponent {name!r} draws random numbers, so candidates would "
                         f"meet different choices; use random_play or an agent without "
                         f"an rng (greedy, defender, tuned)")
    return agent


def start_weights(start: str, players: int) -> np.ndarray:
    """The weights ``--start`` names (see the module doc)."""
    if start == "defender":
        return weight_vector(DEFENDER_WEIGHTS)
    if start.partition(":")[0] == "tuned":
        size = int(start.partition(":")[2] or players)
        sizes = np.array(sorted(TUNED_WEIGHTS))
        return weight_vector(TUNED_WEIGHTS[int(sizes[nearest_size(np.array([size]), sizes)[0]])])
    named = json.loads(Path(start).read_text())
    return weight_vector({f: float(named.get(f, 0.0)) for f in FEATURES} | named)


def as_json(weights: np.ndarray) -> str:
    return json.dumps({f: round(float(w), 2) for f, w in zip(FEATURES, weights, strict=True)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--generations", type=int, default=12)
    parser.add_argument("--population", type=int, default=24)
    parser.add_argument("--elite", type=int, default=6)
    parser.add_argument("--deals", type=int, default=200, help="deals per candidate")
    parser.add_argument("--sigma", type=float, default=8.0, help="initial spread")
    parser.add_argument("--start", default="defender",
                        help="defender, tuned, tuned:N or a JSON file of weights")
    parser.add_argument("--seed", type=int, default=0, help="stream of the tuning deals")
    parser.add_argument("--pick", type=int, default=0, metavar="DEALS",
                        help="re-measure every generation's mean on DEALS deals, keep the best")
    parser.add_argument("--pick-seed", type=int, default=4242,
                        help="stream of the selection deals of --pick")
    parser.add_argument("--opponent", default="random_play",
                        help="the agent every other seat plays: random_play or one that "
                             "uses no rng (greedy, defender, tuned)")
    args = parser.parse_args()
    rules = Rules.preset(args.preset, num_players=args.players)
    rng = np.random.default_rng(args.seed)
    mean = start_weights(args.start, args.players)
    means = [mean]
    std = np.full(mean.size, args.sigma)
    start = time.perf_counter()
    for gen in trange(args.generations, desc="generations"):
        pop = mean + std * rng.standard_normal((args.population, mean.size))
        pop[0] = mean
        fit = fitness(rules, pop, args.deals,
                      deal_seed("tuning", args.seed, gen * args.deals, args.deals), args.opponent)
        elite = pop[np.argsort(fit)[-args.elite:]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.5
        means.append(mean)
        print(f"generation {gen}: mean weights {100 * fit[0]:.1f}%, best {100 * fit.max():.1f}%"
              f", population mean {100 * fit.mean():.1f}%; new mean: {as_json(mean)}")
    if args.pick:
        fit = fitness(rules, np.stack(means), args.pick,
                      deal_seed("selection", args.pick_seed, 0, args.pick), args.opponent)
        for i, f in enumerate(fit):
            print(f"{'start' if i == 0 else f'generation {i - 1}'}: {100 * f:.1f}% over "
                  f"{args.pick * args.players} games")
        mean = means[int(fit.argmax())]
    print(f"{time.perf_counter() - start:.0f} s; tuned weights:")
    print(as_json(mean))


if __name__ == "__main__":
    sys.exit(run_command(main, "tune_heuristic"))
