"""Natively batched single-learner environments over one :class:`~uno_env.Engine`.

One Engine holds ``num_envs`` games. In every game one seat is the *learner*;
the other seats are played by batch agents (opponents) inside ``step``: after
the learner's action, the opponents of every game that waits on them act
together, game subsets shrinking until each game waits on its learner again or
has ended. No Python loop runs over games.

Two front ends share that core:

* :class:`UnoVecEnv`, a Stable-Baselines3 ``VecEnv`` (same-step autoreset, the
  last observation of a finished episode in ``infos[i]["terminal_observation"]``,
  ``infos[i]["TimeLimit.truncated"]`` on truncation, ``action_masks()`` for
  sb3-contrib's ``MaskablePPO``);
* :class:`UnoVectorEnv`, a Gymnasium ``VectorEnv`` declaring
  ``AutoresetMode.SAME_STEP`` (the last observation in ``infos["final_obs"]``, the
  last info in ``infos["final_info"]``).

Learner seat: a fixed seat, ``"rotate"`` (game ``i`` starts at seat
``i % num_players`` and moves one seat on every episode) or ``"random"``.
Opponents are listed by seat offset clockwise from the learner.

Illegal learner actions (not in ``action_masks()``) do not reach the engine: the
episode ends at once, ``terminated`` with reward ``illegal_reward`` (default -1)
and ``info["illegal_action"] = True``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .actions import NUM_ACTIONS
from .engine import Engine
from .engine.observe import OBS_SIZE
from .rules import Rules

try:  # Stable-Baselines3 is an optional dependency (the "train" extra)
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnv
except ImportError:  # pragma: no cover - exercised only without the extra
    _SB3VecEnv = None

SeatSpec = int | str
OpponentSpec = Any  # None, an agent name, an agent, or a list of those (one per offset)


def observation_space() -> gym.spaces.Box:
    """The Box every learner observation lies in (one flat float32 vector)."""
    return gym.spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)


def action_space() -> gym.spaces.Discrete:
    """The action space shared by every preset and player count."""
    return gym.spaces.Discrete(NUM_ACTIONS)


def make_rules(rules: Rules | None = None, preset: str = "official", num_players: int = 4,
               **rule_overrides: Any) -> Rules:
    """``rules`` itself, or the preset with ``num_players`` and any option overridden."""
    if rules is not None:
        if rule_overrides:
            raise ValueError("give either rules or rule options, not both")
        return rules
    return Rules.preset(preset, num_players=num_players, **rule_overrides)


def resolve_opponents(opponents: OpponentSpec, num_players: int) -> list[Any]:
    """One batch agent per seat offset 1..P-1 from ``None``, a name, an agent or a list."""
    from agents import make_agent  # the agents package ships with the project

    if opponents is None:
        opponents = "random"
    if isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence):
        shared = make_agent(opponents)
        return [shared] * (num_players - 1)
    if len(opponents) != num_players - 1:
        raise ValueError(f"opponents lists {len(opponents)} agents but {num_players} players "
                         f"need {num_players - 1} (one per seat after the learner)")
    return [make_agent(o) for o in opponents]


class LearnerCore:
    """The batched core: an Engine, the learner seats and the opponents' play.

    It steps, but never resets on its own: the front ends decide when. Games
    whose learner made an illegal move are *forfeited*: they count as
    terminated until reset, and the engine never sees the move.
    """

    def __init__(self, rules: Rules, num_games: int, opponents: OpponentSpec = None,
                 learner_seat: SeatSpec = 0, seed: int | None = None,
                 illegal_reward: float = -1.0) -> None:
        self.rules = rules
        self.num_games = int(num_games)
        self.num_players = rules.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in ("rotate", "random"):
                raise ValueError(f"learner_seat must be a seat, 'rotate' or 'random', "
                                 f"got {learner_seat!r}")
        elif not 0 <= int(learner_seat) < self.num_players:
            raise ValueError(f"learner_seat={learner_seat} is not a seat 0-{self.num_players - 1}")
        self.learner_seat = learner_seat
        self.opponents = resolve_opponents(opponents, self.num_players)
        # distinct agents and the seat offsets each plays (usually one agent for all)
        self._groups: list[tuple[Any, np.ndarray]] = []
        for agent in dict.fromkeys(self.opponents):
            offsets = [k + 1 for k, a in enumerate(self.opponents) if a is agent]
            self._groups.append((agent, np.array(offsets)))
        # agents that declare they ignore observations get zeros (no observation is built)
        self._needs_obs = any(getattr(a, "uses_observations", True) for a in self.opponents)
        self._no_obs = np.zeros((num_games, OBS_SIZE), np.float32)
        self._no_obs.flags.writeable = False
        self.illegal_reward = float(illegal_reward)
        self.rng = np.random.default_rng(seed)
        self.engine = Engine(rules, self.num_games, self._engine_seed(seed))
        self.seats = self._first_seats()
        self.forfeit = np.zeros(self.num_games, bool)
        self._ar = np.arange(self.num_games)
        self.advance()

    def _engine_seed(self, seed: int | None) -> int:
        return int(seed) if seed is not None else int(self.rng.integers(2**62))

    def _first_seats(self) -> np.ndarray:
        n, p = self.num_games, self.num_players
        if self.learner_seat == "rotate":
            return np.arange(n, dtype=np.int64) % p
        if self.learner_seat == "random":
            return self.rng.integers(p, size=n)
        return np.full(n, int(self.learner_seat), np.int64)

    # --- episodes ---------------------------------------------------------------------------

    def reset(self, seed: int | Sequence[int] | None = None,
              games: np.ndarray | None = None) -> None:
        """New episodes in all games or in ``games``, played up to the learner's decision.

        ``seed`` as in :meth:`Engine.reset` (also reseeds the opponents' generator
        when it is an int); without it each game's next deal follows from its last.
        """
        if isinstance(seed, (int, np.integer)):
            self.rng = np.random.default_rng(int(seed))
        if games is None:
            self.engine.reset(seed)
            self.seats = self._first_seats()
            self.forfeit[:] = False
        else:
            idx = np.asarray(games, np.int64)
            if not idx.size:
                return
            self.engine.reset(seed, games=idx)
            if self.learner_seat == "rotate":
                self.seats[idx] = (self.seats[idx] + 1) % self.num_players
            elif self.learner_seat == "random":
                self.seats[idx] = self.rng.integers(self.num_players, size=idx.size)
            self.forfeit[idx] = False
        # Rewards here can only come from an episode ending before its learner ever
        # decides (a tiny max_turns); such an episode simply shows up as done.
        self.advance()

    @property
    def done(self) -> np.ndarray:
        """``bool[N]``: the episode has ended (won, truncated or forfeited)."""
        return self.engine.state.done | self.forfeit

    @property
    def terminated(self) -> np.ndarray:
        return self.engine.terminated | self.forfeit

    @property
    def truncated(self) -> np.ndarray:
        return self.engine.state.truncated & ~self.forfeit

    # --- decisions --------------------------------------------------------------------------

    def observe(self) -> np.ndarray:
        """``float32[N, D]``: every game seen by its learner."""
        return self.engine.observe(self.seats)

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]`` legal learner actions (all False where the episode has ended)."""
        mask = self.engine.legal_action_mask().copy()
        mask[self.forfeit] = False
        return mask

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The learner acts in every running game, then the opponents play on.

        Returns ``(rewards float32[N], terminated[N], truncated[N], illegal[N])``;
        rewards are the learner's engine rewards summed over everyone's moves.
        Actions of games that already ended are ignored.
        """
        a = np.asarray(actions)
        if a.shape != (self.num_games,):
            a = a.reshape(-1)
            if a.shape != (self.num_games,):
                raise ValueError(f"need {self.num_games} actions, got shape {np.shape(actions)}")
        if a.size and not np.issubdtype(a.dtype, np.integer) and not np.all(np.mod(a, 1) == 0):
            raise TypeError(f"actions must be integer action ids, got {a.dtype}")
        a = a.astype(np.int64)
        live = ~self.done
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        legal = self.engine.legal_action_mask()[self._ar, np.where(in_range, a, 0)] & in_range
        illegal = live & ~legal
        rewards = np.zeros(self.num_games, np.float32)
        idx = np.flatnonzero(live & legal)
        if idx.size:
            r, _, _ = self.engine.step(a[idx], games=idx)
            rewards[idx] += r[idx, self.seats[idx]]
        if illegal.any():
            self.forfeit |= illegal
            rewards[illegal] = self.illegal_reward
        rewards += self.advance()
        return rewards, self.terminated, self.truncated, illegal

    def advance(self) -> np.ndarray:
        """Let opponents act until every running game waits on its learner.

        Each round of the loop steps, at once, exactly the games whose acting
        player is an opponent (``Engine.step(actions, games=idx)``), so games
        already waiting on their learner stay untouched. Returns the learner's
        rewards collected on the way, ``float32[N]``.
        """
        eng = self.engine
        s = eng.state
        rewards = np.zeros(self.num_games, np.float32)
        limit = 2 * self.rules.max_turns * self.num_players + 10
        for _ in range(limit):
            idx = np.flatnonzero(~s.done & ~self.forfeit & (s.current != self.seats))
            if not idx.size:
                return rewards
            actions = self._opponent_actions(idx)
            r, _, _ = eng.step(actions, games=idx)
            rewards[idx] += r[idx, self.seats[idx]]
        raise RuntimeError("opponents did not hand the turn back to the learner "
                           f"within {limit} decisions")

    def _opponent_actions(self, idx: np.ndarray) -> np.ndarray:
        eng = self.engine
        current = eng.state.current[idx]
        obs = eng.observe()[idx] if self._needs_obs else self._no_obs[: idx.size]
        mask = eng.legal_action_mask()[idx]
        if len(self._groups) == 1:
            return np.asarray(self._groups[0][0].act(obs, mask, self.rng), np.int64)
        offset = (current - self.seats[idx]) % self.num_players
        actions = np.zeros(idx.size, np.int64)
        for agent, offsets in self._groups:
            rows = np.flatnonzero(np.isin(offset, offsets))
            if rows.size:
                actions[rows] = agent.act(obs[rows], mask[rows], self.rng)
        return actions

    def episode_info(self, games: np.ndarray) -> list[dict[str, Any]]:
        """Per-game summaries of finished episodes (winner, learner seat, round points)."""
        s = self.engine.state
        return [{"winner": int(s.winner[g]), "learner_seat": int(self.seats[g]),
                 "learner_won": bool(s.winner[g] == self.seats[g]),
                 "illegal_action": bool(self.forfeit[g]),
                 "round_points": s.round_points[g].copy()} for g in games]


# --- Stable-Baselines3 ----------------------------------------------------------------------

_VecEnvBase: type = _SB3VecEnv if _SB3VecEnv is not None else object


class UnoVecEnv(_VecEnvBase):  # type: ignore[misc, valid-type]
    """Stable-Baselines3 ``VecEnv`` of ``num_envs`` UNO games over one Engine.

    ``UnoVecEnv(num_envs=64, preset="official", num_players=4, opponents=None,
    learner_seat=0, seed=None, illegal_reward=-1.0, rules=None, **rule_overrides)``.
    ``opponents``: ``None`` (random play), an agent name (``"greedy"``), an agent,
    or one agent per seat offset 1..P-1 from the learner.
    """

    def __init__(self, num_envs: int = 64, preset: str = "official", num_players: int = 4,
                 opponents: OpponentSpec = None, learner_seat: SeatSpec = 0,
                 seed: int | None = None, illegal_reward: float = -1.0,
                 rules: Rules | None = None, **rule_overrides: Any) -> None:
        if _SB3VecEnv is None:  # pragma: no cover
            raise ImportError("UnoVecEnv needs stable-baselines3: pip install 'uno-env[train]'")
        self.render_mode = None
        rules = make_rules(rules, preset, num_players, **rule_overrides)
        self.core = LearnerCore(rules, num_envs, opponents, learner_seat, seed, illegal_reward)
        super().__init__(num_envs, observation_space(), action_space())
        self._actions: np.ndarray | None = None

    @property
    def rules(self) -> Rules:
        return self.core.rules

    @property
    def engine(self) -> Engine:
        return self.core.engine

    def reset(self) -> np.ndarray:
        """Fresh episodes in every game (seeded by the last ``seed()`` call, if any)."""
        seeds = self._seeds
        if all(s is not None for s in seeds):
            self.core.rng = np.random.default_rng(int(seeds[0]))
            self.core.reset(seed=[int(s) for s in seeds])
        else:
            self.core.reset()
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.core.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game; finished ones are reset at once (same-step autoreset)."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        core = self.core
        rewards, terminated, truncated, illegal = core.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            last_obs = core.observe()[ended]
            summaries = core.episode_info(ended)
            for j, g in enumerate(ended):
                info = infos[g]
                info.update(summaries[j])
                info["terminal_observation"] = last_obs[j]
                info["TimeLimit.truncated"] = bool(truncated[g] and not terminated[g])
            core.reset(games=ended)
        return core.observe(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]``: the learner's legal actions in every game."""
        return self.core.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The batched env's attribute, once per requested game (all games share it)."""
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        """``action_masks`` gives each game's row; other methods run once on the batch."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[idx])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> list[None]:
        return [None] * self.num_envs


# --- Gymnasium ------------------------------------------------------------------------------

class UnoVectorEnv(VectorEnv):
    """Gymnasium ``VectorEnv`` of ``num_envs`` UNO games over one Engine (same-step autoreset).

    Same arguments as :class:`UnoVecEnv`. ``step`` returns the next episode's
    first observation for games that just ended; their last observation is in
    ``infos["final_obs"]`` and their summary in ``infos["final_info"]`` (masked by
    ``infos["_final_obs"]``), as Gymnasium's ``SyncVectorEnv`` does in
    ``AutoresetMode.SAME_STEP``. ``infos["action_mask"]`` always holds the masks.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 64, preset: str = "official", num_players: int = 4,
                 opponents: OpponentSpec = None, learner_seat: SeatSpec = 0,
                 seed: int | None = None, illegal_reward: float = -1.0,
                 rules: Rules | None = None, **rule_overrides: Any) -> None:
        rules = make_rules(rules, preset, num_players, **rule_overrides)
        self.core = LearnerCore(rules, num_envs, opponents, learner_seat, seed, illegal_reward)
        self.num_envs = int(num_envs)
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    @property
    def rules(self) -> Rules:
        return self.core.rules

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New episodes everywhere (``seed``: an int for ``seed, seed+1, ...`` or one per game)."""
        if seed is not None:
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(
                int(seed) if isinstance(seed, (int, np.integer)) else int(seed[0]))
        self.core.reset(seed=seed)
        return self.core.observe(), {"action_mask": self.core.action_masks()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                 dict[str, Any]]:
        core = self.core
        rewards, terminated, truncated, illegal = core.step(actions)
        infos: dict[str, Any] = {}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            last_obs = core.observe()
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in ended:
                final_obs[g] = last_obs[g]
            flags = np.zeros(self.num_envs, bool)
            flags[ended] = True
            s = core.engine.state
            infos["final_obs"], infos["_final_obs"] = final_obs, flags
            infos["final_info"] = {
                "winner": s.winner.copy(), "_winner": flags.copy(),
                "learner_seat": core.seats.copy(), "_learner_seat": flags.copy(),
                "illegal_action": illegal.copy(), "_illegal_action": flags.copy(),
            }
            infos["_final_info"] = flags.copy()
            core.reset(games=ended)
        infos["action_mask"] = core.action_masks()
        infos["_action_mask"] = np.ones(self.num_envs, bool)
        return core.observe(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]``: the learner's legal actions in every game."""
        return self.core.action_masks()


# --- benchmark ------------------------------------------------------------------------------

def bench_vec_env(num_envs: int = 1024, steps: int = 200, num_players: int = 4,
                  preset: str = "official", opponents: OpponentSpec = None,
                  seed: int = 0) -> float:
    """Learner steps per second of :class:`LearnerCore` with a random learner.

    The learner plays uniformly among its legal actions (as a masked policy
    would), opponents are ``opponents`` (random by default), finished games are
    reset as :class:`UnoVecEnv` does. Counts ``num_envs * steps`` learner
    decisions, observations and masks included.
    """
    core = LearnerCore(Rules.preset(preset, num_players=num_players), num_envs, opponents,
                       learner_seat="rotate", seed=seed)
    rng = np.random.default_rng(seed)
    core.observe()
    start = time.perf_counter()
    for _ in range(steps):
        mask = core.action_masks()
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        _, terminated, truncated, _ = core.step(actions)
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            core.observe()
            core.reset(games=ended)
        core.observe()
    return num_envs * steps / (time.perf_counter() - start)


if __name__ == "__main__":  # pragma: no cover
    print(f"{bench_vec_env():,.0f} learner steps/s (1024 envs, 4 players, random opponents)")
