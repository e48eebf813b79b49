"""The learner core shared by the single and batched environments.

:class:`LearnerCore` drives one :class:`~uno_env.Engine` of N games in which one
seat per game is the learner and batch agents play the other seats. It holds no
RL-library API, so the Gymnasium env, the SB3 ``VecEnv`` and the Gymnasium
``VectorEnv`` are thin front ends over it, and importing it pulls in no
training library.

The ``uno_agents`` package builds on ``uno_env``, never the other way round: opponent
names (``"random"``, ``"greedy"``, ...) are resolved by the factory registered in
:mod:`uno_env.agent_registry`, which names it by an entry-point string.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from .. import checks
from ..actions import NUM_ACTIONS
from ..agent_registry import choose_actions, make_agent
from ..engine import Engine
from ..engine.observe import OBS_SIZE, observation_bounds
from ..engine.playouts import play_opponents, play_random
from ..rules import Rules

SeatSpec = int | str
OpponentSpec = Any  # None, an agent name, an agent, or a list of those (one per offset)


def observation_space() -> gym.spaces.Box:
    """The Box every learner observation lies in (one flat float32 vector)."""
    low, high = observation_bounds()
    return gym.spaces.Box(low, high, (OBS_SIZE,), np.float32)


def action_space() -> gym.spaces.Discrete:
    """The action space shared by every preset and player count."""
    return gym.spaces.Discrete(NUM_ACTIONS)


def make_rules(rules: Rules | None = None, preset: str = "official",
               num_players: int | None = None, **rule_overrides: Any) -> Rules:
    """``rules`` itself, or the preset with ``num_players`` (default 4) and any option
    overridden. ``TypeError`` for ``rules`` that is not a :class:`Rules` (a preset's name
    goes in ``preset``), ``ValueError`` for a ``num_players`` that contradicts ``rules``
    or rule options given with ``rules``: nothing given is silently ignored."""
    if rules is not None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules (e.g. Rules.preset('official')), got "
                            f"{checks.describe(rules)}; a preset's name goes in preset=")
        if rule_overrides:
            raise ValueError("give either rules or rule options, not both")
        if num_players is not None and checks.integer(num_players, "num_players") \
                != rules.num_players:
            raise ValueError(f"num_players={num_players} contradicts the rules given, which "
                             f"have {rules.num_players} players (give one or the other)")
        return rules
    players = 4 if num_players is None else checks.integer(num_players, "num_players")
    return Rules.preset(preset, num_players=players, **rule_overrides)


def resolve_opponents(opponents: OpponentSpec, num_players: int) -> list[Any]:
    """One batch agent per seat offset 1..P-1 from ``None``, a name, an agent or a list."""
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
        self.num_games = checks.integer(num_games, "num_envs", 1)
        self.num_players = rules.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in ("rotate", "random"):
                raise ValueError(f"learner_seat must be a seat, 'rotate' or 'random', "
                                 f"got {learner_seat!r}")
        else:
            learner_seat = checks.integer(learner_seat, "learner_seat", 0, self.num_players - 1)
        self.learner_seat = learner_seat
        self.illegal_reward = checks.real(illegal_reward, "illegal_reward")
        seed = checks.seed(seed)
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
        self.rng = np.random.default_rng(seed)
        self.engine = Engine(rules, self.num_games, self._engine_seed(seed))
        # uniformly random opponents play inside the engine, one call a step
        self._random_opponents = all(getattr(a, "plays_uniformly", False)
                                     for a in self.opponents)
        self._policy = self._compiled_policy()
        self.seats = self._first_seats()
        self.forfeit = np.zeros(self.num_games, bool)
        self._ar = np.arange(self.num_games)
        self._start_episodes(self._ar)
        self.advance()

    def _engine_seed(self, seed: int | None) -> int:
        return seed if seed is not None else int(self.rng.integers(2**62))

    @property
    def rng(self) -> np.random.Generator:
        """The opponents' generator."""
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        """Set the generator, and draw from it new random streams (key, counter per game)
        for uniformly random opponents played inside the engine."""
        self._rng = generator
        self.streams = np.zeros((self.num_games, 2), np.uint64)
        self.streams[:, 0] = generator.integers(2**63, size=self.num_games, dtype=np.uint64)

    def _first_seats(self) -> np.ndarray:
        n, p = self.num_games, self.num_players
        if self.learner_seat == "rotate":
            return np.arange(n, dtype=np.int64) % p
        if self.learner_seat == "random":
            return self.rng.integers(p, size=n)
        return np.full(n, int(self.learner_seat), np.int64)

    # --- episodes ---------------------------------------------------------------------------

    def reset(self, seed: int | Sequence[int] | None = None,
              games: np.ndarray | None = None, seats: np.ndarray | None = None) -> None:
        """New episodes in all games or in ``games``, played up to the learner's decision.

        ``seed`` as in :meth:`Engine.reset` (also reseeds the opponents' generator
        when it is an int); without it each game's next deal follows from its last.
        ``seats`` overrides the learner seats of the reset games.
        """
        idx = None if games is None else np.asarray(games, np.int64)
        if idx is not None and not idx.size:
            return
        self.engine.reset(seed, games=idx)   # checks the seed before anything changes
        if seed is not None and np.ndim(seed) == 0:
            self.rng = np.random.default_rng(int(np.asarray(seed)))
        if idx is None:
            self.seats = self._first_seats()
            self.forfeit[:] = False
        else:
            if self.learner_seat == "rotate":
                self.seats[idx] = (self.seats[idx] + 1) % self.num_players
            elif self.learner_seat == "random":
                self.seats[idx] = self.rng.integers(self.num_players, size=idx.size)
            self.forfeit[idx] = False
        if seats is not None:
            target = slice(None) if games is None else np.asarray(games, np.int64)
            self.seats[target] = np.asarray(seats, np.int64) % self.num_players
        self._start_episodes(self._ar if games is None else np.asarray(games, np.int64))
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

    def observe(self, games: np.ndarray | None = None) -> np.ndarray:
        """``float32[N, D]``: every game seen by its learner; only the rows of ``games``
        (indices) when given, which is cheaper than observing the batch."""
        if games is None:
            return self.engine.observe(self.seats)
        return self.engine.observe(self.seats[games], games=games)

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]`` legal learner actions (all False where the episode has ended)."""
        mask = self.engine.legal_action_mask().copy()
        if self.forfeit.any():
            mask[self.forfeit] = False
        return mask

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The learner acts in every running game, then the opponents play on.

        Returns ``(rewards float32[N], terminated[N], truncated[N], illegal[N])``;
        rewards are the learner's engine rewards summed over everyone's moves.
        Actions of games that already ended are ignored.
        """
        a = checks.action_array(actions, (self.num_games,), reshape=True)
        live = ~self.done
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        legal = self.engine.legal_action_mask()[self._ar, np.where(in_range, a, 0)] & in_range
        illegal = live & ~legal
        rewards = np.zeros(self.num_games, np.float32)
        idx = np.flatnonzero(live & legal)
        if idx.size:
            r, _, _ = self.engine.step(a[idx], games=idx)
            rewards += r[self._ar, self.seats]   # every game: auto_forced may move others
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

        Such a step changes only the games it lists, so the next round's games
        are among this round's and the rewards come from those rows. With
        ``auto_forced`` the engine plays forced moves on its own, so every round
        looks at the whole batch instead. Uniformly random opponents play all of
        it in one engine call (:func:`uno_env.engine.playouts.play_random`, compiled on ``numba``),
        drawing from :attr:`streams`: the same games on both backends; so do opponents
        with a score table (``greedy``, ``tuned``, ``defender``) on ``numba``
        (:func:`uno_env.engine.playouts.play_opponents`), making the moves their ``act`` makes.
        """
        s = self.engine.state
        seats = self.seats
        if self._random_opponents or self._policy is not None:
            idx = self._opponent_turns()
            if not idx.size:
                return np.zeros(self.num_games, np.float32)
            if self._policy is not None:
                return play_opponents(self.engine, idx, seats[idx], self._policy)[self._ar, seats]
            return play_random(self.engine, idx, seats[idx], self.streams)[self._ar, seats]
        rewards = np.zeros(self.num_games, np.float32)
        limit = 2 * self.rules.max_turns * self.num_players + 10
        idx = self._opponent_turns()
        for _ in range(limit):
            if not idx.size:
                return rewards
            r, _, _ = self.engine.step(self._opponent_actions(idx), games=idx)
            if self.rules.auto_forced:
                rewards += r[self._ar, seats]
                idx = self._opponent_turns()
            else:
                seat = seats[idx]
                rewards[idx] += r[idx, seat]
                idx = idx[~s.done[idx] & (s.current[idx] != seat)]
        raise RuntimeError("opponents did not hand the turn back to the learner "
                           f"within {limit} decisions")

    def _compiled_policy(self) -> Any:
        """The score-table policy of the opponents when one such agent plays every
        opponent seat and the engine is compiled (they then play inside the engine, one
        call a step, choosing as their ``act`` does), else None. Agents that draw random
        numbers are left to ``act``, so that both backends play the same games."""
        from ..engine.playout import uses_streams

        agent = self.opponents[0]
        if (self.engine.backend != "numba" or any(a is not agent for a in self.opponents)
                or not hasattr(agent, "playout_policy") or hasattr(agent, "start_episodes")):
            return None
        policy = agent.playout_policy(self.num_players)
        return None if uses_streams(policy) else policy

    def _opponent_turns(self) -> np.ndarray:
        """Indices of the running games whose acting player is an opponent."""
        s = self.engine.state
        return np.flatnonzero(~s.done & ~self.forfeit & (s.current != self.seats))

    def _start_episodes(self, games: np.ndarray) -> None:
        """Tell opponents that draw per episode (an ``AgentPool``) which games start one."""
        for agent, _ in self._groups:
            if hasattr(agent, "start_episodes"):
                agent.start_episodes(games, self.rng)

    def _act(self, agent: Any, obs: np.ndarray, mask: np.ndarray, games: np.ndarray) -> np.ndarray:
        return np.asarray(choose_actions(agent, self.engine, games, obs, mask, self.rng),
                          np.int64)

    def _opponent_actions(self, idx: np.ndarray) -> np.ndarray:
        eng = self.engine
        obs = eng.observe(games=idx) if self._needs_obs else self._no_obs[: idx.size]
        mask = eng.legal_action_mask(idx)
        if len(self._groups) == 1:
            return self._act(self._groups[0][0], obs, mask, idx)
        offset = (eng.state.current[idx] - self.seats[idx]) % self.num_players
        actions = np.zeros(idx.size, np.int64)
        for agent, offsets in self._groups:
            rows = np.flatnonzero(np.isin(offset, offsets))
            if rows.size:
                actions[rows] = self._act(agent, obs[rows], mask[rows], idx[rows])
        return actions

    def episode_info(self, games: np.ndarray) -> list[dict[str, Any]]:
        """Per-game summaries of finished episodes (winner, learner seat, whether the
        learner and its team won, round points)."""
        s = self.engine.state
        winner, seat = s.winner[games], self.seats[games]
        team_won = self.engine.rules.side_won(winner, seat)
        columns = zip(winner.tolist(), seat.tolist(), (winner == seat).tolist(),
                      team_won.tolist(), self.forfeit[games].tolist(), strict=True)
        return [{"winner": w, "learner_seat": p, "learner_won": won, "team_won": team,
                 "illegal_action": lost, "round_points": s.round_points[g].copy()}
                for g, (w, p, won, team, lost) in zip(games, columns, strict=True)]
