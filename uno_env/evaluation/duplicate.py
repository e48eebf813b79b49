"""One agent against another on duplicate deals: per-deal wins, win rates and paired
differences (what the training scripts and ``experiments/evaluate.py`` report).

Luck of the deal dominates single games of UNO, so every comparison here replays
each deal with the agents rotated through the seats (the same cards) on the one
player of :mod:`.play`, and reports intervals over *deals*: the rotations of one
deal are not independent.

* :func:`deal_wins` / :func:`head_to_head`: one agent in one seat, an opponent in all
  the others, every deal played once with the agent in each seat;
* :func:`play_rotated`: a line-up of agents (one per seat) under every rotation;
* :func:`versus_base`: the difference of two agents on the same deals, paired by deal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import checks
from ..deals import CURVE_START, EVALUATION_START
from ..rules import Rules
from .intervals import mean_interval, win_rate
from .play import Records, Schedule, play_chunks

if TYPE_CHECKING:
    from ..records import Recorder

#: First deal seed of the training curves' fixed deals (nothing else plays them).
CURVE_SEED = CURVE_START
#: First deal seed of final evaluations: fresh deals no training choice is made on.
FRESH_SEED = EVALUATION_START
#: Deals per chunk (the unit of the agents' random numbers) of these evaluations.
CHUNK = 256


def _play(rules: Rules, lineup: list[Any], table: np.ndarray, seeds: np.ndarray,
          batch: int | None, recorder: Recorder | None = None) -> Records:
    """The games of every deal of ``seeds`` under every seating of ``table`` (entries of
    ``lineup``), seating by seating; ``batch=None``: all in one engine, game ``i`` in row
    ``i`` throughout."""
    seeds = np.asarray(seeds, np.int64)
    schedule = Schedule(table, deals=len(seeds), seed=int(seeds[0]), chunk=CHUNK, seeds=seeds)
    ids = range(len(schedule.chunks()))
    if batch is None:
        return play_chunks(rules, lineup, schedule, ids, schedule.games, shrink=False,
                           recorder=recorder)
    return play_chunks(rules, lineup, schedule, ids, batch, recorder=recorder)


def deal_wins(agent: Any, opponent: Any, rules: Rules, deals: int, seed: int = 10_000,
              batch: int = 2048, recorder: Recorder | None = None) -> np.ndarray:
    """``float[deals]``: ``agent``'s share of wins on each of ``deals`` duplicate deals, with
    ``opponent`` in all other seats (each deal played once with ``agent`` in each seat, the
    same cards). Games cut by ``max_turns`` count as lost. The deals are those of the
    engine seeds ``seed, seed + 1, ..., seed + deals - 1``: two calls share deals when
    these ranges overlap, so fresh deals need a ``seed`` past the last one used. Agents
    of every kind (search agents included) decide as in a tournament. ``deals`` is at
    least 1 (a caller with none to play skips the call: there is no win rate of none).
    ``recorder`` (:class:`uno_env.records.Recorder`) keeps the actions of the games it
    names (game ``r * deals + d``: deal ``d`` with ``agent`` in seat ``r``)."""
    checks.integer(deals, "deals", 1)
    p = rules.num_players
    table = np.ones((p, p), np.int64)          # seating r: the agent in seat r
    table[np.arange(p), np.arange(p)] = 0
    records = _play(rules, [agent, opponent], table, seed + np.arange(deals), batch, recorder)
    won = records.won[np.arange(records.won.shape[0]), records.seating]
    return won.reshape(p, deals).mean(axis=0)


def head_to_head(agent: Any, opponent: Any, rules: Rules, deals: int, seed: int = 10_000,
                 batch: int = 2048) -> dict[str, float]:
    """``agent`` in one seat, ``opponent`` in all others, on ``deals`` duplicate deals
    (:func:`deal_wins`): its :func:`~.intervals.win_rate` with the interval over deals."""
    return win_rate(deal_wins(agent, opponent, rules, deals, seed, batch), rules.num_players)


def versus_base(wins: np.ndarray, base_wins: np.ndarray, players: int) -> dict[str, Any]:
    """An agent's :func:`~.intervals.win_rate` from its per-deal wins, with the base's on
    the same deals (``base``) and the difference paired by deal (``difference``: its mean
    and 95% interval; "beats the opponent by more than the base does" needs it above 0)."""
    return {**win_rate(wins, players), "base": win_rate(base_wins, players),
            "difference": mean_interval(wins - base_wins)}


def play_rotated(rules: Rules, lineup: list[Any], seeds: np.ndarray) -> np.ndarray:
    """Play the deals ``seeds`` under every rotation of ``lineup`` (one agent per seat);
    returns ``int64[D * P]``: the index in ``lineup`` of each game's winner (-1:
    truncated). Game ``r * D + d`` is deal ``seeds[d]`` with agent ``i`` in seat
    ``(i + r) % P``, in row ``r * D + d`` of one engine (agents that key on the row,
    such as common random numbers across candidates, may rely on it)."""
    p = rules.num_players
    if len(lineup) != p:
        raise ValueError(f"lineup has {len(lineup)} agents for {p} seats")
    table = (np.arange(p)[None, :] - np.arange(p)[:, None]) % p     # [rotation, seat]
    records = _play(rules, lineup, table, seeds, None)
    agent = table[records.seating, np.maximum(records.winner, 0)]
    return np.where(records.winner >= 0, agent, -1)
