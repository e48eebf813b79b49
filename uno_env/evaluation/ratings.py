"""Ratings from duplicate-deal games, with 95% intervals from resampling deals.

* Heads-up: a Bradley-Terry model fitted to the head-to-head wins (Hunter's MM
  algorithm), on the Elo scale (a 400-point gap is 10:1 odds), the mean rating 0.
  Every pair that met gets half a win each way as a prior, so an agent that never
  lost keeps a finite rating; against hundreds of games per pair it moves nothing.
* At 3+ players: openskill's Plackett-Luce model fed with the finishing order of
  every game, deal by deal (the rating ``mu``; the ``eval`` extra). One pass of this
  online update depends on the order of the games (the last deals weigh most), so
  with resamples the rating is the mean over them, each a pass over the deals in a
  random order.

Both get their intervals the same way: the deals are drawn with replacement
(:func:`~.intervals.resample_weights`) and the ratings computed again on each
resample; differences between two agents are paired the same way (one resample
rates both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .intervals import ROUNDS, bootstrap_interval

#: Elo points per factor e of the odds.
ELO = 400 / math.log(10)
#: Wins each way every pair that met is given before the games count.
PRIOR = 0.5


@dataclass
class Ratings:
    """One rating per agent, its bootstrap samples and what kind of rating it is."""

    labels: list[str]
    kind: str              # "elo" (Bradley-Terry) or "openskill"
    value: np.ndarray      # float[k] the rating on all the deals
    samples: np.ndarray    # float[rounds, k] the ratings on resampled deals

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low[k], high[k])``: the 95% bootstrap interval of each rating."""
        if not len(self.samples):
            nan = np.full(len(self.labels), math.nan)
            return nan, nan
        return bootstrap_interval(self.samples)

    def difference(self, i: int, j: int) -> dict[str, float]:
        """Rating of ``i`` minus rating of ``j`` with its 95% interval, paired by resample."""
        mean = float(self.value[i] - self.value[j])
        if not len(self.samples):
            return {"mean": mean, "low": math.nan, "high": math.nan}
        low, high = bootstrap_interval(self.samples[:, i] - self.samples[:, j])
        return {"mean": mean, "low": float(low), "high": float(high)}

    def to_list(self) -> list[dict[str, Any]]:
        """JSON-ready rows: label, rating and interval."""
        low, high = self.interval()
        return [{"label": label, "kind": self.kind, "rating": float(v), "low": float(lo),
                 "high": float(hi)}
                for label, v, lo, hi in zip(self.labels, self.value, low, high, strict=True)]


def resample_deals(deals: int, rounds: int, seed: int = 0) -> np.ndarray:
    """``int[rounds, deals]``: the deals drawn (with replacement, in draw order) in each
    bootstrap resample; deterministic in ``seed``."""
    rng = np.random.default_rng([seed, deals, rounds])
    return rng.integers(0, deals, size=(rounds, deals))


def bradley_terry(wins: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings (mean 0) of ``wins[..., k, k]`` (row beat column),
    for any leading batch axes; :data:`PRIOR` wins each way for every pair that met."""
    wins = np.asarray(wins, np.float64)
    met = (wins + np.swapaxes(wins, -1, -2)) > 0
    wins = wins + PRIOR * met
    games = wins + np.swapaxes(wins, -1, -2)
    total = wins.sum(axis=-1)
    strength = np.ones(wins.shape[:-1])
    for _ in range(iterations):
        pair = strength[..., :, None] + strength[..., None, :]
        new = total / np.maximum((games / pair).sum(axis=-1), 1e-300)
        new /= np.exp(np.log(np.maximum(new, 1e-300)).mean(axis=-1, keepdims=True))
        done = np.allclose(new, strength, rtol=1e-10, atol=0)
        strength = new
        if done:
            break
    log = ELO * np.log(np.maximum(strength, 1e-300))
    return log - log.mean(axis=-1, keepdims=True)


def heads_up(labels: Sequence[str], deal_wins: np.ndarray, rounds: int = ROUNDS,
             seed: int = 0) -> Ratings:
    """Bradley-Terry :class:`Ratings` from per-deal head-to-head wins ``[D, k, k]``."""
    deal_wins = np.asarray(deal_wins, np.float64)
    value = bradley_terry(deal_wins.sum(axis=0))
    d, k = deal_wins.shape[0], deal_wins.shape[1]
    draws = resample_deals(d, rounds, seed)
    counts = np.stack([np.bincount(row, minlength=d) for row in draws]) if rounds else (
        np.zeros((0, d)))
    resampled = np.einsum("rd,dij->rij", counts, deal_wins)
    samples = bradley_terry(resampled) if rounds else np.zeros((0, k))
    return Ratings(list(labels), "elo", value, samples)


def _openskill(k: int, entries: np.ndarray, standing: np.ndarray,
               games_of_deal: list[np.ndarray], order: np.ndarray) -> np.ndarray:
    """openskill mu of ``k`` agents after the games of the deals ``order``, in that order."""
    from openskill.models import PlackettLuce  # the eval extra

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(k)]
    for deal in order:
        for g in games_of_deal[deal]:
            seats = entries[g]
            new = model.rate([[ratings[a]] for a in seats], ranks=[int(r) for r in standing[g]])
            for a, team in zip(seats, new, strict=True):
                ratings[a] = team[0]
    return np.array([r.mu for r in ratings])


def multi_player(labels: Sequence[str], entries: np.ndarray, standing: np.ndarray,
                 deal: np.ndarray, seating: np.ndarray, rounds: int = ROUNDS,
                 seed: int = 0) -> Ratings:
    """openskill :class:`Ratings` of games with ``entries[N, P]`` (the agent of each seat),
    ``standing[N, P]`` (finishing order, 0 best), their ``deal`` and ``seating``: the
    games deal by deal, seating by seating within a deal (the same for any batch); the
    rating is the mean over ``rounds`` resamples (one pass in deal order without)."""
    deals = int(deal.max()) + 1 if len(deal) else 0
    by_deal = np.lexsort((seating, deal))
    cuts = np.searchsorted(deal[by_deal], np.arange(1, deals))
    games_of_deal = np.split(by_deal, cuts)
    k = len(labels)
    samples = np.array([_openskill(k, entries, standing, games_of_deal, order)
                        for order in resample_deals(deals, rounds, seed)]).reshape(-1, k)
    value = samples.mean(axis=0) if rounds else _openskill(
        k, entries, standing, games_of_deal, np.arange(deals))
    return Ratings(list(labels), "openskill", value, samples)
