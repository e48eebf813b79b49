"""Playing duplicate deals: the schedule of seatings and deals, and the batch player
every evaluation of the project runs on.

Fair by construction:

- **Seat rotation.** With ``k`` agents at a table of ``P`` seats, every group of
  ``P`` agents (all ``C(k, P)`` of them; one group when ``k == P``) is seated
  in each of its ``P`` cyclic rotations (:func:`seatings`), so every agent plays
  every seat equally often. Heads-up this is every ordered pair. Other tables of
  seatings (one agent against copies of another, :mod:`.duplicate`) play the same way.
- **Duplicate deals.** Deal ``d`` (engine seed ``deal_seed("evaluation", seed, d)``
  of :mod:`uno_env.deals`, or the schedule's explicit ``seeds[d]``) is played under
  every seating, so the luck of the cards cancels out between agents.

Games are played in batch: the engine holds up to ``batch`` games at once
(the games of one or more seatings), one call per agent per step hands
an agent all the decisions it has to take. Agents draw their random numbers
from one generator per *chunk* (``chunk`` consecutive deals of one seating,
seeded by the schedule's seed, the seating and the chunk), and a chunk's games
and calls are the same whatever else shares the engine. Results therefore
depend on the schedule only: not on ``batch``, nor on how the chunks are spread
over processes (:func:`uno_env.evaluation.ray.play_on_ray`) or runs (a resumed
leaderboard).

Agents decide through :func:`uno_env.agent_registry.choose_actions`: an agent with
an ``act_in(engine, games, observations, masks, rng)`` method (search agents
rebuild the worlds an observation allows) is called with the engine the games are
played on; it must read only what the acting player may know and must not change
the engine. Other agents are called through ``act(observations, masks, rng)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from ..actions import NUM_ACTIONS, action_name
from ..agent_registry import choose_actions, make_agent
from ..compact import compact
from ..deals import EVALUATION_STREAMS, STREAM, deal_seed
from ..engine import Engine
from ..engine.playout import PlayoutPolicy, uses_streams
from ..engine.playouts import play_policies
from ..rules import Rules

if TYPE_CHECKING:
    from ..records import Recorder

#: Largest tournament seed: a seed names a stream of evaluation deals (:mod:`uno_env.deals`).
SEED_MAX = EVALUATION_STREAMS - 1
#: Most deals a tournament plays under each seating (one stream of evaluation deals).
DEALS_MAX = STREAM


class TournamentError(ValueError):
    """A tournament that cannot be played, or an agent that broke the rules."""


# --- the schedule ---------------------------------------------------------------------------


def seatings(num_agents: int, num_players: int) -> np.ndarray:
    """``int[S, P]``: the agent (entry index) in each seat of every seating.

    Each group of ``P`` agents in index order, then its ``P`` cyclic rotations:
    seat ``i`` of rotation ``r`` holds the group's member ``(i + r) % P``.
    """
    if num_agents < num_players:
        raise TournamentError(
            f"{num_agents} agent(s) for {num_players} seats: list at least {num_players} "
            "(repeat an agent to fill seats, e.g. greedy,random,random,random)")
    rows = [[group[(i + r) % num_players] for i in range(num_players)]
            for group in combinations(range(num_agents), num_players)
            for r in range(num_players)]
    return np.array(rows, np.int64)


def agent_labels(names: Sequence[str]) -> list[str]:
    """Unique labels: a repeated name gets ``#2``, ``#3``, ... from its second entry on."""
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


def deal_seeds(seed: int, deals: np.ndarray, purpose: str = "evaluation") -> np.ndarray:
    """The engine seed of each deal: deal ``d`` of stream ``seed`` of ``purpose``'s deals
    (:func:`uno_env.deals.deal_seed`: evaluation unless said; distinct seeds never
    overlap)."""
    return deal_seed(purpose, int(seed)) + np.asarray(deals, np.int64)


