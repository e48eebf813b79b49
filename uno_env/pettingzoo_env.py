"""PettingZoo AEC environment: one UNO game on a one-game :class:`~uno_env.Engine`.

``env(preset="official", num_players=4)`` returns the environment inside
PettingZoo's standard wrapper stack (illegal moves end the game with
``illegal_reward`` for the offender, out-of-range actions raise, calls out of
order raise); ``raw_env`` is the bare environment.

Bad arguments raise before anything changes (see :mod:`uno_env.checks`): an
action that is not an integer (a float, string, bool, or None while the agent
acts) or a seed that is not one raises ``TypeError`` naming it; a negative or too
large seed ``ValueError``. Out of the id range, an action raises
``AssertionError`` in the wrapped env (PettingZoo's ``AssertOutOfBoundsWrapper``)
and :class:`~uno_env.IllegalActionError` in ``raw_env``, as an illegal one does
there.

The adapter holds no game logic: the engine decides who acts next (the same
agent may act several times in a row: a color choice, a decision on a drawn
card, a challenge, ...), which actions are legal, the rewards (docs/rules.md:
winner +1, every other player -1/(P-1), or the ``reward`` option) and when the
round is truncated by ``max_turns``. When the episode ends every agent's info
holds ``winner`` (an agent name, None if nobody won), ``team_won`` (the agent's
side won: the agent, or either partner in team play) and ``round_points``.

Agents are ``player_0 .. player_{P-1}`` (seat numbers). Each observes
``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}``; the
mask is all zeros for an agent that is not acting. ``reset(seed=s)`` deals
exactly the game that a batch ``Engine(rules, n, seed=0)`` plays as its game
``s``, so the same actions replay it.

With PettingZoo 1.27 or later the environment is registered in its registry as
``uno_env/uno_v0``:
``pettingzoo.make("aec", "uno_env/uno_v0", preset="federation")``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import checks
from .actions import NUM_ACTIONS
from .engine import Engine
from .engine.observe import OBS_SIZE, observation_bounds
from .learner import make_rules
from .render import render_ansi, render_rgb
from .rules import Rules

#: Id of the environment in PettingZoo's registry.
REGISTRY_ID = "uno_env/uno_v0"

def env(preset: str = "official", num_players: int = 4, render_mode: str | None = None,
        *, illegal_reward: float = -1.0, **rule_overrides: Any) -> AECEnv:
    """The UNO AEC environment inside PettingZoo's standard wrapper stack.

    ``preset`` names a rule preset (``uno_env.PRESETS``) and ``rule_overrides``
    change single options (``env("official", 3, challenge=False)``). An illegal
    action ends the game: the offender gets ``illegal_reward``, everyone else 0.
    The wrappers are PettingZoo's, with faster attribute forwarding (see
    :class:`_Forwarded`).
    """
    aec: AECEnv = raw_env(preset=preset, num_players=num_players, render_mode=render_mode,
                          **rule_overrides)
    aec = _TerminateIllegal(aec, illegal_reward=illegal_reward)
    aec = _AssertOutOfBounds(aec)
    aec = _OrderEnforcing(aec)
    return aec


class _Forwarded:
    """An attribute of the unwrapped env, read through a wrapper at the cost of one call.

    PettingZoo's wrappers forward attribute reads in ``__getattr__``, which Python
    calls only after an ordinary lookup has failed and raised, at every level of
    the stack; the agent loop reads the AEC bookkeeping (``agent_selection``,
    ``rewards``, ...) a dozen times per step, which cost more than the rest of the
    adapter. As a class attribute of the wrapper, this descriptor returns the
    same value straight from the unwrapped env: none of the wrappers holds these
    attributes itself (they write them on ``env.unwrapped``). It is a non-data
    descriptor, so an attribute set on the outer wrapper still takes precedence,
    as before. ``before_reset=False`` keeps ``OrderEnforcingWrapper``'s rule:
    until ``reset()`` the read fails, and the wrapper's ``__getattr__`` raises
    its usual error.
    """

    def __init__(self, before_reset: bool = True) -> None:
        self.before_reset = before_reset
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, wrapper: Any, owner: type | None = None) -> Any:
        if wrapper is None:
            return self
        if not (self.before_reset or wrapper._has_reset):
            raise AttributeError(self.name)
        return getattr(wrapper._base_env, self.name)


class _ForwardingWrapper(wrappers.BaseWrapper):
    """Mixin for a PettingZoo wrapper: the AEC bookkeeping read through :class:`_Forwarded`."""

    agents = _Forwarded()
    agent_selection = _Forwarded()
    rewards = _Forwarded()
    _cumulative_rewards = _Forwarded()
    terminations = _Forwarded()
    truncations = _Forwarded()
    infos = _Forwarded()

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, *args, **kwargs)
        self._base_env = env.unwrapped


class _TerminateIllegal(_ForwardingWrapper, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with fast attribute forwarding."""


