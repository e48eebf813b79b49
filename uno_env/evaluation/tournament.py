"""Round-robin tournaments: every group of agents on the same deals, with win rates,
head-to-head tables and ratings.

The games are played by :mod:`uno_env.evaluation.play` (seat rotation and duplicate
deals: see there). With ``k`` agents at a table of ``P`` seats every group of ``P``
agents is seated in each of its ``P`` rotations; a tournament of ``games`` games
plays ``deals = ceil(games / seatings)`` deals under each of the seatings:
``deals * seatings`` games in all. Every interval is taken over deals
(:mod:`uno_env.evaluation.intervals`); ratings are Bradley-Terry heads-up and
openskill at 3+ players, with bootstrap intervals over deals
(:mod:`uno_env.evaluation.ratings`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..deals import deal_seed
from ..rules import Rules
from .intervals import ROUNDS, mean_interval, rate_interval
from .play import (
    DEALS_MAX,
    SEED_MAX,
    Clock,
    Records,
    Schedule,
    TournamentError,
    build_agents,
    play_chunks,
    seatings,
)
from .ratings import Ratings, heads_up, multi_player

if TYPE_CHECKING:
    from ..records import Recorder

# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentStats:
    """One agent's results: win rate and mean points, each with its 95% interval over
    deals."""

    label: str
    games: int
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    points: float
    points_low: float
    points_high: float


@dataclass
class TournamentResult:
    """The games of a tournament and the statistics computed from them."""

    rules: Rules
    preset: str
    labels: list[str]      # one per entry
    schedule: Schedule
    records: Records
    seconds: float
    clock: Clock | None = None            # each agent's thinking time and decisions
    rating_rounds: int = ROUNDS           # bootstrap resamples of the ratings
    _ratings: Ratings | None = field(default=None, repr=False, compare=False)

    @property
    def games(self) -> int:
        return int(self.records.deal.size)

    @property
    def deals(self) -> int:
        return self.schedule.deals

    @property
    def decisions(self) -> int:
        return int(self.records.decisions.sum())

    @property
    def truncated(self) -> int:
        """Games cut at ``max_turns`` without a result (nobody won them)."""
        return int((self.records.winner < 0).sum())

    def entries(self) -> np.ndarray:
        """``int[N, P]``: the entry (agent index) in each seat of each game."""
        return self.schedule.seatings[self.records.seating]

    def _per_deal(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(sums[D, k], seats[D, k])``: each agent's total of the per-seat ``values``
        and its seats, deal by deal."""
        k, d = len(self.labels), self.deals
        entries = self.entries()
        rows = np.broadcast_to(self.records.deal[:, None], entries.shape)
        sums = np.zeros((d, k))
        seats = np.zeros((d, k))
        np.add.at(sums, (rows, entries), values)
        np.add.at(seats, (rows, entries), 1)
        return sums, seats

    def deal_win_rates(self) -> np.ndarray:
        """``float[D, k]``: each agent's share of wins on each deal (over its seats)."""
        wins, seats = self._per_deal(self.records.won.astype(np.float64))
        return wins / np.maximum(seats, 1)

    def agent_stats(self) -> list[AgentStats]:
        """Win rate and mean points of every agent over all the games it played, with
        intervals over deals (every agent plays the same games on every deal)."""
        wins, seats = self._per_deal(self.records.won.astype(np.float64))
        points, _ = self._per_deal(self.records.points.astype(np.float64))
        out = []
        for a, label in enumerate(self.labels):
            games = int(seats[:, a].sum())
            if not games:
                out.append(AgentStats(label, 0, 0, *[math.nan] * 6))
                continue
            rate, lo, hi = rate_interval(wins[:, a] / seats[:, a])
            pts = mean_interval(points[:, a] / seats[:, a])
            out.append(AgentStats(label, games, int(wins[:, a].sum()), rate, lo, hi,
                                  pts["mean"], pts["low"], pts["high"]))
        return out

    def deal_head_to_head(self) -> tuple[np.ndarray, np.ndarray]:
        """``(wins[D, k, k], games[D, k, k])``: on each deal, games won by row agent
        against column agent over the games both played."""
        k, d = len(self.labels), self.deals
        entries = self.entries()
        deal = self.records.deal
        wins = np.zeros((d, k, k), np.int64)
        games = np.zeros((d, k, k), np.int64)
        for i in range(entries.shape[1]):
            for j in range(entries.shape[1]):
                if i != j:
                    np.add.at(games, (deal, entries[:, i], entries[:, j]), 1)
                    np.add.at(wins, (deal, entries[:, i], entries[:, j]),
                              self.records.won[:, i])
        return wins, games

    def head_to_head(self) -> tuple[np.ndarray, np.ndarray]:
        """``(wins[k, k], games[k, k])``: games won by row agent against column agent
        over the games both played (heads-up tables: every game is one such pair)."""
        wins, games = self.deal_head_to_head()
        return wins.sum(axis=0), games.sum(axis=0)

    def head_to_head_rates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rate, low, high)``, each ``[k, k]``: row agent's win rate against column
        agent with its 95% interval over deals (``nan`` where they never met)."""
        wins, games = self.deal_head_to_head()
        k = len(self.labels)
        out = np.full((3, k, k), math.nan)
        for i in range(k):
            for j in range(k):
                if i != j and games[:, i, j].any():
                    out[:, i, j] = rate_interval(wins[:, i, j] / np.maximum(games[:, i, j], 1))
        return out[0], out[1], out[2]

    def ratings(self) -> Ratings:
        """Every agent's rating with its bootstrap interval over deals: Bradley-Terry on
        the Elo scale heads-up, openskill's ``mu`` at 3+ players."""
        if self._ratings is None:
            if self.rules.num_players == 2:
                self._ratings = heads_up(self.labels, self.deal_head_to_head()[0],
                                         self.rating_rounds, self.schedule.seed)
            else:
                self._ratings = multi_player(self.labels, self.entries(),
                                             self.records.standing, self.records.deal,
                                             self.records.seating, self.rating_rounds,
                                             self.schedule.seed)
        return self._ratings

    def decisions_per_second(self) -> np.ndarray:
        """``float[k]``: decisions per second of each agent's own thinking (``nan``
        without a clock)."""
        if self.clock is None:
            return np.full(len(self.labels), math.nan)
        return self.clock.rates()

    def to_dict(self, with_ratings: bool = True) -> dict[str, Any]:
        """Everything a report needs, as JSON-ready values."""
        p = self.rules.num_players
        out: dict[str, Any] = {
            "preset": self.preset, "players": p, "agents": self.labels,
            "games": self.games, "deals": self.deals, "seatings": len(self.schedule.seatings),
            "seed": self.schedule.seed, "chunk": self.schedule.chunk,
            "deals_from": self.schedule.purpose,
            "decisions": self.decisions, "truncated": self.truncated,
            "seconds": round(self.seconds, 3),
            "results": [vars(s) for s in self.agent_stats()],
        }
        if p == 2:
            wins, games = self.head_to_head()
            out["head_to_head"] = {"wins": wins.tolist(), "games": games.tolist()}
        if with_ratings:
            out["ratings"] = self.ratings().to_list()
            out["rating_rounds"] = self.rating_rounds
        if self.clock is not None:
            out["decisions_per_second"] = [None if math.isnan(r) else round(float(r), 1)
                                           for r in self.clock.rates()]
        return out


