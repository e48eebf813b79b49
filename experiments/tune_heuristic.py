"""Tune the feature weights of the ``tuned`` agent by the cross-entropy method.

Each generation samples ``--population`` weight vectors from a Gaussian, plays
every one of them against ``random_play`` on the same deals (seat-rotated, all
candidates in one batch on the engine: a candidate is a row-wise weight vector),
keeps the best ``--elite`` and refits the Gaussian to them. Starts from the
``--start`` agent's weights (``defender`` or ``tuned``). Prints the final mean
weights as a Python dict to paste into ``agents/heuristics.py`` (``TUNED_WEIGHTS``).

    python experiments/tune_heuristic.py --players 2 --generations 12

Games are played on ``--players`` seats, one candidate against ``P - 1``
``random_play`` opponents; fitness is the win rate over all seatings of the
generation's deals (new deals every generation).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tqdm import trange

from agents import Agent, RandomPlayAgent
from agents.base import check_batch, masked_argmax
from agents.features import FEATURES, feature_scores
from agents.heuristics import DEFENDER_WEIGHTS, TUNED_WEIGHTS, weight_vector
from uno_env import Engine, Rules

try:
    from experiments.seated import play_rotated
except ImportError:  # run as a script from the experiments folder
    from seated import play_rotated  # type: ignore[no-redef]


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
        return masked_argmax(feature_scores(observations, w), masks)


def fitness(rules: Rules, weights: np.ndarray, deals: int, seed: int) -> np.ndarray:
    """Win rate of each weight vector against ``random_play`` on the same ``deals``."""
    k = weights.shape[0]
    pop = PopulationAgent(weights, deals)
    seeds = np.tile(seed + np.arange(deals), k)      # every candidate on the same deals
    lineup = [pop] + [RandomPlayAgent()] * (rules.num_players - 1)
    winners = play_rotated(rules, lineup, seeds)
    candidate = pop.candidate(np.arange(winners.size))
    return np.bincount(candidate, weights=winners == 0, minlength=k) / (
        winners.size / k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="official")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--generations", type=int, default=12)
    parser.add_argument("--population", type=int, default=24)
    parser.add_argument("--elite", type=int, default=6)
    parser.add_argument("--deals", type=int, default=200, help="deals per candidate")
    parser.add_argument("--sigma", type=float, default=8.0, help="initial spread")
    parser.add_argument("--start", choices=("defender", "tuned"), default="defender")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = Rules.preset(args.preset, num_players=args.players)
    rng = np.random.default_rng(args.seed)
    mean = weight_vector(DEFENDER_WEIGHTS if args.start == "defender" else TUNED_WEIGHTS)
    std = np.full(mean.size, args.sigma)
    start = time.perf_counter()
    for gen in trange(args.generations, desc="generations"):
        pop = mean + std * rng.standard_normal((args.population, mean.size))
        pop[0] = mean
        fit = fitness(rules, pop, args.deals, args.seed + 1_000_000 * (gen + 1))
        elite = pop[np.argsort(fit)[-args.elite:]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.5
        print(f"generation {gen}: mean weights {100 * fit[0]:.1f}%, best {100 * fit.max():.1f}%"
              f", population mean {100 * fit.mean():.1f}%")
    print(f"{time.perf_counter() - start:.0f} s; tuned weights:")
    print("{" + ", ".join(f'"{f}": {w:.2f}' for f, w in zip(FEATURES, mean, strict=True)) + "}")


if __name__ == "__main__":
    main()