@dataclass(frozen=True)
class Schedule:
    """Which games are played: every deal under every seating, cut into chunks."""

    seatings: np.ndarray   # int[S, P] entry per seat
    deals: int             # deals per seating
    seed: int
    chunk: int             # deals per chunk (the unit of agent randomness)
    seeds: np.ndarray | None = None   # int64[deals] engine seed of each deal, if given
    purpose: str = "evaluation"       # whose deals ``seed`` names (uno_env.deals)

    def engine_seeds(self, deals: np.ndarray) -> np.ndarray:
        """The engine seed of each of ``deals``: the schedule's ``seeds`` when given,
        else :func:`deal_seeds`."""
        if self.seeds is not None:
            return np.asarray(self.seeds, np.int64)[np.asarray(deals, np.int64)]
        return deal_seeds(self.seed, deals, self.purpose)

    @property
    def games(self) -> int:
        return len(self.seatings) * self.deals

    def chunks(self) -> list[tuple[int, int, int]]:
        """``(seating, first deal, end deal)`` of every chunk, seating by seating."""
        return [(s, d, min(d + self.chunk, self.deals))
                for s in range(len(self.seatings)) for d in range(0, self.deals, self.chunk)]


# --- playing ----------------------------------------------------------------------------------


@dataclass
class Records:
    """One row per game (a game cut at ``max_turns`` without a result has
    ``winner == -1``; under ``end="last_standing"`` a cut game where someone had gone
    out is won by the first out, as the rules say)."""

    seating: np.ndarray    # int64[N]
    deal: np.ndarray       # int64[N]
    decisions: np.ndarray  # int64[N]     decisions taken in the game
    winner: np.ndarray     # int64[N]     winning seat, -1 if cut without a result
    won: np.ndarray        # bool[N, P]   seat won (both partners in team play)
    points: np.ndarray     # int64[N, P]  points scored (match totals in match play)
    standing: np.ndarray   # int64[N, P]  finishing order, 0 best (ties share a value)

    @classmethod
    def concat(cls, parts: Sequence[Records]) -> Records:
        """All ``parts`` in one, sorted by seating then deal (the canonical order)."""
        merged = {f.name: np.concatenate([getattr(p, f.name) for p in parts])
                  for f in fields(cls)}
        order = np.lexsort((merged["deal"], merged["seating"]))
        return cls(**{name: a[order] for name, a in merged.items()})


