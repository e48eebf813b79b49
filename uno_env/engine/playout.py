"""Playout policies the compiled engine plays by itself: the linear heuristics as tables.

A search plays thousands of short games per decision with a fast policy. Asking a
Python agent for every step of every playout costs far more than the steps, so
the policies that score actions by fixed tables can instead be handed to the
engine (:func:`uno_env.engine.playouts.play_policy`), which plays whole playouts inside
one compiled call. A :class:`PlayoutPolicy` is such a table; the agents build
theirs (``playout_policy`` of ``greedy``, ``tuned``, ``defender`` ...). A policy's
scores are those of :mod:`uno_env.engine.scoring` (the numpy reference the agents'
``act`` scores by), computed in compiled code from the game's state by its twin
:mod:`uno_env.engine.compiled.scoring`, so the engine picks exactly the actions
their ``act`` picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..actions import NUM_ACTIONS
from .rng import GOLDEN, mix64, next_random
from .scoring import DYNAMIC

#: How a policy scores (:attr:`PlayoutPolicy.kind`).
LINEAR, GREEDY, RANDOM_PLAY = 0, 1, 2


@dataclass(frozen=True)
class PlayoutPolicy:
    """A policy the compiled engine can play: the best legal action under a score
    table. ``kind`` says how the observation adds to ``static`` (``float64[A]``, the
    score of each action on its own):

    * ``LINEAR``: plus ``weights @ features`` of the dynamic features (``DYNAMIC``),
      less ``answer_relief[a]`` for a play answering a pending penalty;
    * ``GREEDY``: plus ``color_weight[a]`` times the hand's cards of the action's
      color; a challenge scores 5 when the offender holds at least ``threshold``
      cards (else 0) and a target action loses the target's hand size;
    * ``RANDOM_PLAY``: plus half a uniform number per action in [0, 1), drawn from the
      game's playout stream (:func:`stream_noise`): uniform within the best ``static``
      tier.
    """

    kind: int
    static: np.ndarray
    weights: np.ndarray = field(default_factory=lambda: np.zeros(len(DYNAMIC)))
    answer_relief: np.ndarray = field(default_factory=lambda: np.zeros(NUM_ACTIONS))
    color_weight: np.ndarray = field(default_factory=lambda: np.zeros(NUM_ACTIONS))
    threshold: float = 0.0


#: The tables of the last pairs of policies asked for, by identity (see policy_tables).
_KEPT: dict[tuple[int, int], tuple[PlayoutPolicy, PlayoutPolicy, tuple]] = {}


def policy_tables(own: PlayoutPolicy, others: PlayoutPolicy
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray]:
    """The two policies as the kernel takes them, row 0 for the playout's own seat and
    row 1 for the others: ``(kinds int64[2], static float64[2, A], weights float64[2,
    F], answer_relief float64[2, A], color_weight float64[2, A], threshold
    float64[2])``."""
    kept = _KEPT.get((id(own), id(others)))
    if kept is not None and kept[0] is own and kept[1] is others:
        return kept[2]   # a search asks for the same pair at every decision
    pair = (own, others)
    for p in pair:
        if p.kind not in (LINEAR, GREEDY, RANDOM_PLAY):
            raise ValueError(f"unknown playout policy kind {p.kind!r}")
    tables = (np.array([p.kind for p in pair], np.int64),
              np.stack([np.asarray(p.static, np.float64) for p in pair]),
              np.stack([np.asarray(p.weights, np.float64) for p in pair]),
              np.stack([np.asarray(p.answer_relief, np.float64) for p in pair]),
              np.stack([np.asarray(p.color_weight, np.float64) for p in pair]),
              np.array([p.threshold for p in pair], np.float64))
    for table in tables:
        table.flags.writeable = False   # shared by the callers of the same pair
    if len(_KEPT) >= 16:
        _KEPT.clear()
    _KEPT[id(own), id(others)] = (own, others, tables)
    return tables


def seat_tables(policies: Sequence[PlayoutPolicy]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                           np.ndarray]:
    """``policies`` as the kernel of :func:`uno_env.engine.playouts.play_policies` takes them, one
    row each, in the order of :func:`policy_tables`."""
    if not policies:
        raise ValueError("no policies")
    for p in policies:
        if p.kind not in (LINEAR, GREEDY, RANDOM_PLAY):
            raise ValueError(f"unknown playout policy kind {p.kind!r}")
    tables = (np.array([p.kind for p in policies], np.int64),
              np.stack([np.asarray(p.static, np.float64) for p in policies]),
              np.stack([np.asarray(p.weights, np.float64) for p in policies]),
              np.stack([np.asarray(p.answer_relief, np.float64) for p in policies]),
              np.stack([np.asarray(p.color_weight, np.float64) for p in policies]),
              np.array([p.threshold for p in policies], np.float64))
    for table in tables:
        table.flags.writeable = False   # typed as policy_tables' are: one compiled scoring
    return tables


def stream_noise(streams: np.ndarray) -> np.ndarray:
    """``float64[n, A]``: one uniform number in [0, 1) per action for the next decision
    of each stream ``(key, counter)`` of ``streams`` (``uint64[n, 2]``, advanced by one
    here), the numbers a ``RANDOM_PLAY`` policy adds to its tiers in compiled playouts."""
    base = next_random(streams[:, 0], streams[:, 1])
    streams[:, 1] += np.uint64(1)
    columns = (np.arange(NUM_ACTIONS, dtype=np.uint64) + np.uint64(1)) * GOLDEN
    return (mix64(base[:, None] + columns[None, :]) >> np.uint64(11)) * 2.0 ** -53


def uses_streams(*policies: PlayoutPolicy) -> bool:
    """Whether any of ``policies`` draws random numbers (needs playout streams)."""
    return any(p.kind == RANDOM_PLAY for p in policies)
