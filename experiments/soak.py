"""Soak test: random legal play over every preset and random rule combinations,
checking the engine's invariants.

Plays uniformly random legal decisions in batches of games under every preset at
2, 4, 7 and 10 players (where the preset allows that count) and, with
``--random-rules N``, under N random valid combinations of every rule option at
2-10 players, on each backend, and after every step checks:

* card conservation: every card of the deck is in a hand, the draw pile or the
  discards (``Engine.census``), hand sizes equal the hands, the top card lies on
  the discard pile, the cards shown on a 0 (``zero_open``) are held;
* every running game has a legal action;
* games that had finished before the step are unchanged by it;
* the observations of the acting players lie within the observation space bounds;
* rewards sum as the ``reward`` option promises: under ``"win"`` and ``"rank"`` they
  come only when an episode ends and sum to zero; under ``"points"`` they are the
  points of the rounds that ended (summing to zero under ``scoring="zero_sum"`` with
  the winner taking the losers' total);
* when a ``last_standing`` episode ends with a result, the places are a permutation
  of the seats (players sharing places after a cut round, or between a Dobon's
  declarer and its loser, all hold the first of them) and the round's winner holds
  the first place; under ``scoring="rank"`` every seat scores ``P - 1 - place``.

Finished games are reset (each from its previous seed, so a run is reproducible)
and play on. Every violation and every exception is reported with what
reproduces it: rules, players, backend, seed, batch size and step; rerunning
the printed command replays the same games up to that step.

Usage: ``python experiments/soak.py [--decisions N] [--players 7 10] [--backends numba]
[--random-rules N]`` (``make soak``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("soak", __name__)

import argparse
import dataclasses
import json
import platform
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from uno_env import PRESETS, Engine, Rules
from uno_env.cards import NUM_KINDS
from uno_env.deals import STREAMS, deal_seed
from uno_env.engine.core import BACKENDS
from uno_env.engine.observe import observation_bounds
from uno_env.engine.state import State
from uno_env.random_actions import random_legal_actions
from uno_env.rules import CHOICES, MAX_PLAYERS, MIN_PLAYERS

PLAYER_COUNTS = (2, 4, 7, 10)
#: The values a random rule combination draws for each integer option (the others keep
#: their default): small penalties, a mercy limit or none, short and long matches.
INT_CHOICES: dict[str, tuple[int, ...]] = {
    "challenge_penalty": (0, 2, 4), "uno_penalty": (0, 1, 2), "mercy_limit": (0, 15, 25),
    "feed_penalty": (0, 20), "target_score": (100, 500), "rounds": (0, 2, 5),
    "max_turns": (200, 1000), "draw_return_winner_points": (-20, -50),
    "declare_on_finish": (0, 2),
}
#: A combination stops after this many exceptions (each restarts it from fresh games).
MAX_EXCEPTIONS = 10


@dataclass(frozen=True)
class SoakConfig:
    """What to play: ``decisions`` in total, shared evenly by every (rules, backend)
    combination, in batches of ``games`` games. The rules are every preset at each of
    ``players``, ``random_rules`` random rule combinations drawn from ``seed``
    (:func:`random_rules`), and the rule sets of ``options`` (each a dict of options
    over the official defaults)."""

    decisions: int = 1_000_000
    presets: tuple[str, ...] = tuple(PRESETS)
    players: tuple[int, ...] = PLAYER_COUNTS
    backends: tuple[str, ...] = BACKENDS
    games: int = 256
    seed: int = 0
    progress: bool = True
    random_rules: int = 0
    options: tuple[dict, ...] = ()


@dataclass(frozen=True)
class Problem:
    """One violation or exception, with what reproduces it (``preset``: the preset's
    name, or ``"custom"`` for a rule combination given by ``options``)."""

    preset: str
    players: int
    backend: str
    seed: int
    games: int
    step: int
    what: str
    options: str = ""

    def command(self) -> str:
        """The command that replays the same games up to this step."""
        rules = (f"--presets {self.preset} --players {self.players}" if not self.options
                 else f"--presets --rules '{self.options}'")
        return (f"python experiments/soak.py {rules} --backends {self.backend} "
                f"--seed {self.seed} --games {self.games} --steps {self.step + 1}")

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
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.violations and not self.exceptions


def random_rules(rng: np.random.Generator) -> Rules:
    """A random valid combination of every rule option, at 2-10 players: each choice
    option uniformly, each boolean a coin, each integer from :data:`INT_CHOICES`
    (drawn again until the combination is valid)."""
    while True:
        options: dict[str, object] = {"num_players": int(rng.integers(MIN_PLAYERS,
                                                                      MAX_PLAYERS + 1))}
        for f in dataclasses.fields(Rules):
            if f.name in CHOICES:
                options[f.name] = str(rng.choice(CHOICES[f.name]))
            elif f.type in (bool, "bool"):
                options[f.name] = bool(rng.integers(2))
            elif f.name in INT_CHOICES:
                options[f.name] = int(rng.choice(INT_CHOICES[f.name]))
        if options["teams"]:
            options["num_players"] = 4
        try:
            return Rules(**options)
        except ValueError:
            continue


def options_json(rules: Rules) -> str:
    """The options of ``rules`` that differ from the official defaults, as JSON."""
    return json.dumps({"num_players": rules.num_players, **rules.differences()},
                      sort_keys=True)


def combinations(config: SoakConfig) -> list[tuple[str, Rules, str]]:
    """Every (name, rules, backend) to play, in a fixed order: each preset at the player
    counts it allows, then the random and the given rule combinations (named
    ``"custom"``)."""
    rule_sets = []
    for preset in config.presets:
        for players in config.players:
            try:
                rule_sets.append((preset, Rules.preset(preset, num_players=players)))
            except ValueError:   # e.g. teams needs four players
                continue
    rng = np.random.default_rng([config.seed, 0x5EED])
    rule_sets += [("custom", random_rules(rng)) for _ in range(config.random_rules)]
    rule_sets += [("custom", Rules(**options)) for options in config.options]
    return [(name, rules, backend) for name, rules in rule_sets for backend in config.backends]


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


def check(engine: Engine, before_done: np.ndarray, frozen: object | None,
          rewards: np.ndarray | None = None, before_rounds: np.ndarray | None = None
          ) -> list[str]:
    """The invariants the engine breaks after a step (an empty list when it holds them).

    ``rewards``: the step's rewards, and ``before_rounds`` the games' ``rounds_played``
    before it, to check the rewards and places of the rounds that ended.
    """
    s = engine.state
    found = []
    wrong = np.flatnonzero((census(s) != engine.deck_composition()).any(axis=1))
    if wrong.size:
        found.append(f"cards not conserved in game {wrong[0]} (and {wrong.size - 1} more)")
    shown = np.flatnonzero((s.shown > s.hands).any(axis=(1, 2)))
    if shown.size:
        found.append(f"cards shown but not held in game {shown[0]} (and {shown.size - 1} more)")
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
    ended = ~before_done & s.done
    if rewards is not None and before_rounds is not None:
        found += check_rewards(engine.rules, s, rewards, ended, s.rounds_played - before_rounds)
    found += check_places(engine.rules, s, ended)
    return found


def check_rewards(rules: Rules, s: State, rewards: np.ndarray, ended: np.ndarray,
                  rounds_ended: np.ndarray) -> list[str]:
    """Rewards as the ``reward`` option promises (see the module doc); ``ended``: the
    episodes that ended in the step, ``rounds_ended``: how many rounds each game ended
    (more than one only when ``auto_forced`` plays on into the next round)."""
    found = []
    paid = rewards.any(axis=1)
    if rules.reward == "points":
        wrong = np.flatnonzero(paid & (rounds_ended == 0))
        if wrong.size:
            found.append(f"points rewarded in game {wrong[0]}, whose round did not end")
        over = np.flatnonzero(rounds_ended == 1)
        differ = over[(rewards[over] != s.round_points[over]).any(axis=1)]
        if differ.size:
            found.append(f"rewards {rewards[differ[0]].tolist()} of game {differ[0]} are not "
                         f"its round's points {s.round_points[differ[0]].tolist()}")
        if rules.scoring == "none" or (rules.scoring == "zero_sum"
                                       and rules.draw_return_winner == "zero_sum"):
            unbalanced = over[s.round_points[over].sum(axis=1) != 0]
            if unbalanced.size:
                found.append(f"round points {s.round_points[unbalanced[0]].tolist()} of game "
                             f"{unbalanced[0]} do not sum to zero under scoring="
                             f"{rules.scoring!r}")
        return found
    wrong = np.flatnonzero(paid & ~ended)
    if wrong.size:
        found.append(f"a reward in game {wrong[0]}, whose episode did not end")
    unbalanced = np.flatnonzero(ended & (np.abs(rewards.sum(axis=1)) > 1e-4))
    if unbalanced.size:
        found.append(f"rewards {rewards[unbalanced[0]].tolist()} of game {unbalanced[0]} "
                     f"do not sum to zero under reward={rules.reward!r}")
    return found


def check_places(rules: Rules, s: State, ended: np.ndarray) -> list[str]:
    """Places of the ``last_standing`` episodes that ended with a result: a permutation of
    the seats, shared places holding the first of them, the round's winner first."""
    if rules.end != "last_standing":
        return []
    found = []
    for g in np.flatnonzero(ended & ((s.num_out > 0) | ~s.truncated)):
        place = s.place[g]
        order = np.sort(place)
        if order[0] < 0 or (order != np.searchsorted(order, order)).any():
            found.append(f"places {place.tolist()} of game {g} are not a permutation of the "
                         "seats")
        elif place[s.round_winner[g]] != 0:
            found.append(f"round winner {s.round_winner[g]} of game {g} holds place "
                         f"{place[s.round_winner[g]]}")
        elif rules.scoring == "rank" and not rules.match:
            shared = (place[:, None] == place[None, :]).sum(axis=1)
            expected = (2 * (rules.num_players - 1 - place) - (shared - 1)) // 2
            if (s.round_points[g] != expected).any():
                found.append(f"rank points {s.round_points[g].tolist()} of game {g} do not "
                             f"follow its places {place.tolist()}")
    return found


