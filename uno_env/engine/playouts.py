"""Playouts over an engine: games played on inside the engine, many decisions a call.

A learner's opponents, a search's playouts and a tournament of score-table agents
all play long stretches of games by fixed rules. These functions play them in one
call on an :class:`~uno_env.engine.core.Engine` (one compiled call on ``numba``),
changing its games as :meth:`~uno_env.engine.core.Engine.step` would, decision by
decision. The policies they play are the score tables of :mod:`.playout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import checks
from .core import Engine
from .playout import PlayoutPolicy, policy_tables, seat_tables, uses_streams
from .rng import random_below


def play_random(engine: Engine, games: np.ndarray, until: np.ndarray, streams: np.ndarray
                ) -> np.ndarray:
    """Uniformly random legal decisions in ``games`` until seat ``until[i]`` is to act.

    The whole opponents' side of a learner's turn in one call (one compiled call
    on the ``numba`` backend): each listed game plays on until its seat
    ``until[i]`` must decide or the game ends. The picks come from ``streams``
    (``uint64[G, 2]``: a key and a counter per game, advanced in place), not
    from the games' deal streams, so the games stay what their seeds and
    actions make them; both backends make the same picks. Returns the rewards
    ``float32[G, P]`` summed over the decisions.
    """
    idx, until = _games_and_seats(engine, games, until, "until", unique=False)
    if streams.shape != (engine.num_games, 2) or streams.dtype != np.uint64:
        raise ValueError(f"streams must be uint64[{engine.num_games}, 2], got "
                         f"{streams.dtype}{list(streams.shape)}")
    rewards = np.zeros((engine.num_games, engine.num_players), np.float32)
    kernels = engine._kernels
    if kernels is None:
        _play_random(engine, idx, until, streams, rewards)
        return rewards
    engine._run_kernel(idx, lambda masks: kernels.play_random(
        engine.state, idx, until, streams, rewards, masks), streams)
    return rewards


def play_policy(engine: Engine, games: Sequence[int] | np.ndarray, seats: np.ndarray,
                policy: PlayoutPolicy, others: PlayoutPolicy | None = None,
                horizon: int = 0, streams: np.ndarray | None = None) -> np.ndarray:
    """Play each listed game on with a score-table policy, inside one compiled call.

    ``policy`` (:class:`~uno_env.engine.playout.PlayoutPolicy`, e.g. from an
    agent's ``playout_policy``) decides for seat ``seats[i]`` of game ``games[i]``
    and ``others`` (default: ``policy``) for the other seats, for ``horizon``
    decisions of each game (0: to its end); forced decisions are played as
    ``Engine.step`` plays them. Each decision is the one the agent's ``act`` makes
    from the acting player's observation. A policy that draws random numbers
    (``random_play``) draws them from ``streams`` (``uint64[G, 2]``, a key and a
    counter per game, advanced in place, as :func:`play_random` does), one
    :func:`~uno_env.engine.playout.stream_noise` row per decision. Returns the
    rewards ``float32[G, P]`` summed over the decisions. Needs the ``numba``
    backend (search playouts are what it is for; on numpy, step the agent).
    """
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError("play_policy runs on the numba backend only; on "
                                  "numpy, step the agent's actions")
    idx, seats = _games_and_seats(engine, games, seats, "seats", unique=True)
    horizon = checks.integer(horizon, "horizon", 0)
    others = policy if others is None else others
    if not uses_streams(policy, others):
        streams = np.zeros((0, 2), np.uint64)
    elif streams is None or streams.shape != (engine.num_games, 2) \
            or streams.dtype != np.uint64:
        raise ValueError(f"a random policy needs streams, uint64[{engine.num_games}, 2], "
                         f"got {None if streams is None else streams.shape}")
    tables = policy_tables(policy, others)
    rewards = np.zeros((engine.num_games, engine.num_players), np.float32)
    played = streams
    engine._run_kernel(idx, lambda masks: kernels.play_policy(
        engine.state, idx, seats, horizon, tables, played, rewards, masks), played)
    return rewards


def play_opponents(engine: Engine, games: Sequence[int] | np.ndarray, seats: np.ndarray,
                   policy: PlayoutPolicy) -> np.ndarray:
    """Play every seat but ``seats[i]`` of game ``games[i]`` by a score-table policy
    until seat ``seats[i]`` is to act or the game ends, inside one compiled call: a
    learner's opponents (``greedy``, ``tuned``, ``defender``: their
    ``playout_policy``), each decision the one their ``act`` makes from the acting
    player's observation, forced decisions played as ``Engine.step`` plays them.
    Returns the rewards ``float32[G, P]`` summed over the decisions. No policy that
    draws random numbers (``random_play``). Needs the ``numba`` backend; a failed
    call changes no game, as ``Engine.step``."""
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError("play_opponents runs on the numba backend only; on "
                                  "numpy, step the agents' actions")
    idx, seats = _games_and_seats(engine, games, seats, "seats", unique=True)
    if uses_streams(policy):
        raise ValueError("play_opponents plays no random policy (random_play)")
    tables = policy_tables(policy, policy)
    rewards = np.zeros((engine.num_games, engine.num_players), np.float32)
    engine._run_kernel(idx, lambda masks: kernels.play_opponents(
        engine.state, idx, seats, tables, np.zeros((0, 2), np.uint64), rewards, masks))
    return rewards


def play_policies(engine: Engine, games: Sequence[int] | np.ndarray,
                  policies: Sequence[PlayoutPolicy], seated: np.ndarray,
                  horizon: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Play each listed game on with a score-table policy in every seat, in one
    compiled call: seat ``p`` of game ``games[i]`` by ``policies[seated[i, p]]``.

    For ``horizon`` decisions of each game (0: to its end); forced decisions are
    played as ``Engine.step`` plays them. Each decision is the one the policy's agent
    (``greedy``, ``tuned``, ``defender``: their ``playout_policy``) makes with
    ``act`` from the acting player's observation, so a tournament of such agents
    can play whole games here. Returns ``(rewards float32[G, P], decisions int64[G,
    P])``: the rewards summed over the decisions and each seat's decisions. No
    policy may draw random numbers (``random_play``). Needs the ``numba`` backend;
    a failed call changes no game, as ``Engine.step``.
    """
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError("play_policies runs on the numba backend only; on "
                                  "numpy, step the agents' actions")
    idx = engine._game_indices(games, unique=False)
    seated = np.asarray(seated)
    if seated.shape != (idx.size, engine.num_players) or seated.dtype.kind not in "iu":
        raise ValueError(f"seated must give a policy per seat, int[{idx.size}, "
                         f"{engine.num_players}], got {seated.dtype}{list(seated.shape)}")
    if seated.size and not 0 <= seated.min() <= seated.max() < len(policies):
        raise ValueError(f"seated must index the {len(policies)} policies")
    if uses_streams(*policies):
        raise ValueError("play_policies plays no random policy (random_play)")
    horizon = checks.integer(horizon, "horizon", 0)
    tables = seat_tables(policies)
    rewards = np.zeros((engine.num_games, engine.num_players), np.float32)
    decisions = np.zeros((engine.num_games, engine.num_players), np.int64)
    engine._run_kernel(idx, lambda masks: kernels.play_seated(
        engine.state, idx, seated.astype(np.int64), horizon, tables, decisions, rewards,
        masks))
    return rewards, decisions