def tournament(agents: Sequence[Any], rules: Rules, games: int, seed: int = 0,
               batch: int = 4096, chunk: int = 1024, preset: str = "custom",
               on_progress: Callable[[int], None] | None = None,
               ray: str | bool | None = None, backend: str | None = None,
               rating_rounds: int = ROUNDS, threads: int = 1, tables: bool = True,
               purpose: str = "evaluation", recorder: Recorder | None = None
               ) -> TournamentResult:
    """Play a tournament of at least ``games`` games between ``agents`` under ``rules``.

    ``agents``: specs for :func:`uno_agents.make_agent` (``"greedy"``, ``"ismcts:budget=64"``)
    or agent objects, at least ``rules.num_players`` of them. ``ray``: play the chunks
    as Ray tasks (``True`` for a local Ray, or a cluster address); the results are
    the same as without. ``rating_rounds``: bootstrap resamples of the ratings.
    ``threads``: the engine's (:class:`uno_env.Engine`; the results are the same).
    ``tables``: agents that act by a score table (``greedy``, ``tuned``, ``defender``) play
    whole games inside the compiled engine when every seat of a batch has one (see
    :func:`uno_env.evaluation.play.play_chunks`); False calls their ``act`` (the same
    results). ``purpose``: whose deals ``seed`` names (:mod:`uno_env.deals`): final
    evaluations by default, ``"selection"`` for choosing among agents. ``recorder``
    (:class:`uno_env.records.Recorder`, not with ``ray``) keeps the actions of the games
    it names, for game records. See the module doc for the schedule.
    """
    if games < 1:
        raise TournamentError(f"games must be at least 1, got {games}")
    if batch < 1 or chunk < 1:
        raise TournamentError(f"batch and chunk must be at least 1, got {batch}, {chunk}")
    if ray and recorder is not None:
        raise TournamentError("games are recorded only when played here, not on Ray")
    if purpose == "evaluation" and not 0 <= seed <= SEED_MAX:
        raise TournamentError(f"seed must be between 0 and {SEED_MAX}, got {seed}")
    built, labels = build_agents(agents)
    table = seatings(len(built), rules.num_players)
    deals = -(-games // len(table))
    if deals > DEALS_MAX:
        raise TournamentError(f"games: {games:,} games need {deals:,} deals per seating, more "
                              f"than one seed's {DEALS_MAX:,}")
    try:
        deal_seed(purpose, seed, 0, deals)
    except ValueError as err:
        raise TournamentError(str(err)) from None
    schedule = Schedule(table, deals=deals, seed=int(seed), chunk=chunk, purpose=purpose)
    start = time.perf_counter()
    ids = range(len(schedule.chunks()))
    clock = Clock.zeros(len(built))
    if ray:
        from .ray import play_on_ray

        records = play_on_ray(rules, list(agents), schedule, batch, labels,
                              None if ray is True else str(ray), on_progress, backend, clock=clock)
    else:
        records = play_chunks(rules, built, schedule, ids, batch, on_progress, labels, backend,
                              clock, threads=threads, tables=tables, recorder=recorder)
    return TournamentResult(rules, preset, labels, schedule, records,
                            time.perf_counter() - start, clock, rating_rounds)
