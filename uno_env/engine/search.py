"""What a search asks an engine: the possible worlds of its decisions and their values.

:func:`sample_worlds`, :func:`deal_worlds` and :func:`world_values` deal the worlds
of an :class:`~uno_env.engine.core.Engine`'s decisions as their acting players know
them (the rules of :mod:`uno_env.engine.worlds`, which sits below the engine) and
play them out, checking each request. :func:`search_values` and the prior's choice
(:func:`policy_scores`, :func:`policy_actions`) answer in compiled code and
unchecked, for a search that asks at every decision: the checks would cost more
than the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import checks
from ..actions import NUM_ACTIONS
from .core import Engine
from .playout import RANDOM_PLAY, PlayoutPolicy, policy_tables, uses_streams
from .rng import seed_key
from .state import State
from .worlds import concat_states
from .worlds import sample_worlds as world_states

#: The most worlds one :func:`sample_worlds` call deals (each is a whole game state).
MAX_WORLDS = 1 << 20


def sample_worlds(engine: Engine, game: int, seat: int, num_worlds: int,
                  rng: np.random.Generator, drew_on_weight: float = 1.0) -> Engine:
    """A new engine of ``num_worlds`` possible worlds of ``game`` as its acting
    player ``seat`` knows it: public facts kept, unseen cards dealt at random, or
    by a belief with ``drew_on_weight`` < 1 (see :mod:`uno_env.engine.worlds`)."""
    game = engine._game(game)
    seat = checks.integer(seat, "seat", 0, engine.num_players - 1)
    num_worlds = checks.integer(num_worlds, "num_worlds", 1, MAX_WORLDS)
    drew_on_weight = checks.real(drew_on_weight, "drew_on_weight")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got "
                        f"{checks.describe(rng)}")
    state = world_states(engine.rules, engine.state, game, seat, num_worlds, rng,
                         drew_on_weight)
    worlds = Engine(engine.rules, state.num_games, 0, engine.backend)
    worlds.state = state
    return worlds


def deal_worlds(engine: Engine, games: Sequence[int] | np.ndarray,
                worlds: Sequence[int] | np.ndarray, rng: np.random.Generator,
                repeats: Sequence[int] | np.ndarray | None = None,
                drew_on_weight: float = 1.0) -> State:
    """The possible worlds of several decisions at once, as one state: for each listed
    game, ``worlds[i]`` worlds as its acting player knows it (see :func:`sample_worlds`),
    the block of them written ``repeats[i]`` times (default once) one after the other,
    after the rows of the games before. A search tries each of its actions in a copy
    of the same worlds.

    On ``numba`` one compiled call deals every world (no Python loop over games or
    worlds; the random numbers come from a counter-based stream per world, keyed by
    one draw of ``rng`` per world); on ``numpy`` each game's worlds come from
    :func:`sample_worlds`. Both deal by the same rules from other random numbers."""
    idx, counts, repeat = _world_request(engine, games, worlds, repeats)
    weight = _world_weight(drew_on_weight)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got "
                        f"{checks.describe(rng)}")
    if engine._kernels is None:
        states = [world_states(engine.rules, engine.state, int(g),
                               int(engine.state.current[g]), int(n), rng, weight)
                  .take(np.tile(np.arange(n), r))
                  for g, n, r in zip(idx, counts, repeat, strict=True)]
        return states[0] if len(states) == 1 else concat_states(states)
    rows = int((counts * repeat).sum())
    out = State.empty(rows, engine.num_players)
    keys = seed_key(rng.integers(0, 2**62, int(counts.sum())))
    engine._kernels.deal_worlds(engine.state, idx, repeat, counts, keys, weight, out)
    return out


def world_values(engine: Engine, games: Sequence[int] | np.ndarray,
                 actions: Sequence[np.ndarray], worlds: Sequence[int] | np.ndarray,
                 policy: PlayoutPolicy, others: PlayoutPolicy | None = None,
                 horizon: int = 0, rng: np.random.Generator | None = None,
                 drew_on_weight: float = 1.0) -> list[np.ndarray]:
    """The search's playout values, in two compiled calls: for each listed game,
    ``worlds[i]`` worlds of its acting player's decision are dealt (as by
    :func:`deal_worlds`) and each action of ``actions[i]`` (legal ones) is played in a
    copy of every world, then the game is played on by ``policy`` for the acting
    seat and ``others`` for the other seats (as
    :func:`~uno_env.engine.playouts.play_policy` plays them) for
    ``horizon`` decisions or to its end (0). Returns, per game, ``float64[actions,
    worlds]``: the acting seat's rewards from the action on, plus, in a game still
    running, its lead (``(smallest other hand - own) / max(sum, 1)``). The games of
    this engine do not change. Needs the ``numba`` backend."""
    if engine._kernels is None:
        raise NotImplementedError("world_values runs on the numba backend only; on "
                                  "numpy, step the worlds of deal_worlds")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got "
                        f"{checks.describe(rng)}")
    if len(actions) != np.size(games):
        raise ValueError(f"actions must give the actions of each of the "
                         f"{np.size(games)} games, got {len(actions)}")
    tried = [np.asarray(a, np.int64).ravel() for a in actions]
    idx, counts, repeat = _world_request(
        engine, games, worlds, np.array([a.size for a in tried], np.int64))
    weight = _world_weight(drew_on_weight)
    horizon = checks.integer(horizon, "horizon", 0)
    flat = np.concatenate(tried)
    if ((flat < 0) | (flat >= NUM_ACTIONS)).any() or not engine.legal_action_mask(idx)[
            np.repeat(np.arange(idx.size), repeat), flat].all():
        raise ValueError("actions must be legal actions of their games")
    others = policy if others is None else others
    return search_values(engine, idx, tried, counts, policy, others, horizon, rng, weight)


def _world_request(engine: Engine, games: Sequence[int] | np.ndarray,
                   worlds: Sequence[int] | np.ndarray,
                   repeats: Sequence[int] | np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(games, worlds, repeats)`` of :func:`deal_worlds` as int64 arrays, checked:
    running games, one positive count of worlds and of repeats each."""
    idx = engine._game_indices(games, unique=False)
    counts = np.asarray(worlds)
    repeat = np.ones(idx.size, np.int64) if repeats is None else np.asarray(repeats)
    for name, values in (("worlds", counts), ("repeats", repeat)):
        if values.shape != idx.shape or (values.size and (
                values.dtype.kind not in "iu" or values.min() < 1)):
            raise ValueError(f"{name} must give a positive count for each of the "
                             f"{idx.size} games, got {values!r}")
    if int((counts.astype(np.int64) * repeat).sum()) > MAX_WORLDS:
        raise ValueError(f"at most {MAX_WORLDS} worlds (with their repeats) at once")
    if engine.state.done[idx].any():
        raise ValueError(f"game {int(idx[engine.state.done[idx]][0])} is over: there is "
                         "no decision to plan")
    return idx, counts.astype(np.int64), repeat.astype(np.int64)


