"""A search agent: determinized Monte Carlo over possible worlds.

At a decision the agent does not know the other hands nor the order of the draw
pile, so it plans over *worlds*: copies of the game in which everything public is
kept and the cards it has not seen are dealt at random (``uno_env.engine.search.sample_worlds``;
the worlds are built from the public part of the game only, see
:mod:`uno_env.engine.worlds`). Each legal action is tried in the same worlds
(common random numbers make the comparison sharper), every world is played to
the end (or ``horizon`` decisions) by a fast policy (the ``tuned`` heuristic by
default). The search improves on that policy rather than replacing it: the
policy's own choice is played unless another action beats it in the same worlds
by more than ``confidence`` standard errors of the paired difference (with a few
dozen noisy playouts per action, picking the plain best mean plays noise and
loses to the policy it plays out with). ``budget`` is the number of
playouts per decision, shared among the legal actions. The worlds are played in
two rounds: ``screen`` of them (a quarter by default) first, then the rest only
for the actions that might still beat the policy's choice (those clearly worse
are dropped; ``screen=0`` plays every action in every world). With ``horizon`` > 0
a playout stops after that many decisions and a running game is valued by the
agent's lead in cards (its hand against the smallest other hand, in (-1, 1)):
less noise than a game's win or loss, at the price of a bias. With
``drew_on_weight`` < 1 the worlds follow a belief about the opponents instead of
a uniform deal: a player who drew while a color was current (and has not played
since) is dealt cards of that color, and wilds, that many times less often (it
likely had none, or it would have played one). ``opponent`` names a model of
the other players: in the playouts they play it while the searching player
plays ``playout`` (by default everyone plays ``playout``); a search that knows
whom it plays can value its actions against that player. ``prior`` names the agent
whose choice is the default the search must beat (by default the playout policy's):
with a network as ``prior`` the search improves on that network, which is how expert
iteration uses it (``experiments/expert_iteration.py``).

All worlds and playouts of all the decisions of one ``act_in`` call run as one
batch on the engine: a call with 100 decisions and a budget of 64 steps about
6,400 games together. A batch holds at most :attr:`IsmctsAgent.max_playouts`
(262,144) playouts, about 0.7 GB: a call that needs more (many decisions, or a huge
budget) is searched in groups of decisions of at most that many playouts, one after
the other, so neither the games played out nor the playout values held grow with
budget x decisions.

Actions that are always right are played without search: calling UNO, catching,
Dobon, and any decision with a single legal action.

The agent needs the public game, so it is used through ``act_in(engine, games,
...)`` (see :func:`uno_agents.choose_actions`), which tournaments call; ``act``
alone, which gets only observations, raises ``TypeError``.
"""

from __future__ import annotations

import numpy as np

from uno_env.actions import CATCH, DOBON, UNO
from uno_env.engine import Engine
from uno_env.engine.playout import PlayoutPolicy, uses_streams
from uno_env.engine.playouts import play_policy, play_random
from uno_env.engine.search import deal_worlds, policy_actions, search_values
from uno_env.engine.state import State

from .base import Agent, BatchAgent, check_batch, choose_actions, choose_in_parts

#: Most playouts per decision (``budget``): a decision within it takes seconds, not hours.
MAX_BUDGET = 1 << 16
#: Longest playout in decisions (``horizon``); games end by their own ``max_turns`` anyway.
MAX_HORIZON = 10_000
#: Most standard errors ``confidence`` may ask for (beyond it no action ever beats the
#: default, and the search is only slower than its prior).
MAX_CONFIDENCE = 100.0


def _shown(spec: str) -> str:
    """``spec`` quoted, cut to 60 characters (a nested spec can be any length)."""
    return repr(spec) if len(spec) <= 60 else repr(spec[:57] + "...")


