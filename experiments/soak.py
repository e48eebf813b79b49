"""Soak test: random legal play over every preset, checking the engine's invariants.

Plays uniformly random legal decisions in batches of games under every preset at
2, 4, 7 and 10 players (where the preset allows that count) on each backend, and
after every step checks:

* card conservation: every card of the deck is in a hand, the draw pile or the
  discards (``Engine.census``), hand sizes equal the hands, the top card lies on
  the discard pile;
* every running game has a legal action;
* games that had finished before the step are unchanged by it;
* the observations of the acting players lie within the observation space bounds.

Finished games are reset (each from its previous seed, so a run is reproducible)
and play on. Every violation and every exception is reported with what
reproduces it: preset, players, backend, seed, batch size and step; rerunning
the printed command replays the same games up to that step.

Usage: ``python experiments/soak.py [--decisions N] [--players 7 10] [--backends numba]``
(``make soak``).
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from uno_env import PRESETS, Engine, Rules
from uno_env.cards import NUM_KINDS
from uno_env.engine.core import BACKENDS
from uno_env.engine.observe import observation_bounds
from uno_env.engine.state import State
from uno_env.random_actions import random_legal_actions

PLAYER_COUNTS = (2, 4, 7, 10)
#: A combination stops after this many exceptions (each restarts it from fresh games).
MAX_EXCEPTIONS = 10


@dataclass(frozen=True)
class SoakConfig:
    """What to play: ``decisions`` in total, shared evenly by every (preset, players,
    backend) combination, in batches of ``games`` games."""

    decisions: int = 1_000_000
    presets: tuple[str, ...] = tuple(PRESETS)
    players: tuple[int, ...] = PLAYER_COUNTS
    backends: tuple[str, ...] = BACKENDS
    games: int = 256
    seed: int = 0
    progress: bool = True


@dataclass(frozen=True)
class Problem:
    """One violation or exception, with what reproduces it."""

    preset: str
    players: int
    backend: str
    seed: int
    games: int
    step: int
    what: str

    def command(self) -> str:
        """The command that replays the same games up to this step."""
        return (f"python experiments/soak.py --presets {self.preset} --players {self.players} "
                f"--backends {self.backend} --seed {self.seed} --games {self.games} "
                f"--steps {self.step + 1}")

    def __str__(self) -> str:
        return (f"{self.preset}, {self.players} players, {self.backend}, seed {self.seed}, "
                f"step {self.step}: {self.what}\n  reproduce: {self.command()}")


@dataclass
class SoakReport:
    """Decisions played, games checked (finished and still running), every problem."""

    decisions: int = 0
    games: int = 0
    combinations: int = 0
    seconds: float = 0.0
    violations: list[Problem] = field(default_factory=list)
    exceptions: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations and not self.exceptions


def combinations(config: SoakConfig) -> list[tuple[str, int, str]]:
    """Every (preset, players, backend) the preset allows, in a fixed order."""
    out = []
    for preset in config.presets:
        for players in config.players:
            try:
                Rules.preset(preset, num_players=players)
            except ValueError:   # e.g. teams needs four players
                continue
            out += [(preset, players, backend) for backend in config.backends]
    return out


_LOW, _HIGH = observation_bounds()


def census(s: State) -> np.ndarray:
    """``int[G, K]``: the cards of each kind in hands, draw pile and discards (as
    ``Engine.census``, counted with one ``bincount``)."""
    games, width = s.deck.shape
    cols = np.arange(width)
    live = (cols[None, :] >= s.deck_pos[:, None]) & (cols[None, :] < s.deck_len[:, None])
    cells = live.nonzero()[0] * NUM_KINDS + s.deck[live]
    pile = np.bincount(cells, minlength=games * NUM_KINDS).reshape(games, NUM_KINDS)
    return s.hands.sum(axis=1, dtype=np.int64) + s.discard + pile


def check(engine: Engine, before_done: np.ndarray, frozen: object | None) -> list[str]:
    """The invariants the engine breaks after a step (an empty list when it holds them)."""
    s = engine.state
    found = []
    wrong = np.flatnonzero((census(s) != engine.deck_composition()).any(axis=1))
    if wrong.size:
        found.append(f"cards not conserved in game {wrong[0]} (and {wrong.size - 1} more)")
    sizes = np.flatnonzero((s.hand_size != s.hands.sum(axis=2)).any(axis=1))
    if sizes.size:
        found.append(f"hand sizes differ from the hands in game {sizes[0]}")
    running = ~s.done
    no_top = np.flatnonzero(running & (s.discard[np.arange(s.num_games), s.top] < 1))
    if no_top.size:
        found.append(f"top card not on the discard pile in game {no_top[0]}")
    stuck = np.flatnonzero(running & ~engine.legal_action_mask().any(axis=1))
    if stuck.size:
        found.append(f"running game {stuck[0]} has no legal action")
    if frozen is not None:
        kept = np.flatnonzero(before_done)
        for f in dataclasses.fields(s):
            if not np.array_equal(getattr(s, f.name)[kept], getattr(frozen, f.name)):
                found.append(f"a finished game changed ({f.name})")
                break
    obs = engine.observe()
    out = np.flatnonzero(~((obs >= _LOW) & (obs <= _HIGH)).all(axis=1))
    if out.size:
        entry = int(np.flatnonzero((obs[out[0]] < _LOW) | (obs[out[0]] > _HIGH))[0])
        found.append(f"observation of game {out[0]} out of bounds at entry {entry} "
                     f"({obs[out[0], entry]})")
    return found


def soak_one(preset: str, players: int, backend: str, config: SoakConfig, decisions: int,
             steps: int | None, report: SoakReport, progress: object | None) -> None:
    """Random legal play in one combination until ``decisions`` (or ``steps`` steps)."""
    seed = config.seed
    engine = Engine(Rules.preset(preset, num_players=players), config.games, seed, backend)
    rng = np.random.default_rng(seed)
    played = step = failures = 0
    while played < decisions if steps is None else step < steps:
        where = Problem(preset, players, backend, seed, config.games, step, "")
        try:
            before_done = engine.state.done.copy()
            frozen = engine.state.take(np.flatnonzero(before_done)) if before_done.any() else None
            actions = random_legal_actions(engine.legal_action_mask(), rng)
            engine.step(actions)
            n = int((~before_done).sum())
            for what in check(engine, before_done, frozen):
                report.violations.append(dataclasses.replace(where, what=what))
            # a game that ends stays finished for one step (checked unchanged), then restarts
            ended = np.flatnonzero(before_done)
            report.games += ended.size
            if ended.size:
                engine.reset(games=ended)
        except Exception as err:  # noqa: BLE001 - every exception is a finding to report
            tb = traceback.format_exception_only(type(err), err)[-1].strip()
            report.exceptions.append(dataclasses.replace(where, what=tb))
            failures += 1
            if steps is not None or failures >= MAX_EXCEPTIONS:
                break
            seed += 1_000_003   # play on from fresh games
            engine = Engine(Rules.preset(preset, num_players=players), config.games, seed,
                            backend)
            rng = np.random.default_rng(seed)
            step = 0
            continue
        played += n
        step += 1
        report.decisions += n
        if progress is not None:
            progress.update(n)
    report.games += int((~engine.state.done).sum())


def soak(config: SoakConfig, steps: int | None = None) -> SoakReport:
    """Play ``config`` and return what was checked and found (``steps``: stop every
    combination after that many steps instead, to replay a reported problem)."""
    combos = combinations(config)
    report = SoakReport(combinations=len(combos))
    share = -(-config.decisions // max(len(combos), 1))
    progress = None
    if config.progress:
        from tqdm import tqdm

        progress = tqdm(total=share * len(combos) if steps is None else None,
                        unit="decision", unit_scale=True, smoothing=0.05,
                        mininterval=0.5 if sys.stderr.isatty() else 60)   # a log: each minute
    start = time.perf_counter()
    for preset, players, backend in combos:
        if progress is not None:
            progress.set_description(f"{preset} {players}p {backend}")
        soak_one(preset, players, backend, config, share, steps, report, progress)
    report.seconds = time.perf_counter() - start
    if progress is not None:
        progress.close()
    return report


def summary(report: SoakReport) -> str:
    lines = [f"decisions: {report.decisions:,}", f"games checked: {report.games:,}",
             f"combinations: {report.combinations}",
             f"violations: {len(report.violations)}", f"exceptions: {len(report.exceptions)}",
             f"wall time: {report.seconds:.0f} s",
             f"machine: {platform.processor() or platform.machine()}, "
             f"python {platform.python_version()}, numpy {np.__version__}"]
    lines += [f"VIOLATION {p}" for p in report.violations]
    lines += [f"EXCEPTION {p}" for p in report.exceptions]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> tuple[SoakConfig, int | None]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = SoakConfig()
    parser.add_argument("--decisions", type=int, default=default.decisions,
                        help="decisions in total, shared by the combinations")
    parser.add_argument("--presets", nargs="+", choices=list(PRESETS), default=default.presets)
    parser.add_argument("--players", nargs="+", type=int, default=default.players)
    parser.add_argument("--backends", nargs="+", choices=list(BACKENDS),
                        default=default.backends)
    parser.add_argument("--games", type=int, default=default.games, help="games per batch")
    parser.add_argument("--seed", type=int, default=default.seed)
    parser.add_argument("--steps", type=int, default=None,
                        help="stop each combination after this many steps (to replay a report)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.games < 1 or (args.steps is not None and args.steps < 1):
        parser.error("--decisions, --games and --steps must be positive")
    if args.seed < 0:
        parser.error("--seed must be non-negative")
    config = SoakConfig(decisions=args.decisions, presets=tuple(args.presets),
                        players=tuple(args.players), backends=tuple(args.backends),
                        games=args.games, seed=args.seed, progress=not args.no_progress)
    return config, args.steps


def main(argv: Sequence[str] | None = None) -> int:
    config, steps = parse_args(argv)
    report = soak(config, steps)
    print(summary(report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