def _games_and_seats(engine: Engine, games: Sequence[int] | np.ndarray, seats: Any,
                     name: str, unique: bool) -> tuple[np.ndarray, np.ndarray]:
    """The listed games' indices and ``seats`` as one seat per game (``name`` is the
    argument a wrong shape is blamed on)."""
    idx = engine._game_indices(games, unique=unique)
    seats = np.asarray(seats, np.int64)
    if seats.shape != idx.shape:
        raise ValueError(f"{name} must give one seat per game, shape {idx.shape}, "
                         f"got {seats.shape}")
    return idx, seats


def _play_random(engine: Engine, idx: np.ndarray, until: np.ndarray, streams: np.ndarray,
                 rewards: np.ndarray) -> None:
    """:func:`play_random` on numpy: a round of one decision per listed game still
    playing, the ``k``-th legal action with ``k`` drawn as the compiled kernel does."""
    s = engine.state
    for _ in range(10 * engine.rules.max_turns):
        playing = ~s.done[idx] & (s.current[idx] != until)
        idx, until = idx[playing], until[playing]
        if not idx.size:
            return
        mask = engine.legal_action_mask(idx)
        k = random_below(streams[idx, 0], streams[idx, 1], mask.sum(axis=1))
        streams[idx, 1] += np.uint64(1)
        rewards += engine.step((mask.cumsum(axis=1) > k[:, None]).argmax(axis=1), idx)[0]
