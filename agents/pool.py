"""A pool of opponents, one drawn per game and episode (self-play against past selves).

:class:`AgentPool` is a batch agent whose members are other agents: trained
snapshots, heuristics, random play. When an episode starts in a game, the pool
draws the member that plays every opponent seat of that game until the episode
ends, with the pool's weights. The learner core tells it which games start
(``start_episodes``) and asks for actions through :func:`uno_agents.choose_actions`,
so the pool learns which game each row comes from (``act_in``); members still
see nothing but the acting players' observations and masks (or, for agents that
read the public game, what ``act_in`` gives them), and each member acts once per
call on all the rows it plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .base import BatchAgent, check_batch, choose_actions

if TYPE_CHECKING:
    from uno_env.engine import Engine


class AgentPool:
    """Opponents drawn per game: ``members[i]`` with probability ``weights[i]``.

    ``set_members`` replaces the pool (e.g. after a new snapshot); games already
    running keep their member index, clipped into the new pool, until their
    next episode.
    """

    name = "pool"

    def __init__(self, members: Sequence[BatchAgent],
                 weights: Sequence[float] | np.ndarray | None = None) -> None:
        self.assignment = np.zeros(0, np.int64)
        self.set_members(members, weights)

    def set_members(self, members: Sequence[BatchAgent],
                    weights: Sequence[float] | np.ndarray | None = None) -> None:
        """Replace the members and their sampling weights (uniform when omitted)."""
        if not members:
            raise ValueError("an AgentPool needs at least one member")
        w = np.ones(len(members)) if weights is None else np.asarray(weights, np.float64)
        if w.shape != (len(members),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be {len(members)} non-negative numbers with a "
                             f"positive sum, got {weights!r}")
        self.members = list(members)
        self.weights = w / w.sum()
        np.minimum(self.assignment, len(self.members) - 1, out=self.assignment)

    def __repr__(self) -> str:
        parts = ", ".join(f"{getattr(m, 'name', m)}: {w:.2f}"
                          for m, w in zip(self.members, self.weights, strict=True))
        return f"AgentPool({parts})"

    def start_episodes(self, games: np.ndarray, rng: np.random.Generator) -> None:
        """Draw the member of each game in ``games`` for its new episode."""
        games = np.asarray(games, np.int64)
        if games.size and games.max() >= self.assignment.size:
            grown = np.zeros(games.max() + 1, np.int64)
            grown[: self.assignment.size] = self.assignment
            self.assignment = grown
        self.assignment[games] = rng.choice(len(self.members), size=games.size, p=self.weights)

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        raise ValueError("an AgentPool plays per game: call choose_actions(pool, engine, "
                         "games, ...) or act_in, which say which game each row comes from")

    def act_in(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Each row played by the member drawn for its game (``games``: one per row)."""
        check_batch(observations, masks)
        games = np.asarray(games, np.int64)
        member = self.assignment[games]
        actions = np.zeros(len(masks), np.int64)
        for i in np.unique(member):
            rows = np.flatnonzero(member == i)
            actions[rows] = choose_actions(self.members[i], engine, games[rows],
                                           observations[rows], masks[rows], rng)
        return actions


def snapshot_weights(num_heuristics: int, num_snapshots: int, heuristic_share: float,
                     latest_share: float) -> np.ndarray:
    """Sampling weights of a self-play pool, heuristics first, then snapshots oldest to
    latest: the heuristics share ``heuristic_share`` equally; of the rest, the latest
    snapshot gets ``latest_share`` and the older ones share what remains equally."""
    if num_snapshots == 0:
        return np.full(num_heuristics, 1.0 / num_heuristics)
    heuristics = np.full(num_heuristics, heuristic_share / num_heuristics)
    rest = 1.0 - heuristic_share
    if num_snapshots == 1:
        return np.concatenate([heuristics, [rest]])
    older = np.full(num_snapshots - 1, rest * (1 - latest_share) / (num_snapshots - 1))
    return np.concatenate([heuristics, older, [rest * latest_share]])