def soak_one(name: str, rules: Rules, backend: str, config: SoakConfig, decisions: int,
             steps: int | None, report: SoakReport, progress: object | None) -> None:
    """Random legal play under ``rules`` (``name``: a preset or ``"custom"``) until
    ``decisions`` (or ``steps`` steps)."""
    seed = config.seed                    # a stream of soak deals (uno_env.deals)
    engine = Engine(rules, config.games, deal_seed("soak", seed, 0, config.games), backend)
    rng = np.random.default_rng(seed)
    played = step = failures = 0
    options = options_json(rules) if name == "custom" else ""
    while played < decisions if steps is None else step < steps:
        where = Problem(name, rules.num_players, backend, seed, config.games, step, "", options)
        try:
            before_done = engine.state.done.copy()
            before_rounds = engine.state.rounds_played.copy()
            frozen = engine.state.take(np.flatnonzero(before_done)) if before_done.any() else None
            actions = random_legal_actions(engine.legal_action_mask(), rng)
            rewards, _, _ = engine.step(actions)
            n = int((~before_done).sum())
            for what in check(engine, before_done, frozen, rewards, before_rounds):
                report.violations.append(dataclasses.replace(where, what=what))
            # a game that ends stays finished for one step (checked unchanged), then restarts
            ended = np.flatnonzero(before_done)
            report.games += ended.size
            if ended.size:
                engine.reset(games=ended)
        except Exception as err:  # every exception is a finding to report
            tb = traceback.format_exception_only(type(err), err)[-1].strip()
            report.exceptions.append(dataclasses.replace(where, what=tb))
            failures += 1
            if steps is not None or failures >= MAX_EXCEPTIONS:
                break
            seed += 1   # play on from fresh games: the next stream
            engine = Engine(rules, config.games, deal_seed("soak", seed, 0, config.games),
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
    try:
        for name, rules, backend in combos:
            if progress is not None:
                progress.set_description(f"{name} {rules.num_players}p {backend}")
            soak_one(name, rules, backend, config, share, steps, report, progress)
    except KeyboardInterrupt:   # Ctrl-C: report what was checked so far
        report.interrupted = True
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
    parser.add_argument("--presets", nargs="*", choices=list(PRESETS), default=default.presets,
                        help="presets to play (none: only the random or given rules)")
    parser.add_argument("--players", nargs="+", type=int, default=default.players)
    parser.add_argument("--backends", nargs="+", choices=list(BACKENDS),
                        default=default.backends)
    parser.add_argument("--games", type=int, default=default.games, help="games per batch")
    parser.add_argument("--seed", type=int, default=default.seed,
                        help="the stream of soak deals played (uno_env.deals)")
    parser.add_argument("--steps", type=int, default=None,
                        help="stop each combination after this many steps (to replay a report)")
    parser.add_argument("--random-rules", type=int, default=default.random_rules,
                        help="also play this many random valid rule combinations (2-10 "
                             "players), drawn from --seed")
    parser.add_argument("--rules", action="append", default=[], metavar="JSON",
                        help="also play these options over the official defaults, e.g. "
                             "'{\"num_players\": 3, \"dobon\": true}' (repeatable)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.games < 1 or (args.steps is not None and args.steps < 1):
        parser.error("--decisions, --games and --steps must be positive")
    if not 0 <= args.seed < STREAMS - MAX_EXCEPTIONS or args.random_rules < 0:
        parser.error(f"--seed must be between 0 and {STREAMS - MAX_EXCEPTIONS - 1} and "
                     "--random-rules non-negative")
    options = []
    for text in args.rules:
        try:
            given = json.loads(text)
            Rules(**given)
        except (ValueError, TypeError) as err:
            parser.error(f"--rules {text!r}: {err}")
        options.append(given)
    config = SoakConfig(decisions=args.decisions, presets=tuple(args.presets),
                        players=tuple(args.players), backends=tuple(args.backends),
                        games=args.games, seed=args.seed, progress=not args.no_progress,
                        random_rules=args.random_rules, options=tuple(options))
    if not combinations(config):
        parser.error("nothing to play: give --presets, --random-rules or --rules")
    return config, args.steps


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status 0: no problem; 1: problems found; 130: interrupted (Ctrl-C), after the
    summary of the decisions played until then (a soak saves no file)."""
    config, steps = parse_args(argv)
    report = soak(config, steps)
    print(summary(report), flush=True)
    if report.interrupted:
        print(f"soak: interrupted after {report.decisions:,} decisions; nothing is saved (a "
              "soak writes no file), the summary above covers them", file=sys.stderr)
        return 130
    return 0 if report.ok else 1


if __name__ == "__main__":
    from uno_env.cli import run_command

    sys.exit(run_command(main, "soak"))
