"""Benchmark of the batch engine under random legal play, with RLCard's UNO for reference.

Prints, as tables:

* the machine (CPU model, cores, Python and numpy versions);
* decisions/s of the engine for 1, 64, 1024 and 4096 games (4 players, official
  rules): every step computes the legal mask, observes every acting player,
  picks a random legal action, steps, and resets the games that ended; and for
  1, 1024 and 4096 games the same without the observation; on one thread, and at
  1024 and 4096 games also on two (``Engine(threads=2)``);
* when ``rlcard`` is installed (the ``bench`` extra), decisions/s of RLCard's UNO
  (single-threaded) with random agents through ``env.run``, and the engine's ratios
  to it (at 4096 and 1024 games with observations, 4096 without, and for one game,
  on one thread; at 4096 games with and without observations on two): the ratios
  hold on a loaded machine, where every absolute figure drops;
* where the time of one step goes at 1024 and 4096 games (:func:`bench_step_parts`):
  the mask, the observation, the random choice, the step and the resets, beside the
  time of filling a float32 array the size of the observations, the floor that
  memory bandwidth puts under writing them;
* decisions/s at 4096 games for every preset;
* the PettingZoo AEC env for one game (``uno_env.env``, full wrapper stack) under
  random legal play through ``agent_iter()``, and, when ``rlcard`` is installed,
  the same loop over RLCard's UNO behind PettingZoo's AEC wrappers
  (``uno_env/tooling/rlcard_reference.py``), with the ratio of the two;
* learner steps/s of the batched env with random opponents at 1024 and 4096
  games (:func:`bench_vec_env`, the learner core alone, and
  :class:`uno_env.envs.vector.UnoVecEnv` itself when Stable-Baselines3 is installed);
* decisions/s of the search agent at the budgets in use (:data:`SEARCHES`),
  heads-up, one game at a time, with its playouts compiled and, beside it,
  stepped in Python as before (:func:`bench_search`);
* decisions/s of a whole tournament of four ``greedy`` agents at 4 players
  (:func:`bench_tournament`, as ``experiments/bench_tournament.py`` times them), played
  inside the compiled engine on one and on two threads, and, as the same-run reference,
  with every agent called through its ``act`` as before (``tables=False``).

With ``--rounds N`` it prints only the engine's ratios to RLCard, measured in N
interleaved rounds (every engine line, then RLCard, then again), each round's and
their medians: on a shared machine whose load changes from minute to minute the
ratio of measurements taken seconds apart holds better than one of measurements
minutes apart (:func:`bench_ratios`).

Every table is also written, with the command, the commit, the date and the machine,
to ``--record`` (``docs/results/bench.json``; with ``--rounds``,
``docs/results/bench-ratios.json``): the figures of ``docs/benchmarks.md`` come from it.

Usage: ``python experiments/bench.py [--seconds S] [--warmup S] [--search-calls N]
[--tournament-games N] [--rounds N] [--record PATH]`` (``make bench``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("bench", __name__)

import argparse
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import PRESETS, Rules
from uno_env.cli import run_command
from uno_env.deals import STREAM, deal_seed
from uno_env.engine import Engine
from uno_env.engine.core import default_backend
from uno_env.envs.learner import LearnerCore
from uno_env.evaluation.report import PrintedTables
from uno_env.evaluation.simulate import observer, play_random_step
from uno_env.random_actions import random_legal_actions
from uno_env.tooling.machine import backend_version, cpu_model, load_average

#: Where the records go.
RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
BATCHES = (1, 64, 1024, 4096)
#: Batch sizes also measured without the observation (mask + step + autoreset).
BLIND_BATCHES = (1, 1024, 4096)
#: Batch sizes also measured with the packed observation
#: (``uno_env.engine.packed_rows.observe_packed``).
PACKED_BATCHES = (1024, 4096)
#: Every table printed, kept for the record (``--record``).
TABLES = PrintedTables()
#: Runs also measured on two threads: (games, observation).
TWO_THREADS = ((1024, "float32"), (4096, "float32"), (4096, "none"), (1024, "packed"),
               (4096, "packed"))
OBSERVATION_NAMES = {"float32": "float32 obs", "packed": "packed obs", "none": "no obs"}
PLAYERS = 4
#: Batch sizes of the learner (VecEnv) benchmark.
VEC_ENVS = (1024, 4096)


@dataclass(frozen=True)
class Throughput:
    """Decisions and finished games counted over ``seconds`` of steady random play."""

    num_games: int
    decisions: int
    games: int
    seconds: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def measure_throughput(rules: Rules, num_games: int, seconds: float = 3.0,
                       warmup: float = 1.0, seed: int = 0, observation: str = "float32",
                       backend: str | None = None, threads: int = 1) -> Throughput:
    """Decisions per second of random legal play on one engine of ``num_games`` games.

    Each step is what a batched RL loop costs the engine: the legal mask, the
    observation of every acting player (``observation``: ``float32``, ``packed`` or
    ``none``, see :data:`uno_env.evaluation.simulate.OBSERVATIONS`), the step, and the
    reset of games that just ended (same-step autoreset). Runs ``warmup``
    seconds first so one-time costs and the opening of the games are not timed.
    ``backend`` and ``threads`` as in :class:`Engine`.
    """
    engine = Engine(rules, num_games, seed, backend, threads)
    rng = np.random.default_rng(seed)

    def run(duration: float) -> Throughput:
        decisions = games = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < duration:
            running, ended = play_random_step(engine, rng, observation)
            decisions += int(running.sum())
            if ended.size:
                games += ended.size
                engine.reset(games=ended)
        return Throughput(num_games, decisions, games, elapsed)

    run(warmup)
    return run(seconds)


@dataclass(frozen=True)
class RLCardResult:
    """Random-agent play of RLCard's UNO over a timed run."""

    players: int
    decisions: int
    games: int
    seconds: float
    note: str

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds


