"""Benchmark of the batch engine under random legal play, with RLCard's UNO for reference.

Prints, as tables:

* the machine (CPU model, cores, Python and numpy versions);
* decisions/s of the engine for 1, 64, 1024 and 4096 games (4 players, official
  rules): every step computes the legal mask, observes every acting player,
  picks a random legal action, steps, and resets the games that ended;
* when ``rlcard`` is installed (the ``bench`` extra), decisions/s of RLCard's UNO
  with random agents through ``env.run``, and the engine's ratio to it;
* decisions/s at 4096 games for every preset the engine can play.

Usage: ``python scripts/bench.py [--seconds S] [--warmup S]`` (``make bench``).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass

import numpy as np

from uno_env import PRESETS, Engine, Rules
from uno_env.simulate import measure_throughput

try:
    from rich.console import Console
    from rich.table import Table
except ImportError:  # pragma: no cover - the bench extra installs rich through dev
    Console = None  # type: ignore[assignment,misc]

BATCHES = (1, 64, 1024, 4096)
PLAYERS = 4


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else what platform reports."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    """The 1-minute load average: other work on the machine lowers every number."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def print_table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """A rich table, or aligned plain text without rich."""
    if Console is None:
        print(f"\n{title}")
        widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
        for r in (header, *rows):
            print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
        return
    console = Console(width=120)
    console.print(f"\n[bold]{title}[/bold]")
    table = Table()
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    console.print(table)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed run per line")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed run before each")
    args = parser.parse_args()

    print_table("Machine", ("item", "value"), [
        ("cpu", cpu_model()),
        ("cores", str(os.cpu_count())),
        ("python", platform.python_version()),
        ("numpy", np.__version__),
        ("load average (1 min, at start)", load_average()),
        ("date", time.strftime("%Y-%m-%d")),
    ])

    rules = Rules.preset("official", num_players=PLAYERS)
    engine_rows, best = [], 0.0
    for g in BATCHES:
        t = measure_throughput(rules, g, seconds=args.seconds, warmup=args.warmup)
        best = t.decisions_per_second if g == BATCHES[-1] else best
        engine_rows.append((str(g), f"{t.decisions_per_second:,.0f}",
                            f"{t.games_per_second:,.1f}",
                            f"{1e6 / t.decisions_per_second * g:,.0f}"))
    print_table(f"Engine, official rules, {PLAYERS} players, random legal play "
                "(mask + observe + step + autoreset)",
                ("games", "decisions/s", "games/s", "us per step"), engine_rows)

    try:
        import rlcard  # noqa: F401
    except ImportError:
        print("rlcard is not installed (the bench extra): no RLCard comparison")
    else:
        rows = []
        for players in (None, PLAYERS):
            r = bench_rlcard(players, args.seconds, args.warmup)
            rows.append((r.note, str(r.players), f"{r.decisions_per_second:,.0f}",
                         f"{r.decisions / r.games:.1f}",
                         f"{best / r.decisions_per_second:,.1f}x"))
        print_table(f"RLCard UNO, random agents, env.run (ratio: engine at {BATCHES[-1]} "
                    f"games / RLCard)",
                    ("setup", "players", "decisions/s", "decisions/game", "ratio"), rows)

    preset_rows = []
    for name in PRESETS:
        preset = Rules.preset(name)
        try:
            Engine(preset, 1, 0)
        except NotImplementedError:
            preset_rows.append((name, str(preset.num_players), "not implemented yet"))
            continue
        t = measure_throughput(preset, BATCHES[-1], seconds=args.seconds, warmup=args.warmup)
        preset_rows.append((name, str(preset.num_players), f"{t.decisions_per_second:,.0f}"))
    print_table(f"Presets at {BATCHES[-1]} games", ("preset", "players", "decisions/s"),
                preset_rows)


if __name__ == "__main__":
    main()
