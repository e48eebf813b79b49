"""The games being played on the page: one engine per game, agents in the other seats.

A person takes one seat (or none, to watch); each agent seat moves when the page asks
(:meth:`Game.advance`), so the page sets the pace. Every change happens under the game's
lock and is checked first: an illegal action or a move out of turn raises
:class:`GameError` and changes nothing. Games live in memory: a restart ends them (a
game saved as a record lives on, :mod:`uno_env.web.store`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..actions import NUM_ACTIONS, action_id, action_name
from ..agent_registry import agent_specs, choose_actions, make_agent
from ..engine import Engine
from ..records import GameRecord
from ..rules import PRESETS, Rules
from .view import action_label, frame

#: Entries of a game's log kept for the page.
LOG_SIZE = 200
#: Games kept at once; starting one more drops the one left alone longest.
MAX_GAMES = 64
HUMAN = "you"


class GameError(ValueError):
    """A request the game cannot take (an illegal action, a move out of turn)."""


class UnknownGame(LookupError):
    """A game id the server does not hold."""


def safe_spec(spec: str) -> str:
    """``spec`` if the page may name it: an agent spec that names no file. A trained
    model is named by the stem of a model that ships with the agents (``ppo:official-2p``);
    a path or a file name would let the page read files outside the records folder."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string, got {spec!r}")
    spec = spec.strip()
    _, colon, rest = spec.partition(":")
    model = rest.split(",")[0] if colon else ""
    if "/" in spec or "\\" in spec or ("=" not in model and "." in model):
        raise ValueError(f"agent spec {spec!r} names a file; the page takes agents by name "
                         "and models by the name they ship under (ppo:official-2p)")
    return spec


class Game:
    """One game: its engine, who sits where, its log; see the module doc."""

    def __init__(self, game_id: str, preset: str, rules: Rules, seat: int | None,
                 specs: Sequence[str], seed: int) -> None:
        self.id = game_id
        self.preset = preset
        self.rules = rules
        self.seat = seat
        self.seed = seed
        self.lock = threading.Lock()
        self.agents: list[Any] = [None if s == HUMAN else make_agent(s) for s in specs]
        self.names = [HUMAN if s == HUMAN else f"{s} (seat {i})" for i, s in enumerate(specs)]
        self.specs = list(specs)
        self.engine = Engine(rules, 1, seed)
        self.rng = np.random.default_rng(seed)
        self.actions: list[int] = []
        self.log: list[str] = []
        self.touched = time.monotonic()

    def view(self) -> dict[str, Any]:
        """The game as the page shows it: the person's view (every hand when watching)."""
        with self.lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        out = frame(self.engine, self.names, self.seat, self.seat)
        out.update(id=self.id, preset=self.preset, seat=self.seat, log=self.log[-LOG_SIZE:],
                   decisions=len(self.actions),
                   waiting_for=("you" if self.seat is not None
                                and out["acting"] == self.seat else "agent")
                   if not out["done"] else None)
        return out

    def act(self, action: Any) -> dict[str, Any]:
        """The person's ``action`` (an id or a name): applied when legal and their turn."""
        with self.lock:
            if self.seat is None:
                raise GameError("you are watching this game: there is no seat of yours")
            self._check_running()
            if int(self.engine.state.current[0]) != self.seat:
                raise GameError(f"it is not your turn: {self.names[self._acting()]} is to act")
            self._apply(_action(action))
            return self._view()

    def advance(self) -> dict[str, Any]:
        """One move of the agent to act."""
        with self.lock:
            self._check_running()
            actor = self._acting()
            if self.agents[actor] is None:
                raise GameError("it is your turn: the agents wait for you")
            game = np.array([0])
            chosen = choose_actions(self.agents[actor], self.engine, game,
                                    self.engine.observe(games=game),
                                    self.engine.legal_action_mask(game), self.rng)
            self._apply(int(np.asarray(chosen).reshape(-1)[0]))
            return self._view()

    def record(self) -> GameRecord:
        """The game so far as a game record."""
        return GameRecord(self.rules, self.seed, tuple(self.actions), tuple(self.specs),
                          self.preset, "uno-env serve")

    def _acting(self) -> int:
        return int(self.engine.state.current[0])

    def _check_running(self) -> None:
        self.touched = time.monotonic()
        if self.engine.state.done[0]:
            raise GameError("the game is over: start a new one")

    def _apply(self, action: int) -> None:
        """Step ``action`` (checked legal first: an illegal one changes nothing)."""
        engine = self.engine
        actor = self._acting()
        if not engine.legal_action_mask()[0, action]:
            raise GameError(f"{action_name(action)!r} is not legal now; legal: "
                            + ", ".join(engine.legal_action_names(0)))
        facts = {"phase": engine.phase_name(0), "pending": int(engine.state.pending[0]),
                 "acting": actor, "exposed": int(engine.state.uno_offender[0]),
                 "num_players": engine.num_players}
        rounds = int(engine.state.rounds_played[0])
        engine.step(np.array([action], np.int64))
        self.actions.append(action)
        self.log.append(f"{self.names[actor]}: {action_label(action, facts, self.names)}")
        s = engine.state
        if int(s.rounds_played[0]) > rounds or s.done[0]:
            self.log.append(_round_line(s, self.names))


