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
and ``info["illegal_action"] = True``. Malformed arguments raise before anything
changes (see :mod:`uno_env.checks`): ``TypeError`` for actions, seeds or options
of the wrong kind (floats, bools, strings, None, dicts, complex numbers),
``ValueError`` for a wrong number of actions or a value out of range (an action
id beyond 64 bits, a negative seed). A ``step_wait`` that raised drops the
actions of its ``step_async``.

``render_mode``: ``"ansi"`` or ``"rgb_array"`` (``render()`` gives the table of the
first game, from its learner's seat: :func:`uno_env.envs.render.render_frame`), or None.

A finished episode's info holds ``winner`` (a seat, -1 if none), ``learner_seat``,
``learner_won``, ``team_won`` (the learner's side won: the learner, or either
partner in team play) and, for the VecEnv, ``round_points``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import checks
from ..engine import Engine
from ..rules import Rules
from .learner import (
    LearnerCore,
    OpponentSpec,
    SeatSpec,
    action_space,
    make_rules,
    observation_space,
)
from .render import ENV_RENDER_MODES, check_render_mode, render_frame, render_rgb

try:  # Stable-Baselines3 is an optional dependency (the "train" extra)
    from stable_baselines3.common.vec_env import VecEnv

    _SB3VecEnv: type | None = VecEnv
except ImportError:  # pragma: no cover - exercised only without the extra
    _SB3VecEnv = None

# --- Stable-Baselines3 ----------------------------------------------------------------------

_VecEnvBase: type = _SB3VecEnv if _SB3VecEnv is not None else object


class UnoVecEnv(_VecEnvBase):
    """Stable-Baselines3 ``VecEnv`` of ``num_envs`` UNO games over one Engine.

    ``UnoVecEnv(num_envs=64, preset="official", num_players=4, opponents=None,
    learner_seat=0, seed=None, illegal_reward=-1.0, rules=None, render_mode=None,
    **rule_overrides)``.
    ``opponents``: ``None`` (random play), an agent name (``"greedy"``), an agent,
    or one agent per seat offset 1..P-1 from the learner.
    """

    def __init__(self, num_envs: int = 64, preset: str = "official", num_players: int | None = None,
                 opponents: OpponentSpec = None, learner_seat: SeatSpec = 0,
                 seed: int | None = None, illegal_reward: float = -1.0,
                 rules: Rules | None = None, render_mode: str | None = None,
                 **rule_overrides: Any) -> None:
        if _SB3VecEnv is None:  # pragma: no cover
            raise ImportError("UnoVecEnv needs stable-baselines3: pip install 'uno-env[train]'")
        check_render_mode(render_mode)
        self.render_mode = render_mode
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
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        return self.core.observe()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset`` (games ``seed, seed+1, ...``)."""
        return super().seed(checks.seed(seed, count=self.num_envs))

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = checks.action_array(actions, (self.num_envs,), reshape=True)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game; finished ones are reset at once (same-step autoreset)."""
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        core = self.core
        rewards, terminated, truncated, illegal = core.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            last_obs = core.observe(ended)
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

    def render(self, mode: str | None = None) -> str | np.ndarray | None:
        """The first game's table from its learner's seat, in ``render_mode`` (``mode``,
        SB3's older argument, must be the same when given)."""
        if mode is not None and mode != self.render_mode:
            raise ValueError(f"render(mode={mode!r}): this env renders {self.render_mode!r} "
                             f"(its render_mode)")
        return render_frame(self.render_mode, self.engine, 0, int(self.core.seats[0]))

    def get_images(self) -> list[np.ndarray | None]:
        """Every game's picture with ``render_mode="rgb_array"`` (None otherwise)."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        return [render_rgb(self.engine, g, int(self.core.seats[g]))
                for g in range(self.num_envs)]


# --- Gymnasium ------------------------------------------------------------------------------

class UnoVectorEnv(VectorEnv):
    """Gymnasium ``VectorEnv`` of ``num_envs`` UNO games over one Engine (same-step autoreset).

    Same arguments as :class:`UnoVecEnv`. ``step`` returns the next episode's
    first observation for games that just ended; their last observation is in
    ``infos["final_obs"]`` and their summary in ``infos["final_info"]`` (masked by
    ``infos["_final_obs"]``), as Gymnasium's ``SyncVectorEnv`` does in
    ``AutoresetMode.SAME_STEP``. ``infos["action_mask"]`` always holds the masks.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP,
                                "render_modes": list(ENV_RENDER_MODES), "render_fps": 2}

    def __init__(self, num_envs: int = 64, preset: str = "official", num_players: int | None = None,
                 opponents: OpponentSpec = None, learner_seat: SeatSpec = 0,
                 seed: int | None = None, illegal_reward: float = -1.0,
                 rules: Rules | None = None, render_mode: str | None = None,
                 **rule_overrides: Any) -> None:
        check_render_mode(render_mode)
        rules = make_rules(rules, preset, num_players, **rule_overrides)
        self.core = LearnerCore(rules, num_envs, opponents, learner_seat, seed, illegal_reward)
        self.num_envs = int(num_envs)
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = render_mode

    @property
    def rules(self) -> Rules:
        return self.core.rules

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New episodes everywhere (``seed``: an int for ``seed, seed+1, ...`` or one per game)."""
        self.core.reset(seed=seed)   # checks the seed first
        if seed is not None:
            first = np.reshape(seed, -1)[0]
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(int(first))
        return self.core.observe(), {"action_mask": self.core.action_masks()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                 dict[str, Any]]:
        core = self.core
        rewards, terminated, truncated, illegal = core.step(actions)
        infos: dict[str, Any] = {}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            last_obs = core.observe(ended)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for j, g in enumerate(ended):
                final_obs[g] = last_obs[j]
            flags = np.zeros(self.num_envs, bool)
            flags[ended] = True
            s = core.engine.state
            infos["final_obs"], infos["_final_obs"] = final_obs, flags
            infos["final_info"] = {
                "winner": s.winner.copy(), "_winner": flags.copy(),
                "learner_seat": core.seats.copy(), "_learner_seat": flags.copy(),
                "team_won": core.engine.rules.side_won(s.winner, core.seats),
                "_team_won": flags.copy(),
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

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The first game's table from its learner's seat, in ``render_mode``."""
        return render_frame(self.render_mode, self.core.engine, 0, int(self.core.seats[0]))
