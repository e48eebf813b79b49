"""Uniformly random legal play in batch: game statistics.

Random play is the baseline every agent is compared against and the standard
load for measuring the engine: the ``uno-env simulate`` command plays it here,
and the benchmark script (``experiments/bench.py``) times :func:`play_random_step`.
Everything is vectorised over the games
of one :class:`~uno_env.engine.Engine`: one ``step`` advances every game by one
decision, finished games are restarted in place with ``reset(games=...)``.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..compact import compact
from ..engine import Engine
from ..engine.packed_rows import observe_packed
from ..random_actions import random_legal_actions
from ..rules import Rules
from .intervals import count_interval

#: What :func:`play_random_step` observes first: nothing, the observation
#: (:meth:`Engine.observe`) or the packed observation
#: (:func:`uno_env.engine.packed_rows.observe_packed`).
OBSERVATIONS = ("none", "float32", "packed")


def observer(engine: Engine, observation: str) -> Callable[[], np.ndarray] | None:
    """The call on ``engine`` that makes ``observation`` (one of :data:`OBSERVATIONS`;
    None for ``none``)."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"unknown observation {observation!r}; observations: "
                         f"{', '.join(OBSERVATIONS)}")
    calls: dict[str, Callable[[], np.ndarray]] = {
        "float32": engine.observe, "packed": functools.partial(observe_packed, engine)}
    return calls.get(observation)


def play_random_step(engine: Engine, rng: np.random.Generator, observation: str = "none"
                     ) -> tuple[np.ndarray, np.ndarray]:
    """One random decision in every running game; returns ``(running_before, ended_idx)``.

    With an ``observation`` (see :data:`OBSERVATIONS`) the acting players are observed
    first, as an RL loop would.
    """
    observe = observer(engine, observation)
    mask = engine.legal_action_mask()
    if observe is not None:
        observe()
    running = ~engine.state.done
    engine.step(random_legal_actions(mask, rng))
    ended = np.flatnonzero(running & engine.state.done)
    return running, ended


@dataclass
class SimulationResult:
    """Per-game records of a random-play simulation plus its wall-clock time.

    Arrays have one entry per finished game. ``winner`` is -1 for a truncated
    game (it hit ``max_turns``); rates over winners use the terminated games only.
    """

    rules: Rules
    batch: int                 # games stepped at once
    seed: int
    seconds: float
    decisions: np.ndarray      # int64[N]    decisions taken in each game
    winner: np.ndarray         # int64[N]    winning seat, -1 if truncated
    first_player: np.ndarray   # int64[N]    seat that made the game's first decision
    round_points: np.ndarray   # int64[N, P] points of the game's (last) round
    truncated: np.ndarray      # bool[N]

    @property
    def games(self) -> int:
        """Number of finished games."""
        return int(self.decisions.size)

    @property
    def terminated(self) -> int:
        """Number of games that ended with a winner (not truncated)."""
        return int((~self.truncated).sum())

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.nan

    @property
    def decisions_per_second(self) -> float:
        return float(self.decisions.sum()) / self.seconds if self.seconds > 0 else math.nan

    @property
    def mean_decisions(self) -> float:
        return float(self.decisions.mean()) if self.games else math.nan

    @property
    def p95_decisions(self) -> float:
        return float(np.percentile(self.decisions, 95)) if self.games else math.nan

    @property
    def truncated_share(self) -> float:
        return float(self.truncated.mean()) if self.games else math.nan

    def seat_wins(self) -> np.ndarray:
        """``int64[P]``: games won by each seat."""
        won = self.winner[self.winner >= 0]
        return np.bincount(won, minlength=self.rules.num_players).astype(np.int64)

    def seat_win_rates(self) -> np.ndarray:
        """``float[P]``: share of the terminated games won by each seat (sums to 1)."""
        n = self.terminated
        return self.seat_wins() / n if n else np.full(self.rules.num_players, math.nan)

    def seat_win_intervals(self) -> list[tuple[float, float]]:
        """95% interval of each seat's win rate (every game its own deal:
        :func:`~uno_env.evaluation.intervals.count_interval`)."""
        return [count_interval(int(w), self.terminated)[1:] for w in self.seat_wins()]

    def first_player_wins(self) -> int:
        """Terminated games won by the seat that made the first decision."""
        return int(((self.winner >= 0) & (self.winner == self.first_player)).sum())

    def first_player_win_rate(self) -> float:
        n = self.terminated
        return self.first_player_wins() / n if n else math.nan

    def first_player_win_interval(self) -> tuple[float, float]:
        return count_interval(self.first_player_wins(), self.terminated)[1:]

    def mean_round_points(self) -> np.ndarray:
        """``float[P]``: mean round points of each seat over the terminated games.

        Truncated games score nothing, so they are left out rather than counted as 0.
        """
        ok = ~self.truncated
        if not ok.any():
            return np.full(self.rules.num_players, math.nan)
        return self.round_points[ok].mean(axis=0)


def simulate(rules: Rules, games: int, batch: int = 4096, seed: int = 0,
             on_progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Play exactly ``games`` games of uniformly random legal play and record them.

    Runs ``min(batch, games)`` games at once on one engine; a finished game is
    restarted in its slot until ``games`` games have been started, then the run
    waits for the last ones to finish. Starting exactly ``games`` games (rather
    than stopping at the first ``games`` to finish) keeps long games from being
    under-represented. ``on_progress(n)`` is called with the number of games
    finished by each step. Deterministic for a given ``seed`` and ``batch``.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    start = time.perf_counter()
    slots = min(batch, games)
    engine = Engine(rules, slots, seed)
    rng = np.random.default_rng(seed)
    p = rules.num_players
    first = engine.state.current.copy()
    taken = np.zeros(slots, np.int64)
    out_decisions = np.zeros(games, np.int64)
    out_winner = np.zeros(games, np.int64)
    out_first = np.zeros(games, np.int64)
    out_points = np.zeros((games, p), np.int64)
    out_truncated = np.zeros(games, bool)
    started, finished = slots, 0
    while finished < games:
        running, ended = play_random_step(engine, rng)
        taken += running
        if not ended.size:
            continue
        rows = slice(finished, finished + ended.size)
        s = engine.state
        out_decisions[rows] = taken[ended]
        out_winner[rows] = np.where(s.truncated[ended], -1, s.winner[ended])
        out_first[rows] = first[ended]
        out_points[rows] = s.round_points[ended]
        out_truncated[rows] = s.truncated[ended]
        finished += ended.size
        if on_progress is not None:
            on_progress(int(ended.size))
        again = ended[: max(0, min(ended.size, games - started))]
        if again.size:
            engine.reset(games=again)
            first[again] = engine.state.current[again]
            taken[again] = 0
            started += again.size
        elif started == games and engine.num_games >= 64:
            live = np.flatnonzero(~engine.state.done)
            if 0 < live.size <= engine.num_games // 2 and (small := compact(engine, live)):
                engine, first, taken = small, first[live], taken[live]
    return SimulationResult(rules=rules, batch=slots, seed=seed,
                            seconds=time.perf_counter() - start, decisions=out_decisions,
                            winner=out_winner, first_player=out_first, round_points=out_points,
                            truncated=out_truncated)