@dataclass
class Clock:
    """Seconds each entry spent choosing its actions and the decisions it took (for
    decisions per second; not part of the results, which never depend on time)."""

    seconds: np.ndarray    # float[k]
    decisions: np.ndarray  # int64[k]

    @classmethod
    def zeros(cls, entries: int) -> Clock:
        return cls(np.zeros(entries), np.zeros(entries, np.int64))

    def add(self, other: Clock) -> None:
        """Count ``other``'s time and decisions too."""
        self.seconds += other.seconds
        self.decisions += other.decisions

    def rates(self) -> np.ndarray:
        """``float[k]``: decisions per second of each entry (``nan`` before any)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.seconds > 0, self.decisions / self.seconds, np.nan)


def standings(rules: Rules, engine: Engine, games: np.ndarray) -> np.ndarray:
    """``int64[n, P]`` finishing order of ended games, 0 best: the winner (and partner),
    then the players placed by the rules (``end="last_standing"``), then the rest by
    the cards they still hold."""
    s = engine.state
    p = rules.num_players
    winner = s.winner[games]
    won = won_seats(rules, winner)
    place = s.place[games]
    key = np.where(place >= 0, place, p + s.hand_size[games].astype(np.int64))
    key = np.where(won, -1, key)
    # dense ranks of the keys, row by row
    order = np.sort(key, axis=1)
    new = np.ones_like(order, bool)
    new[:, 1:] = order[:, 1:] != order[:, :-1]
    dense = np.cumsum(new, axis=1) - 1
    rows = np.arange(games.size)[:, None]
    pos = np.argsort(np.argsort(key, axis=1, kind="stable"), axis=1, kind="stable")
    # a key's rank is the dense rank at its sorted position
    return dense[rows, pos]


def won_seats(rules: Rules, winner: np.ndarray) -> np.ndarray:
    """``bool[n, P]``: the seats that won (the winner's partner too in team play)."""
    seats = np.arange(rules.num_players)[None, :]
    w = winner[:, None]
    if rules.teams:
        return (w >= 0) & (seats % 2 == w % 2)
    return seats == w


def play_chunks(rules: Rules, agents: Sequence[Any], schedule: Schedule,
                chunk_ids: Sequence[int], batch: int = 4096,
                on_progress: Callable[[int], None] | None = None,
                labels: Sequence[str] | None = None, backend: str | None = None,
                clock: Clock | None = None, shrink: bool = True, threads: int = 1,
                tables: bool = True, recorder: Recorder | None = None) -> Records:
    """Play the chunks ``chunk_ids`` of ``schedule``, ``batch`` games at a time.

    ``agents`` are agent objects (or specs for the registered factory,
    :func:`uno_env.agent_registry.make_agent`), one per
    entry of the seatings. ``on_progress(n)`` is called with the games finished by
    each step; ``clock`` counts each entry's thinking time and decisions. Without
    ``shrink`` the running games are never moved to a smaller engine, so the engine row
    of a game is its place among the chunks' games (agents that key on the row rely on
    it). ``threads``: the engine's (:class:`uno_env.Engine`). Raises
    :class:`TournamentError` when an agent returns an illegal action.

    A batch whose agents all act by a score table (``acts_by_playout_policy``:
    ``greedy``, ``tuned``, ``defender``) is played to its end inside the compiled engine
    (:func:`uno_env.engine.playouts.play_policies`), with the same games and decisions; each
    agent's thinking time is then its share of that call, by decisions. Without
    ``tables`` every agent is called through ``act`` (the same results, slower).
    ``recorder`` (:class:`uno_env.records.Recorder`) keeps the actions of the games it
    wants (their batches call every agent through ``act``).
    """
    players = [make_agent(a) for a in agents]
    labels = list(labels) if labels is not None else agent_labels(
        [getattr(a, "name", str(a)) for a in players])
    all_chunks = schedule.chunks()
    units = [all_chunks[i] + (i,) for i in chunk_ids]
    parts: list[Records] = []
    group: list[tuple[int, int, int, int]] = []
    size = 0
    for unit in units:
        n = unit[2] - unit[1]
        if group and size + n > batch:
            parts.append(_play_batch(rules, players, labels, schedule, group, on_progress,
                                     backend, clock, shrink, threads, tables, recorder))
            group, size = [], 0
        group.append(unit)
        size += n
    if group:
        parts.append(_play_batch(rules, players, labels, schedule, group, on_progress, backend,
                                 clock, shrink, threads, tables, recorder))
    if not parts:
        p = rules.num_players
        empty = np.zeros(0, np.int64)
        return Records(empty, empty, empty, empty, np.zeros((0, p), bool),
                       np.zeros((0, p), np.int64), np.zeros((0, p), np.int64))
    return Records.concat(parts)


def _play_batch(rules: Rules, players: Sequence[Any], labels: Sequence[str],
                schedule: Schedule, units: Sequence[tuple[int, int, int, int]],
                on_progress: Callable[[int], None] | None, backend: str | None,
                clock: Clock | None = None, shrink: bool = True, threads: int = 1,
                tables: bool = True, recorder: Recorder | None = None) -> Records:
    """Play the games of ``units`` (seating, first deal, end deal, chunk id) to the end."""
    seating = np.concatenate([np.full(e - d, s, np.int64) for s, d, e, _ in units])
    deal = np.concatenate([np.arange(d, e, dtype=np.int64) for _, d, e, _ in units])
    chunk_of = np.concatenate([np.full(e - d, j, np.int64) for j, (_, d, e, _) in
                               enumerate(units)])
    rngs = [np.random.default_rng([schedule.seed, s, c]) for s, _, _, c in units]
    table = schedule.seatings
    observes = np.array([getattr(a, "uses_observations", True) for a in players])
    # agents that ignore their rng take all their decisions of a step in one call
    pooled = np.array([not getattr(a, "uses_rng", True) for a in players])
    n = seating.size
    p = rules.num_players
    seeds = schedule.engine_seeds(deal)
    engine = Engine(rules, n, seeds, backend, threads)
    ids = np.arange(n)                        # game of each engine slot
    taken = np.zeros(n, np.int64)
    out = {"decisions": np.zeros(n, np.int64), "winner": np.full(n, -1, np.int64),
           "won": np.zeros((n, p), bool), "points": np.zeros((n, p), np.int64),
           "standing": np.zeros((n, p), np.int64)}
    remaining = n
    number = seating * schedule.deals + deal  # each game as the results number it
    recorded = np.zeros(n, bool) if recorder is None else recorder.wants(number)
    if recorder is not None:
        for g in np.flatnonzero(recorded).tolist():
            recorder.start(int(number[g]), int(seeds[g]), [labels[e] for e in table[seating[g]]])
    by_tables = (_score_tables(players, table[seating], engine)
                 if tables and not recorded.any() else None)
    if by_tables is not None:   # every seat by a score table: whole games in one compiled call
        start = time.perf_counter()
        _, decisions = play_policies(engine, ids, *by_tables)
        taken += decisions.sum(axis=1)
        if clock is not None:
            entries = table[seating].ravel()
            by_entry = np.bincount(entries, decisions.ravel(), len(players))
            clock.seconds += (time.perf_counter() - start) * by_entry / max(by_entry.sum(), 1)
            clock.decisions += by_entry.astype(np.int64)
        ended = np.flatnonzero(engine.state.done)
        if ended.size:
            _record(rules, engine, ended, ids[ended], taken[ended], out)
            remaining -= ended.size
            if on_progress is not None:
                on_progress(int(ended.size))
    while remaining:
        s = engine.state
        running = np.flatnonzero(~s.done)
        entry = table[seating[ids[running]], s.current[running]]
        masks = engine.legal_action_mask()
        actions = np.zeros(engine.num_games, np.int64)
        key = entry * len(units) + np.where(pooled[entry], 0, chunk_of[ids[running]])
        order = np.argsort(key, kind="stable")
        bounds = np.flatnonzero(np.diff(key[order])) + 1
        for part in np.split(order, bounds):
            rows = running[part]
            a = int(entry[part[0]])
            rng = rngs[int(chunk_of[ids[rows[0]]])]
            ob = engine.observe(games=rows) if observes[a] else np.zeros((rows.size, 0),
                                                                          np.float32)
            start = time.perf_counter()
            chosen = choose_actions(players[a], engine, rows, ob, masks[rows], rng)
            if clock is not None:
                clock.seconds[a] += time.perf_counter() - start
                clock.decisions[a] += rows.size
            actions[rows] = _action_ids(chosen, rows.size, labels[a])
        _check_legal(actions, masks, running, entry, labels, seating[ids], deal[ids],
                     schedule.deals)
        if recorder is not None:
            kept = running[recorded[ids[running]]]
            recorder.add(number[ids[kept]], actions[kept])
        engine.step(actions)
        taken[running] += 1
        ended = running[engine.state.done[running]]
        if ended.size:
            _record(rules, engine, ended, ids[ended], taken[ended], out)
            remaining -= ended.size
            if on_progress is not None:
                on_progress(int(ended.size))
            live = np.flatnonzero(~engine.state.done)
            if shrink and engine.num_games >= 64 and 0 < live.size <= engine.num_games // 2 \
                    and (small := compact(engine, live)):
                engine, ids, taken = small, ids[live], taken[live]
    return Records(seating=seating, deal=deal, **out)


def _score_tables(players: Sequence[Any], entries: np.ndarray, engine: Engine
                  ) -> tuple[list[PlayoutPolicy], np.ndarray] | None:
    """``(policies, seated)`` for :func:`uno_env.engine.playouts.play_policies` when every entry
    seated in ``entries`` (``int[n, P]``) acts by its score table
    (``acts_by_playout_policy``) and the engine is compiled, else None."""
    if engine.backend != "numba":
        return None
    used = np.unique(entries)
    policies = []
    for e in used.tolist():
        agent = players[e]
        if not _acts_by_table(agent):
            return None
        policy = agent.playout_policy(engine.num_players)
        if uses_streams(policy):
            return None
        policies.append(policy)
    return policies, np.searchsorted(used, entries)


#: What a subclass overrides when it acts otherwise than the table of its base.
_ACTING = ("act", "act_in", "scores", "playout_policy")


def _acts_by_table(agent: Any) -> bool:
    """Whether ``agent`` acts by its ``playout_policy`` table: its class, or a base class
    no class in between changes the acting methods (:data:`_ACTING`) of, says so
    (``acts_by_playout_policy``)."""
    for klass in type(agent).__mro__:
        if "acts_by_playout_policy" in vars(klass):
            return bool(vars(klass)["acts_by_playout_policy"])
        if any(name in vars(klass) for name in _ACTING):
            return False
    return False


def _action_ids(chosen: Any, rows: int, label: str) -> np.ndarray:
    """``chosen`` as action ids, or :class:`TournamentError` if it is not one id per row."""
    chosen = np.asarray(chosen)
    if chosen.shape != (rows,) or not np.issubdtype(chosen.dtype, np.integer):
        raise TournamentError(f"agent {label!r} returned {chosen.dtype}{list(chosen.shape)} "
                              f"for {rows} decisions; expected one action id each")
    return chosen


def _check_legal(actions: np.ndarray, masks: np.ndarray, running: np.ndarray,
                 entry: np.ndarray, labels: Sequence[str], seating: np.ndarray,
                 deal: np.ndarray, deals: int) -> None:
    """Raise :class:`TournamentError` naming the agent, game and action if an action of a
    running game is illegal (before the engine sees it). ``seating`` and ``deal`` are
    per engine slot; games are numbered as in the results (seating * deals + deal)."""
    chosen = actions[running]
    inside = (chosen >= 0) & (chosen < NUM_ACTIONS)
    legal = inside.copy()
    legal[inside] = masks[running[inside], chosen[inside]]
    if legal.all():
        return
    i = int(np.flatnonzero(~legal)[0])
    s, d = int(seating[running[i]]), int(deal[running[i]])
    a = int(chosen[i])
    what = repr(action_name(a)) if inside[i] else "an id out of range"
    raise TournamentError(f"agent {labels[int(entry[i])]!r} returned the illegal action {a} "
                          f"({what}) in game {s * deals + d} (seating {s}, deal {d})")


def _record(rules: Rules, engine: Engine, slots: np.ndarray, games: np.ndarray,
            decisions: np.ndarray, out: dict[str, np.ndarray]) -> None:
    s = engine.state
    winner = s.winner[slots]          # -1 when a game was cut without a result
    out["decisions"][games] = decisions
    out["winner"][games] = winner
    out["won"][games] = won_seats(rules, winner)
    out["points"][games] = s.scores[slots]
    out["standing"][games] = standings(rules, engine, slots)


def build_agents(agents: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """The agent objects and unique labels of ``agents`` (specs or objects);
    raises :class:`TournamentError` for an unknown spec."""
    built = []
    for spec in agents:
        try:
            built.append(make_agent(spec))
        except (ValueError, TypeError) as err:
            raise TournamentError(str(err)) from None
    names = [spec if isinstance(spec, str) else getattr(a, "name", type(a).__name__)
             for spec, a in zip(agents, built, strict=True)]
    return built, agent_labels(names)
