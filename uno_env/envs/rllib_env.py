"""Ray RLlib adapter: a turn-based ``MultiAgentEnv`` over a one-game Engine.

Agents are ``player_0 .. player_{P-1}``. Each step returns an observation only
for the player who must act next (the same player may act several times in a
row: color choice, after-draw, challenge ...), as a dict
``{"observations": float32[OBS_SIZE], "action_mask": float32[NUM_ACTIONS]}``, the
layout RLlib's action-masking RLModules expect
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``). When the episode
ends every player gets its last observation, its reward and an info with
``winner`` (a seat) and ``team_won`` (its side won: the player, or either partner
in team play); rewards are
otherwise passed to a player as soon as the engine produces them. An illegal
action (outside the mask) is not played: the episode terminates and its player
gets ``illegal_reward`` (default -1), the others 0.

``env_config`` keys: ``preset`` (default ``"official"``), ``num_players`` (4),
``seed`` (optional), ``illegal_reward`` (-1.0), and any rule option. Needs the
``rllib`` extra; Ray is imported here only, so ``import uno_env`` never needs it.

Bad input raises before anything changes (see :mod:`uno_env.checks`): an action
or seed that is not an integer (a float, string, bool ...) ``TypeError``; an
action for a player who is not acting, or a seed out of range, ``ValueError``;
``step`` after the episode ended ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from .. import checks
from ..actions import NUM_ACTIONS
from ..engine import Engine
from .learner import action_space, make_rules, observation_space

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.typing import MultiAgentDict
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError("uno_env.rllib_env needs Ray RLlib: pip install 'uno-env[rllib]'") from err

DEFAULT_ENV_NAME = "uno_env"


def agent_id(seat: int) -> str:
    """The RLlib agent id of a seat."""
    return f"player_{seat}"


class UnoMultiAgentEnv(MultiAgentEnv):
    """One UNO game; every seat is an RLlib agent (see the module documentation)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        preset = config.pop("preset", "official")
        num_players = config.pop("num_players", None)
        self._seed = checks.seed(config.pop("seed", None))
        self.illegal_reward = checks.real(config.pop("illegal_reward", -1.0), "illegal_reward")
        self.rules = make_rules(config.pop("rules", None), preset, num_players, **config)
        self.num_players = self.rules.num_players
        self.possible_agents = [agent_id(p) for p in range(self.num_players)]
        self.agents = list(self.possible_agents)
        space = gym.spaces.Dict({
            "observations": observation_space(),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self._rng = np.random.default_rng(self._seed)
        self.engine = Engine(self.rules, 1, int(self._rng.integers(2**62)))
        self._over = False

    def _obs(self, seat: int) -> dict[str, np.ndarray]:
        mask = self.engine.legal_action_mask()[0]
        if int(self.engine.state.current[0]) != seat:
            mask = np.zeros_like(mask)
        return {"observations": self.engine.observe(seat)[0],
                "action_mask": mask.astype(np.float32)}

    # RLlib's MultiAgentEnv derives from gymnasium's Env but resets and steps with one
    # dict per agent, which the typing of gymnasium's Env does not allow for.
    def reset(self, *, seed: int | None = None,  # type: ignore[override]
              options: dict[str, Any] | None = None) -> tuple[MultiAgentDict, MultiAgentDict]:
        """Deal a new game; only the first player to act gets an observation."""
        seed = checks.seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.engine.reset(seed=int(self._rng.integers(2**62)))
        self._over = False
        seat = int(self.engine.state.current[0])
        return {agent_id(seat): self._obs(seat)}, {}

    def step(self, action_dict: MultiAgentDict  # type: ignore[override]
             ) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the acting player's action; observe the next player (all at the end)."""
        seat = int(self.engine.state.current[0])
        action = self._action(action_dict, agent_id(seat))
        if not (0 <= action < NUM_ACTIONS and self.engine.legal_action_mask()[0, action]):
            return self._forfeit(seat)
        actor = agent_id(seat)
        rewards_p, terminated, truncated = self.engine.step(np.array([action], np.int64))
        done = bool(terminated[0] or truncated[0])
        self._over = done
        rewards: MultiAgentDict = {agent_id(p): float(r) for p, r in enumerate(rewards_p[0])
                                   if r != 0.0}
        if done:
            obs = {a: self._obs(p) for p, a in enumerate(self.possible_agents)}
            rewards = {a: rewards.get(a, 0.0) for a in self.possible_agents}
            winner = int(self.engine.state.winner[0])
            infos = {a: {"winner": winner,
                         "team_won": bool(self.engine.rules.side_won(winner, p))}
                     for p, a in enumerate(obs)}
        else:
            nxt = int(self.engine.state.current[0])
            obs = {agent_id(nxt): self._obs(nxt)}
            # RLlib wants a reward (maybe 0) for the actor and the observed player
            rewards.setdefault(actor, 0.0)
            rewards.setdefault(agent_id(nxt), 0.0)
            infos = {}
        term = {"__all__": bool(terminated[0])}
        trunc = {"__all__": bool(truncated[0])}
        return obs, rewards, term, trunc, infos


    def _action(self, action_dict: Any, actor: str) -> int:
        """The acting player's action from ``action_dict``, which must hold it alone."""
        if self._over:
            raise RuntimeError("the episode has ended: call reset() before step()")
        if not isinstance(action_dict, dict):
            raise TypeError(f"action_dict must be a dict of agent ids to actions, got "
                            f"{checks.describe(action_dict)}")
        others = sorted(str(a) for a in action_dict if a != actor)
        if others:
            raise ValueError(f"actions given for {', '.join(others)}, but only {actor} acts now")
        if actor not in action_dict:
            raise ValueError(f"expected an action for {actor}, got none")
        return checks.action(action_dict[actor], f"the action of {actor}")

    def _forfeit(self, seat: int) -> tuple[dict, dict, dict, dict, dict]:
        """An illegal action ends the episode: the offender gets ``illegal_reward``."""
        self._over = True
        obs = {a: self._obs(p) for p, a in enumerate(self.possible_agents)}
        for ob in obs.values():
            ob["action_mask"][:] = 0.0
        rewards = {a: 0.0 for a in self.possible_agents}
        rewards[agent_id(seat)] = self.illegal_reward
        infos = {a: {"illegal_action": p == seat} for p, a in enumerate(self.possible_agents)}
        return obs, rewards, {"__all__": True}, {"__all__": False}, infos


def register_rllib_env(name: str = DEFAULT_ENV_NAME, **defaults: Any) -> str:
    """Register :class:`UnoMultiAgentEnv` with Ray Tune under ``name``; returns ``name``.

    ``defaults`` are env-config entries (preset, num_players, rule options) that
    the algorithm's ``env_config`` may override.
    """
    from ray.tune.registry import register_env

    def creator(env_config: dict[str, Any]) -> UnoMultiAgentEnv:
        return UnoMultiAgentEnv({**defaults, **dict(env_config or {})})

    register_env(name, creator)
    return name
