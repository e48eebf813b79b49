"""Golden playthroughs: recorded games that every backend must replay exactly.

Each file ``<preset>-<players>p.json.gz`` holds a few games of random legal play
under one preset: the actions (by name) and, before every action and after the
last one, short digests of the state, the legal mask and the acting player's
observation. Any change that alters a trajectory makes the replay fail at the
first step that differs; regenerate the files on purpose and name the presets
whose games changed.

Usage (from the repository root)::

    python tests/playthroughs/golden.py            # regenerate every file
    python tests/playthroughs/golden.py official   # only the given presets

The actions come from a SplitMix64 stream of the game's seed (pure Python), so
they do not depend on the engine backend or on numpy's generators. Digests cover
named state fields and observation views (listed in each file), so a field or
view added later does not change them, and the mask as the names of the legal
actions, so a renumbering of the action table does not either. The ``rules`` view
is left out: it is constant within a game and changes whenever an option is added.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from uno_env import PRESETS, Engine, Rules
from uno_env.actions import ACTION_ID, ACTION_NAMES
from uno_env.engine.observe import VIEW_SLICES
from uno_env.engine.state import State

HERE = Path(__file__).resolve().parent
#: Games recorded per (preset, players), their seeds, and the decisions kept per game.
SEEDS = (1, 2, 3)
MAX_STEPS = 320
#: Hex digits kept of each sha256 digest.
DIGEST_CHARS = 10
STATE_FIELDS = tuple(f.name for f in dataclasses.fields(State))
OBS_VIEWS = tuple(name for name in VIEW_SLICES if name != "rules")
_MASK64 = (1 << 64) - 1


def player_counts(preset: str) -> tuple[int, ...]:
    """The player counts recorded for a preset: 2, 4 and 10 where the preset allows them."""
    allowed = []
    for players in (2, 4, 10):
        try:
            Rules.preset(preset, num_players=players)
        except ValueError:
            continue
        allowed.append(players)
    return tuple(allowed)


def cases() -> list[tuple[str, int]]:
    return [(preset, players) for preset in PRESETS for players in player_counts(preset)]


def path_of(preset: str, players: int) -> Path:
    return HERE / f"{preset}-{players}p.json.gz"


class SplitMix64:
    """A tiny deterministic generator: the same picks on any machine and backend."""

    def __init__(self, seed: int) -> None:
        self.state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK64

    def below(self, n: int) -> int:
        """A number in ``0..n-1``."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return (z ^ (z >> 31)) % n


def _digest(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:DIGEST_CHARS]


def digests(engine: Engine, rewards: np.ndarray, fields: tuple[str, ...],
            views: tuple[str, ...]) -> list[list[str]]:
    """``[state, mask, observation]`` digests of every game (``rewards``: of the last step)."""
    s = engine.state
    state = [getattr(s, name).astype(np.int64) for name in fields]
    state.append(rewards.astype(np.float64))
    mask = engine.legal_action_mask()
    obs = engine.observe().astype(np.float64)
    seen = [obs[:, VIEW_SLICES[name]] for name in views]
    out = []
    for g in range(engine.num_games):
        legal = " ".join(ACTION_NAMES[a] for a in np.flatnonzero(mask[g]))
        out.append([_digest([np.ascontiguousarray(a[g]).tobytes() for a in state]),
                    _digest([legal.encode()]),
                    _digest([np.ascontiguousarray(v[g]).tobytes() for v in seen])])
    return out


def record(preset: str, players: int) -> dict:
    """Play the recorded games of one case on the numpy reference engine."""
    rules = Rules.preset(preset, num_players=players)
    engine = Engine(rules, len(SEEDS), seed=list(SEEDS), backend="numpy")
    streams = [SplitMix64(seed) for seed in SEEDS]
    games = [{"seed": seed, "actions": [], "digests": []} for seed in SEEDS]
    rewards = np.zeros((len(SEEDS), players), np.float32)
    closed = [False] * len(SEEDS)   # the game's last position is recorded
    for _ in range(MAX_STEPS):
        mask = engine.legal_action_mask()
        actions = np.zeros(len(SEEDS), np.int64)
        now = digests(engine, rewards, STATE_FIELDS, OBS_VIEWS)
        for g, game in enumerate(games):
            if closed[g]:
                continue
            game["digests"].append(now[g])
            closed[g] = bool(engine.state.done[g])
            if not closed[g]:
                legal = np.flatnonzero(mask[g])
                actions[g] = legal[streams[g].below(legal.size)]
                game["actions"].append(ACTION_NAMES[actions[g]])
        if all(closed):
            break
        rewards, _, _ = engine.step(actions)
    now = digests(engine, rewards, STATE_FIELDS, OBS_VIEWS)
    for g, game in enumerate(games):   # the position after the last action
        if not closed[g]:
            game["digests"].append(now[g])
    return {"preset": preset, "players": players, "state_fields": list(STATE_FIELDS),
            "observation_views": list(OBS_VIEWS), "games": games}


def load(preset: str, players: int) -> dict:
    with gzip.open(path_of(preset, players), "rt", encoding="utf-8") as f:
        return json.load(f)


def save(data: dict) -> Path:
    path = path_of(data["preset"], data["players"])
    text = json.dumps(data, separators=(",", ":"))
    with gzip.GzipFile(path, "wb", mtime=0) as f:   # mtime=0: same bytes on every run
        f.write(text.encode("utf-8"))
    return path


def replay(data: dict, backend: str) -> str | None:
    """Replay a recorded case on ``backend``; None if it matches, else what differs first."""
    preset, players = data["preset"], data["players"]
    fields, views = tuple(data["state_fields"]), tuple(data["observation_views"])
    missing = sorted(set(fields) - set(STATE_FIELDS)) + sorted(set(views) - set(VIEW_SLICES))
    if missing:
        return (f"{preset}, {players} players: the recording digests {missing}, which no "
                f"longer exist; regenerate it")
    games = data["games"]
    engine = Engine(Rules.preset(preset, num_players=players), len(games),
                    seed=[game["seed"] for game in games], backend=backend)
    rewards = np.zeros((len(games), players), np.float32)
    longest = max(len(game["actions"]) for game in games)
    for step in range(longest + 1):
        actions = np.zeros(len(games), np.int64)
        now = digests(engine, rewards, fields, views)
        for g, game in enumerate(games):
            if step >= len(game["digests"]):
                continue
            for what, a, b in zip(("state", "mask", "observation"), now[g],
                                  game["digests"][step], strict=True):
                if a != b:
                    return (f"preset {preset}, {players} players, seed {game['seed']}: "
                            f"first difference at step {step} ({what}); "
                            f"next recorded action {_action_at(game, step)!r}")
            if step < len(game["actions"]):
                actions[g] = ACTION_ID[game["actions"][step]]
        if step == longest:
            break
        rewards, _, _ = engine.step(actions)
    return None


def _action_at(game: dict, step: int) -> str | None:
    return game["actions"][step] if step < len(game["actions"]) else None


def main(argv: list[str]) -> None:
    wanted = set(argv) or set(PRESETS)
    unknown = wanted - set(PRESETS)
    if unknown:
        raise SystemExit(f"unknown preset(s): {', '.join(sorted(unknown))}; "
                         f"presets: {', '.join(PRESETS)}")
    for preset, players in cases():
        if preset in wanted:
            data = record(preset, players)
            steps = sum(len(game["actions"]) for game in data["games"])
            print(f"{save(data).name}: {len(data['games'])} games, {steps} decisions")


if __name__ == "__main__":
    main(sys.argv[1:])
