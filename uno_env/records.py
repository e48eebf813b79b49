"""Game records: one game as its deal seed, its rules and the actions taken.

A record is small (a few hundred integers) and is replayed exactly by the engine: the
seed deals the same cards, and each recorded action is checked legal before it is
applied. Decisions the engine plays by itself (``auto_forced``) are not recorded; the
replay plays them the same way. ``uno-env tournament --save-games`` and
``experiments/evaluate.py --save-games`` write records while they play
(:class:`Recorder`), ``uno-env serve`` saves the games played on its page, and its page
and :mod:`uno_env.web.notebook` step through them.

On disk a record is a JSON object::

    {"format": "uno-env game record", "version": 1, "rules": {"num_players": 2, ...},
     "preset": "official", "seed": 1000000, "seats": ["greedy", "random_play"],
     "actions": [12, 100, 101, ...], "source": "uno-env tournament, seating 0, deal 0"}

``rules`` holds the player count and the options that differ from the official rules.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import checks
from .actions import NUM_ACTIONS, action_name
from .engine import Engine, IllegalActionError
from .engine.state import State
from .rules import OPTION_NAMES, Rules

FORMAT = "uno-env game record"
VERSION = 1
#: Largest record file read (a record of the longest game allowed is far smaller).
MAX_BYTES = 4 << 20


@dataclass(frozen=True)
class GameRecord:
    """One game: replaying ``actions`` from the deal of ``seed`` under ``rules``."""

    rules: Rules
    seed: int
    actions: tuple[int, ...]
    seats: tuple[str, ...]                # who sat in each seat (agent specs, "human")
    preset: str | None = None
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(self.rules).__name__}")
        checks.integer(self.seed, "seed", 0, checks.SEED_LIMIT - 1)
        for i, a in enumerate(self.actions):
            if not checks.is_integer(a) or not 0 <= a < NUM_ACTIONS:
                raise ValueError(f"actions[{i}] must be an action id 0-{NUM_ACTIONS - 1}, "
                                 f"got {a!r}")
        if len(self.seats) != self.rules.num_players or not all(
                isinstance(s, str) for s in self.seats):
            raise ValueError(f"seats must name the {self.rules.num_players} seats (strings), "
                             f"got {list(self.seats)!r}")

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready values (the on-disk form)."""
        rules = {"num_players": self.rules.num_players, **self.rules.differences()}
        return {"format": FORMAT, "version": VERSION, "rules": rules, "preset": self.preset,
                "seed": int(self.seed), "seats": list(self.seats),
                "actions": [int(a) for a in self.actions], "source": self.source,
                **self.extra}

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """A record from its JSON form; ``ValueError`` naming the field that is missing or
        wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a game record: a JSON object with \"format\": {FORMAT!r}")
        if data.get("version") != VERSION:
            raise ValueError(f"game record version {data.get('version')!r} is not {VERSION}")
        for key, kind in (("rules", dict), ("seed", int), ("seats", list), ("actions", list)):
            if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
                raise ValueError(f"game record field {key!r} must be a {kind.__name__}, got "
                                 f"{type(data.get(key)).__name__}")
        unknown = sorted(set(data["rules"]) - OPTION_NAMES)
        if unknown:
            raise ValueError(f"game record rules: unknown option {unknown[0]!r}")
        try:
            rules = Rules(**data["rules"])
        except (TypeError, ValueError) as err:
            raise ValueError(f"game record rules: {err}") from None
        known = {"format", "version", "rules", "preset", "seed", "seats", "actions", "source"}
        preset = data.get("preset")
        return cls(rules, data["seed"], tuple(data["actions"]), tuple(data["seats"]),
                   preset if isinstance(preset, str) else None, str(data.get("source", "")),
                   {k: v for k, v in data.items() if k not in known})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":")) + "\n"


def save_record(record: GameRecord, path: str | os.PathLike) -> Path:
    """Write ``record`` to ``path`` atomically (a reader never sees half a file)."""
    from .files import write_atomic

    write_atomic(path, record.to_json())
    return Path(path)


def load_record(path: str | os.PathLike) -> GameRecord:
    """The record in the file ``path`` (``ValueError`` naming the file when it is not one)."""
    path = Path(path)
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"{path.name}: {path.stat().st_size:,} bytes is too large for a "
                         "game record")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return GameRecord.from_dict(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path.name}: {err}") from None


@dataclass
class Step:
    """One position of a replay: the game before ``action`` (None at the end) by
    ``actor``."""

    state: State
    actor: int
    action: int | None


def replay(record: GameRecord, backend: str | None = None) -> tuple[Engine, list[Step]]:
    """Replay ``record`` from its deal: every position, the last one after the final
    action. Returns the engine at the end (its state is the last position's) and the
    positions. ``ValueError`` names the first action that is not legal where the record
    has it (a record of other rules or another engine)."""
    engine = Engine(record.rules, 1, record.seed, backend)
    steps: list[Step] = []
    for i, a in enumerate(record.actions):
        if engine.state.done[0]:
            raise ValueError(f"game record: the game is over after {i} of its "
                             f"{len(record.actions)} actions")
        steps.append(Step(engine.state.copy(), int(engine.state.current[0]), int(a)))
        try:
            engine.step(np.array([a], np.int64))
        except IllegalActionError:
            raise ValueError(f"game record: action {i} ({action_name(a)!r}) is not legal "
                             "there; legal: " + ", ".join(engine.legal_action_names(0))
                             ) from None
    steps.append(Step(engine.state.copy(), int(engine.state.current[0]), None))
    return engine, steps


class Recorder:
    """Collects the actions of chosen games while a tournament or an evaluation plays
    them (:func:`uno_env.evaluation.play.play_chunks`).

    ``games``: the game numbers to record, as the results number them (seating * deals
    + deal). Games are recorded as their players chose; the agents see nothing of it.
    """

    def __init__(self, games: Iterable[int], source: str = "") -> None:
        self.wanted = {checks.integer(g, "game", 0) for g in games}
        self.source = source
        self.seeds: dict[int, int] = {}
        self.seats: dict[int, tuple[str, ...]] = {}
        self.actions: dict[int, list[int]] = {}

    def wants(self, games: np.ndarray) -> np.ndarray:
        """``bool[n]``: which of ``games`` are recorded."""
        return np.isin(games, np.fromiter(self.wanted, np.int64, len(self.wanted)))

    def start(self, game: int, seed: int, seats: Sequence[str]) -> None:
        self.seeds[game] = int(seed)
        self.seats[game] = tuple(seats)
        self.actions[game] = []

    def add(self, games: np.ndarray, actions: np.ndarray) -> None:
        for g, a in zip(games.tolist(), actions.tolist(), strict=True):
            self.actions[g].append(a)

    def records(self, rules: Rules, preset: str | None = None) -> list[GameRecord]:
        """The recorded games, by game number."""
        return [GameRecord(rules, self.seeds[g], tuple(self.actions[g]), self.seats[g],
                           preset, f"{self.source}, game {g}".lstrip(", "))
                for g in sorted(self.actions)]


def save_records(records: Sequence[GameRecord], folder: str | os.PathLike,
                 stem: str) -> list[Path]:
    """Write each record to ``folder/<stem>-<i>.json`` (the folder is created)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    width = max(3, int(math.log10(max(len(records), 1))) + 1)
    return [save_record(r, folder / f"{stem}-{i:0{width}d}.json") for i, r in enumerate(records)]


__all__ = ["FORMAT", "GameRecord", "Recorder", "Step", "load_record", "replay",
           "save_record", "save_records"]