def bench_rlcard(players: int | None, seconds: float, warmup: float) -> RLCardResult:
    """Decisions/s of RLCard's UNO with random agents via ``env.run(is_training=False)``.

    ``players=None`` is what ``rlcard.make('uno', config={'game_num_players': 4})``
    gives: RLCard forwards ``game_*`` options only for blackjack and hold'em, so
    its UNO stays at its default of 2 players. With a number, the game object is
    configured directly (``env.game.configure``) to play that many. Decisions
    are the actions recorded in the trajectories.
    """
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"game_num_players": PLAYERS, "seed": 0})
    note = f"make(..., game_num_players={PLAYERS}) gives {env.num_players} players"
    if players is not None:
        env.game.configure({"game_num_players": players})
        env.num_players = env.game.get_num_players()
        note = f"{players} players via env.game.configure"
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def run(duration: float) -> tuple[int, int, float]:
        decisions = games = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < duration:
            trajectories, _ = env.run(is_training=False)
            decisions += sum(1 for traj in trajectories for x in traj if not isinstance(x, dict))
            games += 1
        return decisions, games, elapsed

    run(warmup)
    decisions, games, elapsed = run(seconds)
    return RLCardResult(env.num_players, decisions, games, elapsed, note)


@dataclass(frozen=True)
class AECResult:
    """Random legal play of an AEC env through ``agent_iter()`` over a timed run."""

    decisions: int
    seconds: float
    games: int               # games finished within the run
    finished_decisions: int  # decisions of those games

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def decisions_per_game(self) -> str:
        """Mean decisions of the finished games, or a dash when none finished."""
        return f"{self.finished_decisions / self.games:,.0f}" if self.games else "-"


