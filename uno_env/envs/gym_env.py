"""Single-agent Gymnasium environment: one learner seat, opponents play inside ``step``.

``gymnasium.make("uno_env/Uno-v0", preset="official", num_players=4,
opponents=None, learner_seat=0, **rule_overrides)``

* observation: ``Box(float32, (OBS_SIZE,))``, the learner's egocentric view
  (see :mod:`uno_env.engine.observe`);
* action: ``Discrete(NUM_ACTIONS)``, the one action table of :mod:`uno_env.actions`;
* ``env.action_masks()`` gives the legal actions (``bool[NUM_ACTIONS]``), as
  sb3-contrib's ``MaskablePPO`` expects; ``info["action_mask"]`` carries the same;
* opponents: ``None`` (uniformly random legal play), an agent name such as
  ``"greedy"``, a batch agent (:mod:`uno_agents`), or one per seat clockwise after
  the learner. They act inside ``reset`` and ``step`` until the learner must
  decide or the episode ends;
* ``learner_seat``: a seat, ``"rotate"`` (one seat further every episode) or
  ``"random"``;
* reward: the learner's engine reward (rules option ``reward``), summed over
  the learner's move and the opponents' moves that followed it;
* an **illegal action** (not in ``action_masks()``) is not played: the episode
  terminates with reward ``illegal_reward`` (default -1.0) and
  ``info["illegal_action"] = True``. Call ``reset`` afterwards, as after any end;
* truncation after ``max_turns`` decisions (rules option) is a truncation;
* ``render_mode``: ``"ansi"`` (``render()`` returns the table as text) or
  ``"rgb_array"`` (a ``uint8[600, 960, 3]`` picture, for Gymnasium's ``RecordVideo``;
  needs the ``render`` extra), both seen from the learner's seat;
* bad arguments raise before anything changes (see :mod:`uno_env.checks`):
  ``TypeError`` for an action, seed, ``learner_seat`` or ``illegal_reward`` of the
  wrong kind (a float, string, bool, None ...), ``ValueError`` for one out of
  its range, ``RuntimeError`` for ``step`` after the episode ended.

Finished episodes report ``info["winner"]``, ``info["learner_won"]``,
``info["team_won"]`` (the learner's side won: the learner, or its partner in team
play), ``info["learner_seat"]`` and ``info["round_points"]``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

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
from .render import ENV_RENDER_MODES, check_render_mode, render_frame

ENV_ID = "uno_env/Uno-v0"


class UnoEnv(gym.Env):
    """One UNO game seen from the learner's seat (see the module documentation)."""

    metadata: dict[str, Any] = {"render_modes": list(ENV_RENDER_MODES), "render_fps": 2}

    def __init__(self, preset: str = "official", num_players: int | None = None,
                 opponents: OpponentSpec = None, learner_seat: SeatSpec = 0,
                 illegal_reward: float = -1.0, rules: Rules | None = None,
                 render_mode: str | None = None, **rule_overrides: Any) -> None:
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.rules = make_rules(rules, preset, num_players, **rule_overrides)
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.core = LearnerCore(self.rules, 1, opponents, learner_seat, seed=None,
                                illegal_reward=illegal_reward)
        self._episodes = 0
        self._over = True

    @property
    def engine(self) -> Engine:
        return self.core.engine

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current episode."""
        return int(self.core.seats[0])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game and let the opponents play up to the learner's first decision."""
        super().reset(seed=checks.seed(seed))
        core = self.core
        core.rng = self.np_random          # opponents draw from the env's generator
        engine_seed = int(self.np_random.integers(2**62))
        spec = core.learner_seat
        if spec == "rotate":
            seat = self._episodes % self.rules.num_players
        elif spec == "random":
            seat = int(self.np_random.integers(self.rules.num_players))
        else:
            seat = int(spec)
        core.reset(seed=[engine_seed], games=np.array([0]), seats=np.array([seat]))
        self._episodes += 1
        self._over = bool(core.done[0])
        return core.observe()[0], self._info()

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool,
                                                       dict[str, Any]]:
        """Play the learner's action, then the opponents' until the learner decides again."""
        if self._over:
            raise RuntimeError("the episode has ended: call reset() before step()")
        core = self.core
        rewards, terminated, truncated, illegal = core.step(np.array([checks.action(action)]))
        self._over = bool(terminated[0] or truncated[0])
        info = self._info()
        if illegal[0]:
            info["illegal_action"] = True
        return core.observe()[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The table seen from the learner's seat: text (``ansi``) or a picture
        (``rgb_array``), as ``render_mode`` says."""
        return render_frame(self.render_mode, self.engine, 0, self.learner_seat)

    def action_masks(self) -> np.ndarray:
        """``bool[NUM_ACTIONS]``: the learner's legal actions (all False once the episode ends)."""
        return self.core.action_masks()[0]

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks()}
        if self.core.done[0]:
            info.update(self.core.episode_info(np.array([0]))[0])
        return info
