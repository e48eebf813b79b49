"""RLCard's UNO as a PettingZoo AEC environment, the reference of the AEC benchmark.

PettingZoo's classic suite used to ship UNO as an RLCard-based environment
(``uno_v4``): an ``AECEnv`` over ``rlcard.make("uno")`` for two players,
``player_0`` and ``player_1``, observing ``{"observation": int8[4, 4, 15],
"action_mask": int8[61]}`` (the first four planes of RLCard's encoding: the
observer's hand and the target card), with RLCard's payoffs as rewards at the
end of the game, inside the standard wrapper stack. Current PettingZoo
releases no longer include it, so this module restates that environment with
the same structure and the same per-step work (one ``env.step``, one
``get_state`` per observation, the mask built from RLCard's legal actions), so
that ``experiments/bench.py`` can time the same ``agent_iter`` loop over it and
over :func:`uno_env.env`.

Only the benchmark (``experiments/bench.py``) and its smoke test use this module;
it needs ``rlcard`` (the ``bench`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import rlcard
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

#: Observation planes kept from RLCard's (7, 4, 15) UNO encoding: the observer's
#: hand (3 planes: holds 0, 1 or 2 copies) and the target card. The other three
#: planes encode the opponent's hand, which a player does not see.
VISIBLE_PLANES = 4


def env(illegal_reward: float = -1.0, render_mode: str | None = None) -> AECEnv:
    """RLCard's UNO in PettingZoo's standard wrappers, as the former ``uno_v4.env()``."""
    aec: AECEnv = raw_env(render_mode=render_mode)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=illegal_reward)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


class raw_env(AECEnv):  # PettingZoo's naming convention
    """Two-player UNO from RLCard behind the AEC API (no wrappers)."""

    metadata = {"render_modes": ["human"], "name": "rlcard_uno", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        self.render_mode = render_mode
        self.num_players = 2
        self.env = self._make(seed=None)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = self.possible_agents[:]
        self.num_actions = int(self.env.num_actions)
        obs_shape = (VISIBLE_PLANES, 4, 15)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, obs_shape, np.int8),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.next_legal_moves: list[int] = []

    def _make(self, seed: int | None) -> Any:
        """A fresh RLCard UNO env (re-made on seeding, as PettingZoo's RLCard envs did)."""
        return rlcard.make("uno", config={"allow_step_back": False, "seed": seed,
                                          "game_num_players": self.num_players})

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's visible planes and the acting player's legal actions as an int8 mask."""
        state = self.env.get_state(self.possible_agents.index(agent))
        observation = state["obs"][:VISIBLE_PLANES].astype(np.int8)
        mask = np.zeros(self.num_actions, np.int8)
        for i in self.next_legal_moves:
            mask[i] = 1
        return {"observation": observation, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game; ``seed`` re-makes the RLCard env with that seed."""
        if seed is not None:
            self.env = self._make(seed)
        state, player = self.env.reset()
        self.agents = self.possible_agents[:]
        self.agent_selection = self.possible_agents[player]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.next_legal_moves = sorted(state["legal_actions"])

    def step(self, action: int | None) -> None:
        """Play the acting agent's action; at the end every agent gets RLCard's payoff."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state, player = self.env.step(action)
        if self.env.is_over():
            payoffs = self.env.get_payoffs()
            self.rewards = {a: float(payoffs[i]) for i, a in enumerate(self.possible_agents)}
            self.next_legal_moves = []
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.next_legal_moves = list(state["legal_actions"])
        self._cumulative_rewards[agent] = 0.0
        self.agent_selection = self.possible_agents[player]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> None:
        """Print the acting player's hand and the target card (RLCard's own notation)."""
        state = self.env.game.get_state(self.possible_agents.index(self.agent_selection))
        print(f"{self.agent_selection}: {' '.join(state['hand'])} | target {state['target']}")

    def close(self) -> None:
        pass
