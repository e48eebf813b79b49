"""Duplicate-deal evaluation: who beats whom, on the same cards, with 95% intervals.

Luck of the deal dominates single games of UNO, so every comparison here replays
each deal with the agents rotated through the seats (the same cards) and reports
intervals over *deals*: the rotations of one deal are not independent.

* :func:`deal_wins` / :func:`head_to_head`: one agent in one seat, an opponent in all
  the others, every deal played once with the agent in each seat;
* :func:`play_rotated`: a line-up of agents (one per seat) under every rotation;
* :func:`win_rate`, :func:`mean_interval` and :func:`versus_base`: the numbers
  reported from per-deal wins, and the difference of two agents paired by deal.

Agents decide through :func:`uno_env.agent_registry.choose_actions`, so search
agents that read the public game work everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .agent_registry import choose_actions, choose_in_parts
from .engine import Engine
from .learner import LearnerCore
from .rules import Rules

#: First deal seed of the training curves' fixed deals (nothing else plays them).
CURVE_SEED = 900_000
#: First deal seed of final evaluations: fresh deals no training choice is made on.
FRESH_SEED = 1_000_000


def deal_wins(agent: Any, opponent: Any, rules: Rules, deals: int, seed: int = 10_000,
              batch: int = 2048) -> np.ndarray:
    """``float[deals]``: ``agent``'s share of wins on each of ``deals`` duplicate deals, with
    ``opponent`` in all other seats (each deal played once with ``agent`` in each seat, the
    same cards). Games cut by ``max_turns`` count as lost. The deals are those of the
    engine seeds ``seed, seed + 1, ..., seed + deals - 1``: two calls share deals when
    these ranges overlap, so fresh deals need a ``seed`` past the last one used. ``agent``
    decides through :func:`~uno_env.agent_registry.choose_actions`, so search agents see
    the public game."""
    p = rules.num_players
    wins = np.zeros(deals)
    for lo in range(0, deals, max(1, batch // p)):
        hi = min(deals, lo + max(1, batch // p))
        n = (hi - lo) * p
        core = LearnerCore(rules, n, opponents=opponent, learner_seat=0, seed=seed)
        core.reset(seed=list(np.repeat(np.arange(seed + lo, seed + hi), p)),
                   seats=np.tile(np.arange(p), hi - lo))
        rng = np.random.default_rng(seed + lo)
        while not core.done.all():
            actions = choose_actions(agent, core.engine, np.arange(n), core.observe(),
                                     core.action_masks(), rng)
            core.step(actions)
        won = core.engine.state.winner == core.seats
        wins[lo:hi] = won.reshape(-1, p).mean(axis=1)
    return wins


def mean_interval(values: np.ndarray) -> dict[str, float]:
    """The mean of per-deal ``values`` with its 95% normal interval over deals."""
    mean = float(values.mean())
    n = len(values)
    half = 1.96 * float(values.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return {"mean": mean, "low": mean - half, "high": mean + half}


def head_to_head(agent: Any, opponent: Any, rules: Rules, deals: int, seed: int = 10_000,
                 batch: int = 2048) -> dict[str, float]:
    """``agent`` in one seat, ``opponent`` in all others, on ``deals`` duplicate deals
    (:func:`deal_wins`): seats rotated on the same cards, so luck of the deal cancels. The
    win rate's 95% interval is a normal interval over deals (the rotations of one deal are
    not independent)."""
    return win_rate(deal_wins(agent, opponent, rules, deals, seed, batch), rules.num_players)


def win_rate(wins: np.ndarray, players: int) -> dict[str, float]:
    """What :func:`head_to_head` reports from per-deal wins: the win rate, its interval
    (the normal interval over deals, cut to [0, 1]: a rate is never outside it), the deals
    and the games."""
    r = mean_interval(wins)
    low, high = np.clip([r["low"], r["high"]], 0.0, 1.0).tolist()
    return {"win_rate": r["mean"], "low": low, "high": high, "deals": len(wins),
            "games": len(wins) * players}


def versus_base(wins: np.ndarray, base_wins: np.ndarray, players: int) -> dict[str, Any]:
    """An agent's :func:`win_rate` from its per-deal wins, with the base's on the same
    deals (``base``) and the difference paired by deal (``difference``: its mean and 95%
    interval; "beats the opponent by more than the base does" needs it above 0)."""
    return {**win_rate(wins, players), "base": win_rate(base_wins, players),
            "difference": mean_interval(wins - base_wins)}


def play_rotated(rules: Rules, lineup: list[Any], seeds: np.ndarray
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