class _AssertOutOfBounds(_ForwardingWrapper, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with fast attribute forwarding; an
    action that is not an integer raises ``TypeError`` (a bool would pass its check)."""

    def step(self, action: Any) -> None:
        _check_action(self._base_env, action)
        super().step(action)


def _check_action(env: raw_env, action: Any) -> int | None:
    """The action as an int; None only for an agent whose episode ended."""
    agent = env.agent_selection
    if action is None and (env.terminations[agent] or env.truncations[agent]):
        return None
    return checks.action(action)


class _OrderEnforcing(_ForwardingWrapper, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with fast attribute forwarding.

    The attributes it guards stay unreadable until ``reset()``.
    """

    agents = _Forwarded(before_reset=False)
    agent_selection = _Forwarded(before_reset=False)
    rewards = _Forwarded(before_reset=False)
    terminations = _Forwarded(before_reset=False)
    truncations = _Forwarded(before_reset=False)
    infos = _Forwarded(before_reset=False)

    def __str__(self) -> str:
        return str(self.env)  # the base class names a subclass in its string


class raw_env(AECEnv):  # PettingZoo's naming convention
    """UNO as a PettingZoo AEC environment over a one-game engine (no wrappers).

    ``rules`` (a :class:`~uno_env.Rules`) may be given instead of ``preset``,
    ``num_players`` and ``rule_overrides``. Raises ``ValueError`` for invalid
    rules.
    """

    metadata: dict[str, Any] = {
        "name": "uno_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, preset: str = "official", num_players: int | None = None,
                 render_mode: str | None = None, *, rules: Rules | None = None,
                 **rule_overrides: Any) -> None:
        super().__init__()
        if rules is None or not rule_overrides:
            rules = make_rules(rules, preset, num_players, **rule_overrides)
        else:   # options given with rules change them
            rules = make_rules(rules, preset, num_players).replace(**rule_overrides)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        self.rules = rules
        self.render_mode = render_mode
        self.engine = Engine(rules, 1)
        self.possible_agents = [f"player_{i}" for i in range(rules.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = observation_bounds()
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low, high, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }) for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._no_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._clear_episode()

    def _clear_episode(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.engine.state.current[0])]

    # --- spaces -------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # --- episode ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new round. ``seed`` makes it reproducible; without one, the next
        episode is derived from the previous one. ``options`` is accepted for API
        compatibility and not used."""
        self.engine.reset(seed=checks.seed(seed))
        self._clear_episode()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees: its egocentric observation and, when it acts, the legal mask."""
        eng = self.engine
        seat = self.agent_name_mapping[agent]
        # the acting player's view is the engine's default: no seat to check and broadcast
        obs = (eng.observe() if seat == eng.state.current[0] else eng.observe(players=seat))[0]
        if agent == self.agent_selection and not eng.state.done[0]:
            mask = eng.legal_action_mask()[0].astype(np.int8)
        else:
            mask = self._no_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The acting agent takes ``action``; the engine moves to the next decision."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action_id = _check_action(self, action)
        eng = self.engine
        rewards, terminated, truncated = eng.step(np.array([action_id], np.int64))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.possible_agents, rewards[0].tolist(), strict=True))
        if terminated[0] or truncated[0]:
            term, trunc = bool(terminated[0]), bool(truncated[0])
            self.terminations = dict.fromkeys(self.agents, term)
            self.truncations = dict.fromkeys(self.agents, trunc)
            winner = int(eng.state.winner[0])
            points = eng.state.round_points[0]
            self.infos = {a: {"winner": self.possible_agents[winner] if winner >= 0 else None,
                              "team_won": bool(eng.rules.side_won(winner, i)),
                              "round_points": int(points[i])}
                          for i, a in enumerate(self.possible_agents)}
        self.agent_selection = self.possible_agents[int(eng.state.current[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- rendering ----------------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the table as colored text; ``rgb_array``: a picture; ``human``: print it.

        The table is seen by the acting agent (its hand is shown).
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= "
                                  "to env() or raw_env()")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.engine)
        text = render_ansi(self.engine)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def _register() -> None:
    """Register ``uno_env/uno_v0`` with PettingZoo's registry (once)."""
    try:
        from pettingzoo import register, spec
    except ImportError:  # PettingZoo before 1.27 has no registry
        return
    try:
        spec("aec", REGISTRY_ID)
    except Exception:  # not registered yet (PettingZoo raises its NameNotFound)
        register("aec", REGISTRY_ID, entry_point=f"{__name__}:env")


_register()
