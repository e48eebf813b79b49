"""Benchmark of tournaments: decisions/s of whole tournaments played in batch.

Plays tournaments of four ``greedy`` agents (and, for comparison, other line-ups)
on the official rules at 4 players, for several batch sizes, and prints the
machine, the games, the decisions and the decisions/s of each run, for each engine
thread count of ``--threads`` (the same games). Every number
is a whole tournament (engine creation, agents, legality checks, the long tail
of the last games), not a steady-state loop. The first run is a warm-up (the
compiled engine loads) and is not shown.

Every table is also written, with the command, the commit, the date and the machine,
to ``--record`` (``docs/results/bench-tournament.json``).

Usage: ``python experiments/bench_tournament.py [--games N] [--record PATH]``
(``make bench-tournament``).
"""

from __future__ import annotations

from uno_env.launch import guard

guard("bench_tournament", __name__)

import argparse
import os
import platform
import shlex
import sys
from pathlib import Path

import numpy as np

from uno_env import Rules
from uno_env.cli import run_command
from uno_env.evaluation.report import PrintedTables
from uno_env.evaluation.tournament import tournament
from uno_env.tooling.machine import backend_version, cpu_model, load_average

LINE_UPS = {"greedy x4": ["greedy"] * 4, "greedy vs 3 random": ["greedy", "random", "random",
                                                                 "random"]}
BATCHES = (1024, 4096, 16384)
RECORD = Path(__file__).resolve().parents[1] / "docs" / "results" / "bench-tournament.json"


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32768, help="games per tournament")
    parser.add_argument("--repeat", type=int, default=3, help="runs per line (best shown)")
    parser.add_argument("--batches", type=int, nargs="+", default=BATCHES)
    parser.add_argument("--line-ups", nargs="+", default=list(LINE_UPS), choices=list(LINE_UPS))
    parser.add_argument("--threads", type=int, nargs="+", default=[1],
                        help="engine threads (Engine(threads=...)), one line each")
    parser.add_argument("--record", type=Path, default=RECORD,
                        help="the JSON record of the tables printed, with the command, commit, "
                             "date and machine (default docs/results/bench-tournament.json)")
    args = parser.parse_args(argv)
    PrintedTables.check(args.record, "bench_tournament")
    tables = PrintedTables()
    rules = Rules.preset("official", num_players=4)
    tables.print("machine", ("item", "value"), [
        ("cpu", cpu_model()), ("cores", str(os.cpu_count())),
        ("python", platform.python_version()), ("numpy", np.__version__),
        ("engine", backend_version()), ("load average (1 min)", load_average())])
    tournament(["greedy"] * 4, rules, min(256, args.games))  # warm-up: the engine loads
    rows = []
    for name in args.line_ups:
        agents = LINE_UPS[name]
        for batch in args.batches:
            for threads in args.threads:
                runs = [tournament(agents, rules, args.games, batch=batch, threads=threads)
                        for _ in range(args.repeat)]
                rates = sorted(r.decisions / r.seconds for r in runs)
                best = runs[0]
                rows.append((name, f"{batch:,}", str(threads), f"{best.games:,}",
                             f"{best.decisions:,}", f"{rates[-1]:,.0f}", f"{rates[0]:,.0f}"))
    tables.print("tournaments, official, 4 players (whole runs)",
                 ("agents", "batch", "threads", "games", "decisions", "decisions/s (best)",
                  "decisions/s (worst)"), rows)
    tables.write(args.record, shlex.join(["python", "experiments/bench_tournament.py", *argv]))
    print(f"wrote {args.record}")


if __name__ == "__main__":
    sys.exit(run_command(main, "bench_tournament"))