def _world_weight(drew_on_weight: float) -> float:
    weight = checks.real(drew_on_weight, "drew_on_weight")
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"drew_on_weight must be in (0, 1], got {drew_on_weight!r}")
    return weight


def search_values(engine: Engine, games: np.ndarray, actions: list[np.ndarray],
                  worlds: np.ndarray, policy: PlayoutPolicy, others: PlayoutPolicy,
                  horizon: int, rng: np.random.Generator, drew_on_weight: float
                  ) -> list[np.ndarray]:
    """:func:`world_values` (``numba`` backend) without its checks of the
    request, for a search that asks it at every decision: ``games`` (``int64``) must be
    running games of ``engine``, ``actions[i]`` (``int64``) legal actions of game
    ``games[i]``, ``worlds`` (``int64``) positive counts, in all at most ``MAX_WORLDS``
    rows with the repeats, ``horizon`` >= 0 and ``drew_on_weight`` in (0, 1]. The same
    values from the same random numbers as ``world_values``."""
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError("search_values runs on the numba backend only")
    repeat = np.array([a.size for a in actions], np.int64)
    first = np.repeat(np.concatenate(actions), np.repeat(worlds, repeat))
    keys = seed_key(rng.integers(0, 2**62, int(worlds.sum())))
    rows = first.size
    seats = np.repeat(engine.state.current[games], repeat * worlds)
    if uses_streams(policy, others):
        streams = np.zeros((rows, 2), np.uint64)
        streams[:, 0] = rng.integers(0, 2**63, rows, dtype=np.uint64)
    else:
        streams = np.zeros((0, 2), np.uint64)
    values = kernels.world_values(engine.state, games, repeat, worlds, keys, drew_on_weight,
                                  first, seats, horizon, policy_tables(policy, others), streams)
    out, at = [], 0
    for r, n in zip(repeat.tolist(), worlds.tolist(), strict=True):
        out.append(values[at:at + r * n].reshape(r, n))
        at += r * n
    return out


def _table_kernels(engine: Engine, policy: PlayoutPolicy, name: str) -> Any:
    if policy.kind == RANDOM_PLAY:
        raise ValueError("a random_play table draws from playout streams: no plain choice")
    kernels = engine._kernels
    if kernels is None:
        raise NotImplementedError(f"{name} runs on the numba backend only")
    return kernels


def policy_scores(engine: Engine, games: np.ndarray, policy: PlayoutPolicy) -> np.ndarray:
    """``float64[n, A]``: the scores ``policy`` (a ``LINEAR`` or ``GREEDY`` table) gives the
    legal actions of the acting player of each listed running game of ``engine``
    (``numba`` backend), ``-inf`` for the other actions: computed from the game's state by
    :mod:`uno_env.engine.compiled.scoring`, the numbers the numpy scores of that
    player's observation give (:mod:`uno_env.engine.scoring`)."""
    return _table_kernels(engine, policy, "policy_scores").scores(
        engine.state, np.ascontiguousarray(games, np.int64), policy_tables(policy, policy))


def policy_actions(engine: Engine, games: np.ndarray, policy: PlayoutPolicy) -> np.ndarray:
    """``int64[n]``: the action ``policy`` (a ``LINEAR`` or ``GREEDY`` table) picks for the
    acting player of each listed running game of ``engine`` (``numba`` backend), scored
    from the game's state by the compiled scorer the playouts use: the action the agent's
    ``act`` picks from that player's observation."""
    return _table_kernels(engine, policy, "policy_actions").choose(
        engine.state, np.ascontiguousarray(games, np.int64), policy_tables(policy, policy))