def time_aec(make_env: Callable[[], Any], seconds: float, warmup: float,
             seed: int = 0) -> AECResult:
    """Steps/s of ``make_env()`` under uniformly random legal play via ``agent_iter()``.

    Every acting agent samples uniformly among the ones of its ``action_mask``
    (by indexing with one uniform number: ``Generator.choice`` would cost more than
    some envs' whole step and blur the comparison);
    agents whose game has ended step out with ``None``; a finished game is
    reset at once. A *decision* (a step) is an ``env.step`` with an action: the
    closing ``None`` steps are not counted (their time is). ``warmup`` seconds
    run untimed first, then play continues from a fresh game for ``seconds``.
    """
    env = make_env()
    rng = np.random.default_rng(seed)

    def run(duration: float, first_seed: int) -> AECResult:
        decisions = games = finished = 0
        game_seed = first_seed
        start = time.perf_counter()
        while True:
            env.reset(seed=game_seed)
            game_seed += 1
            in_game = 0
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rng.random() * legal.size)]))
                in_game += 1
                if time.perf_counter() - start >= duration:
                    elapsed = time.perf_counter() - start
                    return AECResult(decisions + in_game, elapsed, games, finished)
            decisions += in_game
            finished += in_game
            games += 1

    run(warmup, deal_seed("benchmark", seed, STREAM // 2))   # the stream's second half
    return run(seconds, deal_seed("benchmark", seed))


def bench_aec(seconds: float, warmup: float) -> None:
    """The AEC table: this env at 4 and 2 players, RLCard's UNO, and the ratios."""
    import uno_env

    results: list[tuple[str, int, AECResult]] = [
        (f"uno_env.env(preset='official', num_players={p})", p,
         time_aec(lambda p=p: uno_env.env(preset="official", num_players=p), seconds, warmup))
        for p in (PLAYERS, 2)]
    try:
        from uno_env.tooling import rlcard_reference
    except ImportError:
        print("rlcard is not installed (the bench extra): no RLCard AEC comparison")
        ref = None
    else:
        ref = time_aec(rlcard_reference.env, seconds, warmup)
        results.append(("RLCard UNO in PettingZoo's AEC wrappers "
                        "(uno_env/tooling/rlcard_reference.py)", 2, ref))
    header: tuple[str, ...] = ("env", "players", "steps/s", "steps/game")
    if ref is not None:
        header = (*header, "ratio")
    rows = []
    for name, players, r in results:
        row: tuple[str, ...] = (name, str(players), f"{r.decisions_per_second:,.0f}",
                                r.decisions_per_game)
        if ref is not None:
            row = (*row, f"{r.decisions_per_second / ref.decisions_per_second:.2f}x")
        rows.append(row)
    TABLES.print("AEC env, one game, random legal play through agent_iter() "
                 "(full wrapper stack; ratio: env / RLCard's)", header, rows)


def time_vec_env(num_envs: int, seconds: float, warmup: float, seed: int = 0) -> float:
    """Learner steps/s of :class:`UnoVecEnv` driven as SB3 drives it, with a random learner.

    Each step: ``action_masks()``, a uniform legal action per game,
    ``step(actions)`` (opponents play inside, finished games reset with their
    ``terminal_observation`` in ``infos``). Random opponents, official rules.
    """
    from uno_env.envs.vector import UnoVecEnv

    env = UnoVecEnv(num_envs=num_envs, num_players=PLAYERS, learner_seat="rotate", seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()

    def run(duration: float) -> float:
        steps = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < duration:
            mask = env.action_masks()
            env.step(random_legal_actions(mask, rng))
            steps += 1
        return num_envs * steps / elapsed

    run(warmup)
    return run(seconds)


def bench_vec_env(num_envs: int = 1024, steps: int = 200, num_players: int = PLAYERS,
                  preset: str = "official", seed: int = 0) -> float:
    """Learner steps per second of the batched learner core with a random learner.

    :class:`~uno_env.envs.learner.LearnerCore` without an RL-library front end: the
    learner plays uniformly among its legal actions (as a masked policy would),
    opponents are random, finished games are reset as ``UnoVecEnv`` does. Counts
    ``num_envs * steps`` learner decisions, observations and masks included.
    """
    core = LearnerCore(Rules.preset(preset, num_players=num_players), num_envs, None,
                       learner_seat="rotate", seed=seed)
    rng = np.random.default_rng(seed)
    core.observe()
    start = time.perf_counter()
    for _ in range(steps):
        mask = core.action_masks()
        _, terminated, truncated, _ = core.step(random_legal_actions(mask, rng))
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            core.observe(ended)
            core.reset(games=ended)
        core.observe()
    return num_envs * steps / (time.perf_counter() - start)


def time_bench_vec_env(num_envs: int, seconds: float) -> float:
    """:func:`bench_vec_env` sized to last about ``seconds``.

    A short call (also the warm-up) estimates the rate; the timed call then
    runs enough steps for ``seconds``.
    """
    probe = bench_vec_env(num_envs, steps=10)
    steps = max(10, int(probe * seconds / num_envs))
    return bench_vec_env(num_envs, steps=steps)


def bench_vec(seconds: float, warmup: float) -> None:
    """The batched-env table: learner steps/s with random opponents."""
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        print("stable-baselines3 is not installed (the train extra): UnoVecEnv lines skipped")
        sb3 = False
    else:
        sb3 = True
    rows = []
    for n in VEC_ENVS:
        core = time_bench_vec_env(n, seconds)
        vec = f"{time_vec_env(n, seconds, warmup):,.0f}" if sb3 else "n/a"
        rows.append((str(n), f"{core:,.0f}", vec))
    TABLES.print(f"Batched env, official rules, {PLAYERS} players, random learner and "
                 "random opponents (learner steps/s)",
                 ("envs", "bench_vec_env", "UnoVecEnv.step"), rows)


#: The searches in use: the default budget, the budget that beats ``tuned`` heads-up,
#: playouts to the end of the game at budget 256, and the labelling search of the
#: distilled agents (playouts to the end of the game against ``random_play``).
SEARCHES = ("ismcts", "ismcts:budget=384", "ismcts:budget=256,horizon=0",
            "ismcts:budget=256,horizon=0,opponent=random_play")


def bench_search(calls: int) -> None:
    """The search table: decisions/s (CPU time of this process) of each of
    :data:`SEARCHES` heads-up, one game at a time, with compiled playouts and, as the
    same-run reference, with its playout policy stepped in Python as before."""
    from uno_agents import make_agent
    from uno_env.tooling.decision_speed import decisions_per_second

    rules = Rules.preset("official", num_players=2)
    rows = []
    for spec in SEARCHES:
        rate = {}
        for compiled in (True, False):
            agent = make_agent(spec)
            agent.compiled_playouts = compiled
            decisions_per_second(agent, rules, 1, 4)             # warm-up
            rate[compiled] = decisions_per_second(agent, rules, 1, calls)[1]
        rows.append((spec, f"{rate[True]:,.1f}", f"{rate[False]:,.1f}",
                     f"{rate[True] / rate[False]:.1f}x"))
    TABLES.print(f"Search, official rules, 2 players, one game at a time, {calls} calls "
                 "(decisions per CPU second; reference: the playout policy stepped in Python)",
                 ("agent", "compiled playouts", "Python playouts", "ratio"), rows)


#: The tournament's ways of playing: (name, threads, tables); the last is the reference.
TOURNAMENT_MODES = (("in the engine, 1 thread", 1, True), ("in the engine, 2 threads", 2, True),
                    ("agents' act (reference)", 1, False))


def bench_tournament(games: int, batch: int = 4096, repeat: int = 3) -> None:
    """Decisions/s of whole tournaments of four ``greedy`` agents, official rules at 4
    players (``uno_env.evaluation.tournament``: engine creation, agent calls, legality
    checks and the tail of the last games included), best and worst of ``repeat`` runs of each of
    :data:`TOURNAMENT_MODES`, the runs of the modes taken in turn; the ratio is each
    mode's best to the reference's best."""
    from uno_env.evaluation.tournament import tournament

    rules = Rules.preset("official", num_players=PLAYERS)
    for _, threads, tables in TOURNAMENT_MODES:   # warm-up
        tournament(["greedy"] * PLAYERS, rules, min(512, games), threads=threads, tables=tables)
    runs: dict[str, list] = {name: [] for name, _, _ in TOURNAMENT_MODES}
    for _ in range(repeat):
        for name, threads, tables in TOURNAMENT_MODES:
            runs[name].append(tournament(["greedy"] * PLAYERS, rules, games, batch=batch,
                                         threads=threads, tables=tables))
    best = {name: max(r.decisions / r.seconds for r in rs) for name, rs in runs.items()}
    reference = best[TOURNAMENT_MODES[-1][0]]
    rows = []
    for name, rs in runs.items():
        rates = sorted(r.decisions / r.seconds for r in rs)
        rows.append((name, f"{rs[0].games:,}", f"{rs[0].decisions:,}", f"{rates[-1]:,.0f}",
                     f"{rates[0]:,.0f}", f"{best[name] / reference:.1f}x"))
    TABLES.print(f"Tournament, greedy x4, official rules, {PLAYERS} players, batch {batch:,} "
                 "(whole runs)", ("played", "games", "decisions", "decisions/s (best)",
                                  "decisions/s (worst)", "/ reference"), rows)


#: Batch sizes of the table of a step's parts.
PARTS_LINES = ((1024, "float32"), (4096, "float32"), (1024, "packed"), (4096, "packed"))


def bench_step_parts(num_games: int, observation: str = "float32", steps: int = 400,
                     warmup: int = 100) -> list[str]:
    """Microseconds per step of each part of the engine line's loop at ``num_games``
    (official rules, 4 players, one thread) with the ``float32`` or the ``packed``
    observation, and of filling an array of the observations' size and type: the loop's
    observation writes that many bytes, so the fill is what memory bandwidth alone
    costs it."""
    engine = Engine(Rules.preset("official", num_players=PLAYERS), num_games, seed=0)
    observe = observer(engine, observation)
    rng = np.random.default_rng(0)
    spent = np.zeros(6)
    floor = np.empty_like(observe())
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        mask = engine.legal_action_mask()
        t1 = time.perf_counter()
        observe()
        t2 = time.perf_counter()
        running = ~engine.state.done
        actions = random_legal_actions(mask, rng)
        t3 = time.perf_counter()
        engine.step(actions)
        t4 = time.perf_counter()
        ended = np.flatnonzero(running & engine.state.done)
        if ended.size:
            engine.reset(games=ended)
        t5 = time.perf_counter()
        floor.fill(i)
        t6 = time.perf_counter()
        if i >= warmup:
            spent += np.diff([t0, t1, t2, t3, t4, t5, t6])
    per_step = spent / steps * 1e6
    return [str(num_games), observation, *(f"{x:,.0f}" for x in per_step[:5]),
            f"{per_step[:5].sum():,.0f}", f"{per_step[5]:,.0f}", f"{floor.nbytes / 1e6:.1f}"]


#: The engine lines of the ratio table to RLCard: (games, observation, threads).
RLCARD_COLUMNS = ((4096, "float32", 1), (4096, "packed", 1), (4096, "none", 1),
                  (1024, "float32", 1), (1024, "packed", 1), (1, "float32", 1),
                  (4096, "float32", 2), (4096, "packed", 2), (4096, "none", 2))


def line_name(games: int, observation: str, threads: int) -> str:
    """How a table names an engine line, e.g. ``4096, packed obs, 2 threads``."""
    return f"{games}, {OBSERVATION_NAMES[observation]}, {threads} thread{'s' * (threads > 1)}"


#: The engine lines of the interleaved ratios: (games, observation, threads).
RATIO_LINES = ((4096, "float32", 1), (4096, "float32", 2), (4096, "packed", 1),
               (4096, "packed", 2), (4096, "none", 1), (4096, "none", 2),
               (1024, "float32", 1), (1024, "packed", 1))


def bench_ratios(rounds: int, seconds: float, warmup: float) -> None:
    """The engine's decisions/s (:data:`RATIO_LINES`, official rules, 4 players) over
    RLCard's (4 players via ``env.game.configure``, one thread) in ``rounds`` rounds, each
    measuring every line and then RLCard; prints each round's ratios and their medians."""
    rules = Rules.preset("official", num_players=PLAYERS)
    ratios = []
    for _ in range(rounds):
        rates = [measure_throughput(rules, g, seconds, warmup, observation=observation,
                                    threads=threads).decisions_per_second
                 for g, observation, threads in RATIO_LINES]
        reference = bench_rlcard(PLAYERS, seconds, warmup).decisions_per_second
        ratios.append([r / reference for r in rates] + [reference])
    table = np.array(ratios)
    header = (*(line_name(*line) for line in RATIO_LINES), "RLCard decisions/s")
    rows = [(str(i + 1), *(f"{x:.1f}x" for x in row[:-1]), f"{row[-1]:,.0f}")
            for i, row in enumerate(table)]
    median = np.median(table, axis=0)
    rows.append(("median", *(f"{x:.1f}x" for x in median[:-1]), f"{median[-1]:,.0f}"))
    TABLES.print("The engine's decisions/s / RLCard env.run's (4 players, one thread), "
                 "interleaved rounds", ("round", *header), rows)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed run per line")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed run before each")
    parser.add_argument("--search-calls", type=int, default=100,
                        help="timed search calls per agent and playout mode (0: no search table)")
    parser.add_argument("--tournament-games", type=int, default=16384,
                        help="games of the greedy x4 tournament, batch 4096 (0: none)")
    parser.add_argument("--rounds", type=int, default=0,
                        help="only the ratios to RLCard, in this many interleaved rounds")
    parser.add_argument("--record", type=Path,
                        help="the JSON record of every table printed, with the command, "
                             "commit, date and machine (default docs/results/bench.json, "
                             "with --rounds docs/results/bench-ratios.json)")
    args = parser.parse_args(argv)
    record = args.record or RESULTS / ("bench-ratios.json" if args.rounds else "bench.json")
    PrintedTables.check(record, "bench")
    command = shlex.join(["python", "experiments/bench.py", *argv])
    measure(args)
    TABLES.write(record, command)
    print(f"wrote {record}")


def measure(args: argparse.Namespace) -> None:
    """Every table of the run ``args`` asks for."""
    TABLES.print("Machine", ("item", "value"), [
        ("cpu", cpu_model()),
        ("cores", str(os.cpu_count())),
        ("python", platform.python_version()),
        ("numpy", np.__version__),
        ("engine backend", backend_version()),
        ("load average (1 min, at start)", load_average()),
        ("date", time.strftime("%Y-%m-%d")),
    ])
    if args.rounds:
        bench_ratios(args.rounds, args.seconds, args.warmup)
        print(f"load average (1 min) at the end: {load_average()}")
        return

    rules = Rules.preset("official", num_players=PLAYERS)
    default = default_backend()
    # the default backend at every size; the numpy reference too when it is not the default
    runs = [(g, default, "float32", 1) for g in BATCHES]
    runs += [(g, default, "packed", 1) for g in PACKED_BATCHES]
    runs += [(g, default, "none", 1) for g in BLIND_BATCHES]
    if default != "numpy":
        runs += [(g, default, observation, 2) for g, observation in TWO_THREADS]
        runs += [(BATCHES[0], "numpy", "float32", 1), (BATCHES[-1], "numpy", "float32", 1)]
    engine_rows, rate = [], {}
    for g, backend, observation, threads in runs:
        t = measure_throughput(rules, g, seconds=args.seconds, warmup=args.warmup,
                               backend=backend, observation=observation, threads=threads)
        rate[g, backend, observation, threads] = t.decisions_per_second
        engine_rows.append((str(g), backend, str(threads), OBSERVATION_NAMES[observation],
                            f"{t.decisions_per_second:,.0f}", f"{t.games_per_second:,.1f}",
                            f"{1e6 / t.decisions_per_second * g:,.0f}"))
    TABLES.print(f"Engine, official rules, {PLAYERS} players, random legal play "
                 "(mask + observe + step + autoreset)",
                 ("games", "backend", "threads", "observation", "decisions/s", "games/s",
                  "us per step"), engine_rows)

    try:
        import rlcard  # noqa: F401
    except ImportError:
        print("rlcard is not installed (the bench extra): no RLCard comparison")
    else:
        rows = []
        for players in (None, PLAYERS):
            r = bench_rlcard(players, args.seconds, args.warmup)
            columns = [(g, observation, threads) for g, observation, threads in RLCARD_COLUMNS
                       if (g, default, observation, threads) in rate]
            rows.append((r.note, str(r.players), f"{r.decisions_per_second:,.0f}",
                         f"{r.decisions / r.games:.1f}",
                         *(f"{rate[g, default, o, t] / r.decisions_per_second:,.1f}x"
                           for g, o, t in columns)))
        header = ("setup", "players", "decisions/s", "decisions/game",
                  *(line_name(*column) for column in columns))
        TABLES.print("RLCard UNO (one thread), random agents, env.run (ratios: the engine's "
                     "decisions/s in this run / RLCard's; on one thread unless said)",
                     header, rows)

    TABLES.print(f"One step's parts, official rules, {PLAYERS} players, one thread (us per step)",
                 ("games", "observation", "mask", "observe", "random choice", "step", "resets",
                  "total", "fill of an observation-sized array", "observation MB"),
                 [bench_step_parts(*line) for line in PARTS_LINES])

    preset_rows = []
    for name in PRESETS:
        preset = Rules.preset(name)
        t = measure_throughput(preset, BATCHES[-1], seconds=args.seconds, warmup=args.warmup)
        preset_rows.append((name, str(preset.num_players), f"{t.decisions_per_second:,.0f}"))
    TABLES.print(f"Presets at {BATCHES[-1]} games", ("preset", "players", "decisions/s"),
                 preset_rows)

    bench_aec(args.seconds, args.warmup)
    bench_vec(args.seconds, args.warmup)
    if args.search_calls:
        bench_search(args.search_calls)
    if args.tournament_games:
        bench_tournament(args.tournament_games)


if __name__ == "__main__":
    sys.exit(run_command(main, "bench"))
