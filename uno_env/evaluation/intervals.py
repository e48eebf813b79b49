"""The one interval method of the project: a 95% normal interval of a mean over
independent units, and percentile intervals of bootstrap samples.

A win rate is the mean of per-unit values: the unit is a *deal* when deals are
replayed under several seatings (the games of one deal are not independent), a
game when every game has its own deal. Its interval is the normal interval of
that mean (the central limit theorem over units), cut to [0, 1] for a rate.
Ratings are not means; their intervals come from resampling deals
(:func:`resample_weights`, :func:`bootstrap_interval`). No other module computes an
interval (a test checks it).
"""

from __future__ import annotations

import math

import numpy as np

#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054
#: Bootstrap resamples of a rating when nothing else is asked for.
ROUNDS = 200


def mean_interval(values: np.ndarray) -> dict[str, float]:
    """The mean of per-unit ``values`` with its 95% normal interval over units
    (``nan`` bounds for fewer than two units)."""
    values = np.asarray(values, np.float64)
    n = len(values)
    mean = float(values.mean()) if n else math.nan
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return {"mean": mean, "low": mean - half, "high": mean + half}


def rate_interval(values: np.ndarray) -> tuple[float, float, float]:
    """``(rate, low, high)``: the mean of per-unit shares in [0, 1] and its
    :func:`mean_interval`, cut to [0, 1] (a rate is never outside it)."""
    r = mean_interval(values)
    if math.isnan(r["low"]):
        return r["mean"], math.nan, math.nan
    return r["mean"], max(0.0, r["low"]), min(1.0, r["high"])


def count_interval(successes: int, trials: int) -> tuple[float, float, float]:
    """:func:`rate_interval` of ``trials`` independent 0/1 units of which ``successes``
    are 1 (games that each have their own deal), without building the array."""
    if trials <= 0:
        return math.nan, math.nan, math.nan
    values = np.zeros(trials)
    values[:successes] = 1.0
    return rate_interval(values)


def win_rate(wins: np.ndarray, players: int) -> dict[str, float]:
    """An agent's win rate from its per-deal wins (each deal played once per seat):
    the rate, its :func:`rate_interval` over deals, the deals and the games."""
    rate, low, high = rate_interval(wins)
    return {"win_rate": rate, "low": low, "high": high, "deals": len(wins),
            "games": len(wins) * players}


def resample_weights(units: int, rounds: int, seed: int = 0) -> np.ndarray:
    """``int[rounds, units]``: how often each unit is drawn in each of ``rounds``
    bootstrap resamples (``units`` draws with replacement each; deterministic in
    ``seed``)."""
    rng = np.random.default_rng([seed, units, rounds])
    return rng.multinomial(units, np.full(units, 1.0 / units), size=rounds)


def bootstrap_interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 95% percentile interval (2.5% and 97.5% quantiles over axis 0) of bootstrap
    ``samples``."""
    low, high = np.percentile(np.asarray(samples, np.float64), [2.5, 97.5], axis=0)
    return low, high