class IsmctsAgent(Agent):
    """Determinized Monte Carlo: each legal action scored by playouts in sampled worlds."""

    name = "ismcts"
    needs_engine = True
    #: Most playouts (simulated games, under 3 KB each) in one batch: a call's decisions
    #: are searched in batches of at most this many, so memory stays bounded (about
    #: 0.7 GB) whatever the budget and the number of decisions in a call. A call within
    #: it (1,024 decisions at budget 256) plays exactly as one batch.
    max_playouts: int = 1 << 18
    #: Play the playouts inside the compiled engine when it and the playout policies can
    #: (:func:`uno_env.engine.playouts.play_policy`: the same decisions, far faster); False steps
    #: the policies in Python (the reference the speed benchmarks compare with).
    compiled_playouts: bool = True
    #: Standard errors added to an action's mean gain over the default after the first
    #: round of worlds (``screen``): the action is played on only if the sum is positive.
    screen_errors: float = 0.5
    #: Fewest worlds of a first round: a decision with fewer worlds in all is searched in
    #: one round.
    screen_min_worlds: int = 8

    def __init__(self, budget: int = 96, playout: str = "tuned", horizon: int = 10,
                 confidence: float = 2.0, drew_on_weight: float = 1.0,
                 opponent: str = "", prior: str = "", screen: float = 0.25) -> None:
        from . import make_agent  # the registry imports this module
        if not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
            raise ValueError(f"budget must be a positive integer at most {MAX_BUDGET:,} "
                             f"(playouts per decision), got {budget!r}")
        if not isinstance(horizon, int) or not 0 <= horizon <= MAX_HORIZON:
            raise ValueError(f"horizon must be a non-negative integer at most {MAX_HORIZON:,} "
                             f"(decisions per playout, 0: to the end), got {horizon!r}")
        if not isinstance(confidence, (int, float)) or not 0 <= confidence <= MAX_CONFIDENCE:
            raise ValueError(f"confidence must be a number >= 0 and at most {MAX_CONFIDENCE:g} "
                             f"(standard errors), got {confidence!r}")
        if not isinstance(drew_on_weight, (int, float)) or not 0 < drew_on_weight <= 1:
            raise ValueError(f"drew_on_weight must be a number in (0, 1], "
                             f"got {drew_on_weight!r}")
        if not isinstance(screen, (int, float)) or not 0 <= screen < 1:
            raise ValueError(f"screen must be a number in [0, 1) (the share of the worlds "
                             f"of a first round), got {screen!r}")
        for role, spec in (("playout", playout), ("opponent", opponent), ("prior", prior)):
            if isinstance(spec, str) and spec.partition(":")[0].strip() == self.name:
                raise ValueError(f"{role} {_shown(spec)} is itself a search: a search's "
                                 f"playout, opponent and prior must be agents without one")
        self.budget = budget
        self.screen = float(screen)
        self.playout = playout
        self.horizon = horizon
        self.confidence = float(confidence)
        self.drew_on_weight = float(drew_on_weight)
        self.policy: BatchAgent = make_agent(playout)
        self.opponent = opponent
        #: the other seats' policy in the playouts (None: ``policy``)
        self.opponent_policy: BatchAgent | None = make_agent(opponent) if opponent else None
        self.prior = prior
        #: the agent whose choice the search must beat (``policy`` unless ``prior`` names one)
        self.prior_policy: BatchAgent = make_agent(prior) if prior else self.policy
        #: whether the playouts need observations (the caller's decisions also feed the prior)
        self._sims: dict[tuple[int, str], Engine] = {}   # see _engine_for
        self._tables: dict[tuple[int, int], tuple[BatchAgent, PlayoutPolicy]] = {}
        self.playouts_observe = any(getattr(p, "uses_observations", True)
                                    for p in (self.policy, self.opponent_policy) if p)
        self.uses_observations = self.playouts_observe or getattr(
            self.prior_policy, "uses_observations", True)

    def __repr__(self) -> str:
        return (f"IsmctsAgent(budget={self.budget}, playout={self.playout!r}, "
                f"horizon={self.horizon}, confidence={self.confidence}, "
                f"drew_on_weight={self.drew_on_weight}, opponent={self.opponent!r}, "
                f"prior={self.prior!r}, screen={self.screen})")

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        raise TypeError("ismcts plans from the public part of the game: call "
                        "act_in(engine, games, observations, masks, rng) (or "
                        "uno_agents.choose_actions), as tournaments do")

    def act_in(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        games = np.asarray(games, np.int64)
        actions = masks.argmax(axis=1)
        obvious = masks[:, [DOBON, CATCH, UNO]]
        sure = obvious.any(axis=1)
        actions[sure] = np.array([DOBON, CATCH, UNO])[obvious[sure].argmax(axis=1)]
        search = np.flatnonzero(~sure & (masks.sum(axis=1) > 1))
        if search.size:
            default = self._prior_actions(engine, games[search], observations[search],
                                          masks[search], rng)
            actions[search] = self._search(engine, games[search], masks[search], default, rng)
        return actions

    def _search(self, engine: Engine, games: np.ndarray, masks: np.ndarray,
                default: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """:meth:`_search_group` over groups of consecutive decisions of at most
        :attr:`max_playouts` playouts in all (one group, the whole call, when it fits), so
        that the playout values held at once are bounded by it too, whatever the budget
        and the number of decisions (a decision alone never exceeds it: ``MAX_BUDGET``)."""
        sizes = masks.sum(axis=1)
        playouts = np.maximum(1, self.budget // sizes) * sizes
        if playouts.sum() <= self.max_playouts:
            return self._search_group(engine, games, masks, default, rng)
        chosen = np.empty(games.size, np.int64)
        start = 0
        while start < games.size:
            end = start + max(1, int(np.searchsorted(np.cumsum(playouts[start:]),
                                                     self.max_playouts, side="right")))
            chosen[start:end] = self._search_group(engine, games[start:end], masks[start:end],
                                                   default[start:end], rng)
            start = end
        return chosen

    def _search_group(self, engine: Engine, games: np.ndarray, masks: np.ndarray,
                      default: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The legal action of each listed game whose playouts beat those of ``default``
        (the prior's choice) by the most, counted in standard errors of the
        paired difference less ``confidence``; ``default`` when none does.

        With ``screen`` > 0 the worlds are played in two rounds: a first round of
        ``screen`` of them for every legal action, after which an action whose mean gain
        over the default, plus :attr:`screen_errors` standard errors, is not positive is
        dropped (it would hardly beat the default with all the worlds); the other
        actions, the default among them, are played in the rest of the worlds (new
        ones, the same for each of them) and judged over all of them. A decision where
        every other action is dropped plays the default after the first round."""
        legal = [np.flatnonzero(row) for row in masks]
        worlds = [max(1, self.budget // actions.size) for actions in legal]
        base = [int(np.searchsorted(actions, d)) for actions, d in zip(legal, default,
                                                                        strict=True)]
        first = [self._first_round(n) for n in worlds]
        values = self._values(engine, games, legal, first, rng)
        kept = [np.arange(actions.size) for actions in legal]
        more = []
        for i, (n, m) in enumerate(zip(worlds, first, strict=True)):
            if m < n:
                kept[i] = np.flatnonzero(screen(values[i], base[i], self.screen_errors))
                values[i] = values[i][kept[i]]
                if kept[i].size > 1:
                    more.append(i)
        if more:
            rest = self._values(engine, games[more], [legal[i][kept[i]] for i in more],
                                [worlds[i] - first[i] for i in more], rng)
            for i, value in zip(more, rest, strict=True):
                values[i] = np.concatenate([values[i], value], axis=1)
        best = np.empty(games.size, np.int64)
        for i, value in enumerate(values):
            rows = kept[i]
            best[i] = legal[i][rows[self._pick(value, int(np.searchsorted(rows, base[i])))]]
        return best

    def _first_round(self, worlds: int) -> int:
        """Worlds of the first round of a decision searched in ``worlds`` worlds: ``screen``
        of them, at least :attr:`screen_min_worlds`; all of them (one round) when that
        leaves none for a second."""
        if not self.screen:
            return worlds
        first = max(self.screen_min_worlds, int(np.ceil(self.screen * worlds)))
        return min(first, worlds)

    def action_values(self, engine: Engine, games: np.ndarray, masks: np.ndarray,
                      rng: np.random.Generator) -> list[np.ndarray]:
        """Per listed game, ``float64[legal actions, worlds]``: the playout value of each
        of its legal actions (in action order) in each sampled world, all the worlds of
        the budget (no screening round); every action is tried in the same worlds. The
        playouts run in batches of at most :attr:`max_playouts` games (see
        :func:`playout_batches`)."""
        candidates = [np.flatnonzero(row) for row in masks]
        worlds = [max(1, self.budget // legal.size) for legal in candidates]
        return self._values(engine, games, candidates, worlds, rng)

    def _values(self, engine: Engine, games: np.ndarray, candidates: list[np.ndarray],
                worlds: list[int], rng: np.random.Generator) -> list[np.ndarray]:
        """Per listed game, ``float64[actions, worlds]``: the playout value of each action
        of ``candidates[i]`` (legal ones) in each of ``worlds[i]`` sampled worlds, every
        action in the same worlds; in batches of at most :attr:`max_playouts` playouts."""
        found: list[list[np.ndarray]] = [[] for _ in candidates]
        for batch in playout_batches([legal.size for legal in candidates], worlds,
                                     self.max_playouts):
            pieces = [(int(games[i]), candidates[i], n) for i, n in batch]
            for (i, _), value in zip(batch, self._batch_values(engine, pieces, rng),
                                     strict=True):
                found[i].append(value)
        return [np.concatenate(parts, axis=1) for parts in found]

    def _prior_actions(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
                       masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The prior's choice in each listed game: by its score table in compiled code when
        it has one that draws no random numbers (the actions its ``act`` picks, without
        its numpy features), else by asking it."""
        policy = self._policy_table(self.prior_policy, engine)
        if policy is not None and not uses_streams(policy):
            return policy_actions(engine, games, policy)
        return np.asarray(choose_actions(self.prior_policy, engine, games, observations, masks,
                                         rng))

    def _policy_table(self, agent: BatchAgent, engine: Engine) -> PlayoutPolicy | None:
        """``agent``'s score table for ``engine``'s players, when the engine is compiled and
        the agent has one (kept per agent and player count)."""
        if engine.backend != "numba" or not self.compiled_playouts:
            return None
        make = getattr(agent, "playout_policy", None)
        if make is None:
            return None
        tables = self.__dict__.setdefault("_tables", {})
        key = (id(agent), engine.num_players)
        kept = tables.get(key)
        if kept is None or kept[0] is not agent:
            kept = tables[key] = (agent, make(engine.num_players))
        return kept[1]

    def _batch_values(self, engine: Engine, pieces: list[tuple[int, np.ndarray, int]],
                      rng: np.random.Generator) -> list[np.ndarray]:
        """``float64[legal actions, worlds]`` of each ``(game, legal actions, worlds)`` of
        ``pieces``, all played out as one batch: dealt and played in compiled code when
        the engine and the playout policies can (:func:`uno_env.engine.search.world_values`, by
        :func:`uno_env.engine.search.search_values`),
        else dealt by :func:`uno_env.engine.search.deal_worlds` and played on an engine of the
        worlds."""
        games = np.array([game for game, _, _ in pieces], np.int64)
        legal = [actions for _, actions, _ in pieces]
        worlds = np.array([n for _, _, n in pieces], np.int64)
        sizes = np.array([actions.size for actions in legal], np.int64)
        compiled = None if self._random_playouts() else self._compiled_policies(engine)
        if compiled is not None:
            # search.world_values without re-checking what the search built (legal actions
            # of running games): the same values
            return search_values(engine, games, legal, worlds, *compiled, self.horizon, rng,
                                 self.drew_on_weight)
        state = deal_worlds(engine, games, worlds, rng, repeats=sizes,
                            drew_on_weight=self.drew_on_weight)
        first_actions = np.repeat(np.concatenate(legal), np.repeat(worlds, sizes))
        seat_of = np.repeat(engine.state.current[games], sizes * worlds)
        sims = self._engine_for(engine, first_actions.size)
        sims.state = state
        value = self._playouts(sims, first_actions, seat_of, rng)
        split = np.cumsum(sizes * worlds)[:-1]
        return [v.reshape(size, -1) for v, size in zip(np.split(value, split), sizes,
                                                          strict=True)]

    def _random_playouts(self) -> bool:
        """Whether the playouts are uniformly random to the end, for every seat (one
        :func:`uno_env.engine.playouts.play_random` call)."""
        return self.playout == "random" and not self.horizon and not self.opponent

    def _engine_for(self, engine: Engine, num_games: int) -> Engine:
        """An engine of ``num_games`` games under ``engine``'s rules and backend to play
        worlds in (its games are replaced by the caller): kept from one search to the
        next, since making one deals every game."""
        key = (num_games, engine.backend)
        sims = self._sims.get(key)
        if sims is None or sims.rules != engine.rules:
            if len(self._sims) >= 8:
                self._sims.clear()
            sims = self._sims[key] = Engine(engine.rules, num_games, 0, engine.backend)
        return sims

    def __getstate__(self) -> dict:
        """Pickled without its playout engines (made again when needed)."""
        return {**self.__dict__, "_sims": {}, "_tables": {}}

    def _compiled_policies(self, engine: Engine) -> tuple[PlayoutPolicy, PlayoutPolicy] | None:
        """The playout policies (own seat, others) as tables the compiled engine plays
        by itself, or None when the engine or a policy cannot."""
        own = self._policy_table(self.policy, engine)
        other = self._policy_table(self.opponent_policy or self.policy, engine)
        return None if own is None or other is None else (own, other)

    def _pick(self, value: np.ndarray, default: int) -> int:
        """Row of ``value[actions, worlds]`` to play (:func:`pick`)."""
        return pick(value, default, self.confidence)

    def _playouts(self, sims: Engine, first: np.ndarray, seat: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """Play ``first`` then the playout policy to the end; each game's total reward
        for ``seat``."""
        rows = np.arange(sims.num_games)
        rewards, _, _ = sims.step(first)
        total = rewards[rows, seat].astype(np.float64)
        if self._random_playouts():
            # one call (compiled on numba)
            live = np.flatnonzero(~sims.state.done)
            random_streams = np.zeros((sims.num_games, 2), np.uint64)
            random_streams[:, 0] = rng.integers(0, 2**63, sims.num_games, dtype=np.uint64)
            rewards = play_random(sims, live, np.full(live.size, -1), random_streams)
            return total + rewards[rows, seat]
        compiled = self._compiled_policies(sims)
        if compiled is not None:
            # whole playouts in one compiled call, the same decisions as play_out's (a
            # random policy's from other random numbers: the same rule)
            live = np.flatnonzero(~sims.state.done)
            streams: np.ndarray | None = None
            if uses_streams(*compiled):
                streams = np.zeros((sims.num_games, 2), np.uint64)
                streams[:, 0] = rng.integers(0, 2**63, sims.num_games, dtype=np.uint64)
            rewards = play_policy(sims, live, seat[live], *compiled, horizon=self.horizon,
                                  streams=streams)
            return total + (rewards[rows, seat].astype(np.float64)
                            + np.where(sims.state.done, 0.0, lead(sims.state, seat)))
        return total + play_out(sims, seat, self.policy, rng, self.horizon,
                                self.playouts_observe, self.opponent_policy)


def playout_batches(actions: list[int], worlds: list[int], cap: int
                    ) -> list[list[tuple[int, int]]]:
    """How to play out decisions with ``actions[i]`` legal actions tried in ``worlds[i]``
    worlds each (``actions[i] * worlds[i]`` playouts): batches of ``(decision, worlds)``
    pieces, in decision order, each batch of at most ``cap`` playouts (a decision that
    alone exceeds ``cap`` is split into pieces of fewer worlds; a single world of one
    decision is the smallest piece). When everything fits, one batch of one piece per
    decision."""
    batches: list[list[tuple[int, int]]] = [[]]
    used = 0
    for i, (size, count) in enumerate(zip(actions, worlds, strict=True)):
        per_piece = max(1, cap // size)
        for start in range(0, count, per_piece):
            n = min(per_piece, count - start)
            if batches[-1] and used + n * size > cap:
                batches.append([])
                used = 0
            batches[-1].append((i, n))
            used += n * size
    return [b for b in batches if b]


def screen(value: np.ndarray, default: int, errors: float) -> np.ndarray:
    """``bool[actions]``: the rows of ``value[actions, worlds]`` worth more worlds: the
    ``default`` row, and each row whose mean gain over it in the same worlds, plus
    ``errors`` standard errors of that gain, is positive."""
    gain = value - value[default]
    worlds = value.shape[1]
    spread = gain.std(axis=1, ddof=1) if worlds > 1 else np.zeros(len(value))
    keep = gain.mean(axis=1) + errors * spread / np.sqrt(worlds) > 0
    keep[default] = True
    return keep


def pick(value: np.ndarray, default: int, confidence: float) -> int:
    """Row of ``value[actions, worlds]`` to play: the one whose mean gain over row
    ``default`` in the same worlds, less ``confidence`` standard errors, is largest and
    positive; else ``default``."""
    gain = value - value[default]
    worlds = value.shape[1]
    spread = gain.std(axis=1, ddof=1) if worlds > 1 else np.zeros(len(value))
    bound = gain.mean(axis=1) - confidence * spread / np.sqrt(worlds)
    bound[default] = 0.0
    return int(bound.argmax()) if bound.max() > 0 else default


def play_out(sims: Engine, seat: np.ndarray, policy: BatchAgent, rng: np.random.Generator,
             horizon: int = 0, uses_observations: bool = True,
             opponent: BatchAgent | None = None) -> np.ndarray:
    """Play every game of ``sims`` on with ``policy`` in every seat (or, given
    ``opponent``, ``policy`` in ``seat`` and ``opponent`` in the others), to the end or
    for ``horizon`` decisions (0: no limit); each game's total reward for ``seat`` from
    now, plus, for a game still running, how far ``seat`` leads in it (:func:`lead`)."""
    rows = np.arange(sims.num_games)
    total = np.zeros(sims.num_games)
    steps = 0
    while not sims.state.done.all() and (not horizon or steps < horizon):
        steps += 1
        live = np.flatnonzero(~sims.state.done)
        masks = sims.legal_action_mask(live)
        obs = sims.observe(games=live) if uses_observations \
            else np.zeros((live.size, 0), np.float32)
        if opponent is None:
            actions = choose_actions(policy, sims, live, obs, masks, rng)
        else:
            own = sims.state.current[live] == seat[live]
            actions = choose_in_parts([(policy, own), (opponent, ~own)], sims, live, obs,
                                      masks, rng)
        rewards, _, _ = sims.step(actions, games=live)
        total += rewards[rows, seat]
    return total + np.where(sims.state.done, 0.0, lead(sims.state, seat))


def lead(state: State, seat: np.ndarray) -> np.ndarray:
    """How far ``seat`` leads in a running game, in (-1, 1): its hand against the
    smallest other hand still in the round."""
    rows = np.arange(seat.size)
    sizes = state.hand_size.astype(np.float64)
    others = np.where(state.active, sizes, np.inf)
    others[rows, seat] = np.inf
    best = np.minimum(others.min(axis=1), 1e3)
    own = sizes[rows, seat]
    return (best - own) / np.maximum(best + own, 1.0)