def _round_line(s: Any, names: Sequence[str]) -> str:
    points = ", ".join(f"{n} {int(p):+d}" for n, p in zip(names, s.round_points[0], strict=True))
    w = int(s.round_winner[0]) if s.round_winner[0] >= 0 else int(s.winner[0])
    who = f"{names[w]} wins the round" if w >= 0 else "the round is cut at the turn limit"
    return f"-- {who}; points: {points}"


def _action(action: Any) -> int:
    """An action id from the request: an id 0-118 or an action name."""
    if isinstance(action, bool) or not isinstance(action, (int, str)):
        raise GameError(f"action must be an action id or name, got {action!r}")
    if isinstance(action, str):
        try:
            return action_id(action)
        except ValueError as err:
            raise GameError(str(err)) from None
    if not 0 <= action < NUM_ACTIONS:
        raise GameError(f"action id {action} is out of range 0-{NUM_ACTIONS - 1}")
    return action


class Games:
    """The games of the server by id (thread-safe; at most :data:`MAX_GAMES`)."""

    def __init__(self) -> None:
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, preset: str, players: int, seat: int | None, agents: Sequence[str],
              seed: int | None = None) -> Game:
        """A new game; ``agents`` gives one spec per agent seat, or one for all of them
        (comma-separated as ``uno-env tournament --agents`` takes them).
        ``ValueError`` names the argument that is wrong; no game is started then."""
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        rules = Rules.preset(preset, num_players=players)
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat 0-{players - 1}")
        others = players - (seat is not None)
        specs = [safe_spec(s) for s in agent_specs(agents)]
        if len(specs) == 1:
            specs *= others
        if len(specs) != others:
            raise ValueError(f"agents: {others} agent seats need {others} specs (or one for "
                             f"all), got {len(specs)}")
        if seat is not None:
            specs.insert(seat, HUMAN)
        seed = secrets.randbelow(1 << 62) if seed is None else seed
        try:
            game = Game(secrets.token_hex(8), preset, rules, seat, specs, seed)
        except (TypeError, ValueError, LookupError, ImportError, OSError) as err:
            raise ValueError(f"agents: {err}") from None
        with self._lock:
            while len(self._games) >= MAX_GAMES:
                oldest = min(self._games.values(), key=lambda g: g.touched)
                del self._games[oldest.id]
            self._games[game.id] = game
        return game

    def get(self, game_id: str) -> Game:
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise UnknownGame(f"no game {game_id!r} here: it was closed, or the server was "
                              "restarted (start a new game; saved records are kept)")
        return game

    def close(self, game_id: str) -> None:
        self.get(game_id)
        with self._lock:
            self._games.pop(game_id, None)
